// Package audit writes kube-apiserver's audit log: one audit.k8s.io/v1
// Event per request stage, as JSON lines, at the level a policy in kube's
// format gives (--audit-policy-file; without one every request is logged
// at Metadata level at ResponseComplete, and at ResponseStarted when a
// watch starts or authentication fails), rotated by size.
//
// Policies are read and evaluated by Kubernetes' own audit policy package
// (k8s.io/apiserver/pkg/audit/policy), so rules match exactly as they do
// in kube-apiserver; the rotation is kube's too (lumberjack). The HTTP
// filter that fills a Record lives in runtime/filters.
package audit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"sync"
	"time"

	"gopkg.in/natefinch/lumberjack.v2"
	authnv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	auditinternal "k8s.io/apiserver/pkg/apis/audit"
	auditv1 "k8s.io/apiserver/pkg/apis/audit/v1"
	kubeaudit "k8s.io/apiserver/pkg/audit"
	"k8s.io/apiserver/pkg/audit/policy"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"

	"github.com/kubeforge/kubeforge/runtime/auth"
	"github.com/kubeforge/kubeforge/runtime/request"
)

// Options are kube-apiserver's audit log flags.
type Options struct {
	// Path is the log file (--audit-log-path); "-" is standard output.
	Path string
	// PolicyFile is an audit.k8s.io/v1 Policy (--audit-policy-file);
	// empty logs every request at Metadata level.
	PolicyFile string
	// MaxSizeMB rotates the file when it reaches that size (default 100);
	// MaxBackups old files are kept (0: all; the command's default is
	// 10), none older than MaxAgeDays (0: no limit).
	MaxSizeMB, MaxBackups, MaxAgeDays int
}

// Auditor evaluates the policy and writes events.
type Auditor struct {
	eval   kubeaudit.PolicyRuleEvaluator
	mu     sync.Mutex
	out    io.Writer
	closer io.Closer
	log    *slog.Logger

	// abandoned limits the events of reads their clients abandoned.
	abandoned abandonedLimit
}

// The events of read-only requests whose client went away before the
// answer (an HTTP/2 stream reset, a closed connection) are kept at
// abandonedPerSecond, after a burst of abandonedBurst: a client resetting
// streams as fast as it can would otherwise write an event per stream
// (100 MB of log in a minute in an attack run), as kube's batching audit
// backends drop what they cannot keep up with. Writes are always logged:
// they may have changed something.
const (
	abandonedBurst     = 100
	abandonedPerSecond = 10
)

type abandonedLimit struct {
	mu       sync.Mutex
	tokens   float64
	last     time.Time
	dropped  int64
	reported time.Time
}

// AdmitAbandoned says whether the event of a read-only request its client
// abandoned is written; the dropped ones are counted and logged (at most
// once a minute).
func (a *Auditor) AdmitAbandoned() bool {
	if a == nil {
		return false
	}
	l := &a.abandoned
	now := time.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.last.IsZero() {
		l.tokens = abandonedBurst
	} else {
		l.tokens = min(abandonedBurst, l.tokens+now.Sub(l.last).Seconds()*abandonedPerSecond)
	}
	l.last = now
	if l.tokens >= 1 {
		l.tokens--
		return true
	}
	l.dropped++
	if now.Sub(l.reported) >= time.Minute {
		a.log.Warn("audit events of read requests abandoned by their clients dropped", "dropped", l.dropped, "limit", fmt.Sprintf("%d/s after a burst of %d", abandonedPerSecond, abandonedBurst))
		l.reported = now
	}
	return false
}

// New opens the log and reads the policy.
func New(o Options, log *slog.Logger) (*Auditor, error) {
	if o.Path == "" {
		return nil, errors.New("open audit log: no path")
	}
	p := &auditinternal.Policy{
		Rules:      []auditinternal.PolicyRule{{Level: auditinternal.LevelMetadata}},
		OmitStages: []auditinternal.Stage{auditinternal.StageRequestReceived},
	}
	if o.PolicyFile != "" {
		var err error
		if p, err = policy.LoadPolicyFromFile(o.PolicyFile); err != nil {
			return nil, fmt.Errorf("read audit policy: %w", err)
		}
	}
	a := &Auditor{eval: policy.NewPolicyRuleEvaluator(p), log: log}
	if o.Path == "-" {
		a.out = os.Stdout
	} else {
		if o.MaxSizeMB <= 0 {
			o.MaxSizeMB = 100
		}
		l := &lumberjack.Logger{Filename: o.Path, MaxSize: o.MaxSizeMB, MaxBackups: o.MaxBackups, MaxAge: o.MaxAgeDays}
		// Open now: a path that cannot be written fails the start, not
		// the first request.
		if _, err := l.Write(nil); err != nil {
			return nil, fmt.Errorf("open audit log %s: %w", o.Path, err)
		}
		a.out, a.closer = l, l
	}
	return a, nil
}

// Close closes the log file.
func (a *Auditor) Close() error {
	if a == nil || a.closer == nil {
		return nil
	}
	return a.closer.Close()
}

// Record is the event of one request, filled as the request passes the
// filters and written at each stage the policy keeps.
type Record struct {
	a                 *Auditor
	mu                sync.Mutex
	ev                auditv1.Event
	omitStages        []auditinternal.Stage
	omitManagedFields bool
}

