package endpoints

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"unicode"

	"github.com/emicklei/go-restful/v3"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilnet "k8s.io/apimachinery/pkg/util/net"
)

// StatusFor turns any error into the Kubernetes Status the client gets.
// Errors carrying an API status (apierrors.APIStatus, also when wrapped)
// keep it; anything else is a 500 InternalError naming the error.
func StatusFor(err error) *metav1.Status {
	var st metav1.Status
	var apiStatus apierrors.APIStatus
	if errors.As(err, &apiStatus) {
		st = apiStatus.Status()
	} else {
		st = apierrors.NewInternalError(err).ErrStatus
	}
	if st.Status == "" {
		st.Status = metav1.StatusFailure
	}
	if st.Code == 0 {
		if st.Status == metav1.StatusSuccess {
			st.Code = http.StatusOK
		} else {
			st.Code = http.StatusInternalServerError
		}
	}
	st.Kind = "Status"
	st.APIVersion = "v1"
	return &st
}

// WriteError writes err as a Kubernetes Status, JSON unless the request
// asks for YAML, with the Status code as the HTTP code. Server filters
// use it so every error a client sees has the same shape.
func WriteError(w http.ResponseWriter, req *http.Request, err error) {
	st := StatusFor(err)
	if st.Details != nil && st.Details.RetryAfterSeconds > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(int(st.Details.RetryAfterSeconds)))
	}
	f := statusFormat(req)
	writeEncoded(w, req, int(st.Code), f, st)
}

// ServiceErrorHandler renders go-restful's own routing errors (no route,
// 405, 406, 415 from Consumes/Produces) as Kubernetes Status bodies; install
// it with container.ServiceErrorHandler(endpoints.ServiceErrorHandler).
func ServiceErrorHandler(serr restful.ServiceError, req *restful.Request, resp *restful.Response) {
	for k, vs := range serr.Header {
		for _, v := range vs {
			resp.Header().Add(k, v)
		}
	}
	msg := serr.Message
	var err error
	switch serr.Code {
	case http.StatusNotFound:
		err = failure(http.StatusNotFound, metav1.StatusReasonNotFound, "the server could not find the requested resource")
	case http.StatusNotAcceptable:
		err = notAcceptable(supportedOutputTypes)
	case http.StatusUnsupportedMediaType:
		if req.Request.Method == http.MethodPatch {
			err = unsupportedMediaType(supportedPatchTypes)
		} else {
			err = unsupportedMediaType(supportedInputTypes)
		}
	default:
		err = apierrors.NewGenericServerResponse(serr.Code, req.Request.Method, schema.GroupResource{}, "", msg, 0, false)
	}
	WriteError(resp, req.Request, err)
}

// AddWarning adds a `Warning: 299 - "text"` header, as kube-apiserver does
// for deprecations and unknown fields. Call it before the body is written.
func AddWarning(w http.ResponseWriter, text string) {
	h, err := utilnet.NewWarningHeader(299, "-", text)
	if err != nil {
		// Control characters (a multi-line message) are not allowed.
		text = strings.Map(func(r rune) rune {
			if unicode.IsControl(r) {
				return ' '
			}
			return r
		}, text)
		if h, err = utilnet.NewWarningHeader(299, "-", text); err != nil {
			return
		}
	}
	for _, existing := range w.Header().Values("Warning") {
		if existing == h {
			return
		}
	}
	w.Header().Add("Warning", h)
}

func notAcceptable(accepted []string) error {
	return notAcceptableMsg(fmt.Sprintf("only the following media types are accepted: %v", strings.Join(accepted, ", ")))
}

func notAcceptableMsg(msg string) error {
	return failure(http.StatusNotAcceptable, metav1.StatusReasonNotAcceptable, msg)
}

func unsupportedMediaType(accepted []string) error {
	return failure(http.StatusUnsupportedMediaType, metav1.StatusReasonUnsupportedMediaType,
		fmt.Sprintf("the body of the request was in an unknown format - accepted media types include: %v", strings.Join(accepted, ", ")))
}

// invalidRequest is a 422 Invalid whose message is msg (kube-apiserver uses
// this shape for a JSON patch that cannot be applied).
func invalidRequest(msg string) error {
	return failure(http.StatusUnprocessableEntity, metav1.StatusReasonInvalid, msg)
}

// failure is a Status error of the code and reason, with msg as it is
// (apierrors' constructors rewrite the message for some reasons).
func failure(code int32, reason metav1.StatusReason, msg string) error {
	return &apierrors.StatusError{ErrStatus: metav1.Status{Status: metav1.StatusFailure, Code: code, Reason: reason, Message: msg}}
}
