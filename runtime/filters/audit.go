package filters

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	utilnet "k8s.io/apimachinery/pkg/util/net"
	auditv1 "k8s.io/apiserver/pkg/apis/audit/v1"
	"sigs.k8s.io/yaml"

	"github.com/kubeforge/kubeforge/runtime/audit"
	"github.com/kubeforge/kubeforge/runtime/auth"
	"github.com/kubeforge/kubeforge/runtime/request"
)

// AuditIDHeader carries the audit ID of every response, and of a request
// that brings its own (a front proxy's).
const AuditIDHeader = "Audit-Id"

// auditBodyLimit bounds the request and response bodies an event holds;
// a larger one is left out of the event.
const auditBodyLimit = 1 << 20

// WithAudit writes the audit events of every request (kube's WithAudit,
// inside authentication so the event names the user): RequestReceived,
// ResponseStarted for watches, ResponseComplete, or Panic, as the policy
// keeps them, each under the Audit-Id of its response.
func WithAudit(next http.Handler, a *audit.Auditor) http.Handler {
	if a == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		u, _ := auth.UserFrom(req.Context())
		rec := startRecord(w, req, a, u)
		if rec == nil {
			next.ServeHTTP(w, req)
			return
		}
		rec.Stage(auditv1.StageRequestReceived, metav1.NowMicro())
		ri := request.InfoOf(req)
		var reqBody *cappedBuffer
		if rec.WantsRequestBody() && req.Body != nil && req.Body != http.NoBody {
			reqBody = &cappedBuffer{max: auditBodyLimit}
			req.Body = teeBody{Reader: io.TeeReader(req.Body, reqBody), Closer: req.Body}
		}
		aw := &auditWriter{recordingWriter: recordingWriter{ResponseWriter: w}, rec: rec, longRunning: ri.IsLongRunning(), create: ri.Verb == "create"}
		aw.body.max = auditBodyLimit
		aw.keepBody = rec.WantsResponseBody() && !ri.IsLongRunning()
		completed := false
		defer func() {
			if completed {
				return
			}
			// A panic: log it at the Panic stage and let recovery answer.
			// (No panic value: the handler's goroutine exited; nothing to
			// log or re-raise.)
			v := recover()
			if v == nil {
				return
			}
			rec.Update(func(ev *auditv1.Event) {
				ev.ResponseStatus = &metav1.Status{Code: http.StatusInternalServerError, Status: metav1.StatusFailure, Reason: metav1.StatusReasonInternalError, Message: "APIServer panic'd"}
			})
			rec.Stage(auditv1.StagePanic, metav1.NowMicro())
			panic(v)
		}()
		req = withContext(req, audit.SetRecord(req.Context(), rec))
		next.ServeHTTP(aw, req)
		completed = true
		if req.Context().Err() != nil && !ri.IsMutating() && !ri.IsLongRunning() && !a.AdmitAbandoned() {
			// A read its client abandoned (a reset HTTP/2 stream, a
			// closed connection), past the auditor's rate for those.
			return
		}
		finishRecord(rec, ri, aw, reqBody)
		rec.Stage(auditv1.StageResponseComplete, metav1.NowMicro())
	})
}

// startRecord begins the event of req for user u (nil: authentication
// failed) under the response's Audit-Id; nil when the policy says None.
func startRecord(w http.ResponseWriter, req *http.Request, a *audit.Auditor, u *auth.User) *audit.Record {
	id := auditID(w, req)
	ri := request.InfoOf(req)
	return a.Begin(auth.Attributes{User: u, Info: *ri}, func(ev *auditv1.Event) {
		*ev = auditv1.Event{
			AuditID:                  types.UID(id),
			RequestURI:               req.URL.RequestURI(),
			Verb:                     ri.Verb,
			User:                     audit.UserInfo(u),
			UserAgent:                req.UserAgent(),
			RequestReceivedTimestamp: metav1.NowMicro(),
		}
		for _, ip := range utilnet.SourceIPs(req) {
			ev.SourceIPs = append(ev.SourceIPs, ip.String())
		}
		if ri.IsResourceRequest {
			ev.ObjectRef = &auditv1.ObjectReference{
				Resource: ri.Resource, Namespace: ri.Namespace, Name: ri.Name,
				APIGroup: ri.APIGroup, APIVersion: ri.APIVersion, Subresource: ri.Subresource,
			}
		}
	})
}