// Start evaluates the policy for r, the request's authorization
// attributes (kube's policy reads authorizer.Attributes too), and returns
// its record; nil when the policy's level for r is None. ev must have the
// request fields set (auditID, requestURI, verb, user, sourceIPs,
// userAgent, objectRef, requestReceivedTimestamp).
func (a *Auditor) Start(r auth.Attributes, ev auditv1.Event) *Record {
	return a.Begin(r, func(e *auditv1.Event) { *e = ev })
}

// Begin is Start with the event's request fields set by fill, which is
// not called when the level is None: a request the policy does not log
// costs the policy's evaluation and nothing more.
func (a *Auditor) Begin(r auth.Attributes, fill func(ev *auditv1.Event)) *Record {
	if a == nil {
		return nil
	}
	cfg := a.eval.EvaluatePolicyRule(attributes(r))
	if cfg.Level == auditinternal.LevelNone {
		return nil
	}
	rec := &Record{a: a, omitStages: cfg.OmitStages, omitManagedFields: cfg.OmitManagedFields}
	ev := &rec.ev
	fill(ev)
	ev.TypeMeta = metav1.TypeMeta{Kind: "Event", APIVersion: auditv1.SchemeGroupVersion.String()}
	ev.Level = auditv1.Level(cfg.Level)
	return rec
}

// WantsRequestBody and WantsResponseBody say whether the level logs them.
func (r *Record) WantsRequestBody() bool {
	return r.ev.Level == auditv1.LevelRequest || r.ev.Level == auditv1.LevelRequestResponse
}
func (r *Record) WantsResponseBody() bool { return r.ev.Level == auditv1.LevelRequestResponse }

// UserInfo is u as the event shows it.
func UserInfo(u *auth.User) authnv1.UserInfo {
	if u == nil {
		return authnv1.UserInfo{}
	}
	info := authnv1.UserInfo{Username: u.Name, UID: u.UID, Groups: u.Groups}
	if len(u.Extra) > 0 {
		info.Extra = map[string]authnv1.ExtraValue{}
		for k, v := range u.Extra {
			info.Extra[k] = v
		}
	}
	return info
}

// SetImpersonatedUser records the user a request acts as.
func (r *Record) SetImpersonatedUser(u *auth.User) {
	if r == nil {
		return
	}
	info := UserInfo(u)
	r.mu.Lock()
	r.ev.ImpersonatedUser = &info
	r.mu.Unlock()
}

// Annotate adds an annotation (authorization.k8s.io/decision and
// /reason, for instance).
func (r *Record) Annotate(key, value string) {
	if r == nil {
		return
	}
	r.mu.Lock()
	if r.ev.Annotations == nil {
		r.ev.Annotations = map[string]string{}
	}
	r.ev.Annotations[key] = value
	r.mu.Unlock()
}

// Update changes the event under the record's lock (the filter sets the
// response status, bodies and objectRef name with it).
func (r *Record) Update(f func(ev *auditv1.Event)) {
	r.mu.Lock()
	f(&r.ev)
	r.mu.Unlock()
}

// Body returns data as the event's request or response object, nil when
// it is not JSON; managed fields are dropped when the policy says so.
func (r *Record) Body(data []byte) *runtime.Unknown {
	if !json.Valid(data) {
		return nil
	}
	if r.omitManagedFields {
		var obj map[string]any
		if json.Unmarshal(data, &obj) == nil {
			if md, ok := obj["metadata"].(map[string]any); ok {
				if _, has := md["managedFields"]; has {
					delete(md, "managedFields")
					if out, err := json.Marshal(obj); err == nil {
						data = out
					}
				}
			}
		}
	}
	return &runtime.Unknown{Raw: data, ContentType: runtime.ContentTypeJSON}
}

// Stage writes the event at stage unless the policy omits it.
func (r *Record) Stage(stage auditv1.Stage, at metav1.MicroTime) {
	if r == nil || slices.Contains(r.omitStages, auditinternal.Stage(stage)) {
		return
	}
	r.mu.Lock()
	r.ev.Stage = stage
	r.ev.StageTimestamp = at
	line, err := json.Marshal(&r.ev)
	r.mu.Unlock()
	if err != nil {
		r.a.log.Error("encode audit event", "err", err)
		return
	}
	r.a.mu.Lock()
	_, err = r.a.out.Write(append(line, '\n'))
	r.a.mu.Unlock()
	if err != nil {
		r.a.log.Error("write audit event", "err", err)
	}
}

// WithRecord returns a context carrying r.
func WithRecord(ctx context.Context, r *Record) context.Context {
	return context.WithValue(ctx, request.SlotAuditRecord, r)
}

// SetRecord makes r the record of ctx: in place in the request's
// request.State when ctx has one (the filter chain), else as WithRecord.
func SetRecord(ctx context.Context, r *Record) context.Context {
	return request.SetIn(ctx, request.SlotAuditRecord, r)
}

// From returns the record of the request, nil when it is not audited
// (the Record methods accept nil).
func From(ctx context.Context) *Record {
	r, _ := ctx.Value(request.SlotAuditRecord).(*Record)
	return r
}

// attributes adapts r to kube's authorizer.Attributes for the policy.
func attributes(r auth.Attributes) authorizer.Attributes {
	a := authorizer.AttributesRecord{
		Verb: r.Verb, ResourceRequest: r.IsResourceRequest, Path: r.Path, APIGroup: r.APIGroup,
		APIVersion: r.APIVersion, Namespace: r.Namespace, Resource: r.Resource, Subresource: r.Subresource, Name: r.Name,
	}
	if r.User != nil {
		a.User = &user.DefaultInfo{Name: r.User.Name, UID: r.User.UID, Groups: r.User.Groups, Extra: r.User.Extra}
	}
	return a
}