// auditFailedAuthentication logs a request refused with 401 (kube's
// WithFailedAuthenticationAudit: stage ResponseStarted, no user).
func auditFailedAuthentication(w http.ResponseWriter, req *http.Request, a *audit.Auditor) {
	rec := startRecord(w, req, a, nil)
	if rec == nil {
		return
	}
	rec.Update(func(ev *auditv1.Event) {
		ev.ResponseStatus = &metav1.Status{Code: http.StatusUnauthorized, Status: metav1.StatusFailure, Reason: metav1.StatusReasonUnauthorized, Message: "Unauthorized"}
	})
	rec.Stage(auditv1.StageResponseStarted, metav1.NowMicro())
}

// finishRecord sets the response status (the Status of a failure), the
// bodies the level keeps, and the name of a created object.
func finishRecord(rec *audit.Record, ri *request.Info, aw *auditWriter, reqBody *cappedBuffer) {
	code := aw.code
	if code == 0 {
		code = http.StatusOK
	}
	status := &metav1.Status{Code: int32(code)}
	var resp struct {
		Kind     string `json:"kind"`
		Metadata struct {
			Name string `json:"name"`
		} `json:"metadata"`
	}
	body := aw.body.Bytes()
	decoded := !aw.body.over && len(body) > 0 && json.Unmarshal(body, &resp) == nil
	if decoded && code >= 400 && resp.Kind == "Status" {
		var st metav1.Status
		if json.Unmarshal(body, &st) == nil {
			status.Status, status.Message, status.Reason, status.Details = st.Status, st.Message, st.Reason, st.Details
		}
	}
	rec.Update(func(ev *auditv1.Event) {
		ev.ResponseStatus = status
		if decoded && ri.Verb == "create" && ev.ObjectRef != nil && ev.ObjectRef.Name == "" && resp.Kind != "Status" {
			ev.ObjectRef.Name = resp.Metadata.Name
		}
	})
	if reqBody != nil && !reqBody.over && reqBody.Len() > 0 {
		data := reqBody.Bytes()
		if !json.Valid(data) {
			if j, err := yaml.YAMLToJSON(data); err == nil {
				data = j
			}
		}
		if obj := rec.Body(data); obj != nil {
			rec.Update(func(ev *auditv1.Event) { ev.RequestObject = obj })
		}
	}
	if aw.keepBody && !aw.body.over && strings.Contains(aw.Header().Get("Content-Type"), "json") {
		if obj := rec.Body(body); obj != nil {
			rec.Update(func(ev *auditv1.Event) { ev.ResponseObject = obj })
		}
	}
}

// auditWriter records the status and keeps the body of an error response
// (its Status), of a create (the name) or, at RequestResponse level, of
// every response, up to auditBodyLimit.
type auditWriter struct {
	recordingWriter
	rec         *audit.Record
	longRunning bool
	create      bool
	keepBody    bool
	body        cappedBuffer
	started     bool
}

func (aw *auditWriter) start(code int) {
	if aw.started {
		return
	}
	aw.started = true
	if aw.longRunning {
		aw.rec.Update(func(ev *auditv1.Event) { ev.ResponseStatus = &metav1.Status{Code: int32(code)} })
		aw.rec.Stage(auditv1.StageResponseStarted, metav1.NowMicro())
	}
}

func (aw *auditWriter) WriteHeader(code int) {
	aw.start(code)
	aw.recordingWriter.WriteHeader(code)
}

func (aw *auditWriter) Write(p []byte) (int, error) {
	aw.start(http.StatusOK)
	n, err := aw.recordingWriter.Write(p)
	if !aw.longRunning && (aw.keepBody || aw.code >= 400 || aw.create) {
		_, _ = aw.body.Write(p[:n])
	}
	return n, err
}

// cappedBuffer keeps at most max bytes; over records that more came.
type cappedBuffer struct {
	bytes.Buffer
	max  int
	over bool
}

func (c *cappedBuffer) Write(p []byte) (int, error) {
	if c.over || c.Len()+len(p) > c.max {
		c.over = true
		c.Reset()
		return len(p), nil
	}
	return c.Buffer.Write(p)
}

type teeBody struct {
	io.Reader
	io.Closer
}
