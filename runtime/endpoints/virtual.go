package endpoints

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/emicklei/go-restful/v3"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Virtual serves a create-only resource that is computed, not stored (the
// access and token reviews, a ServiceAccount's token): POST decodes the
// request object (JSON, YAML or protobuf) of kind gvk, calls create with
// it, and answers its result with 201 Created in the negotiated format.
// Errors are Status answers.
type Virtual[In, Out runtime.Object] struct {
	// Resource and Subresource name the requests in metrics.
	Resource, Subresource string
	GVK                   schema.GroupVersionKind
	New                   func() In
	Create                func(ctx context.Context, r *http.Request, in In) (Out, error)
	Opts                  Options
	Timeout               time.Duration
}

// Serve is the go-restful route function.
func (v *Virtual[In, Out]) Serve(req *restful.Request, resp *restful.Response) {
	w, r := resp.ResponseWriter, req.Request
	start := time.Now()
	code := http.StatusCreated
	err := v.serve(w, r)
	if err != nil {
		var apiStatus apierrors.APIStatus
		if !errors.As(err, &apiStatus) && v.Opts.Logger != nil {
			v.Opts.Logger.Error("internal error", "method", r.Method, "path", r.URL.Path, "err", err)
		}
		code = int(StatusFor(err).Code)
		WriteError(w, r, err)
	}
	if v.Opts.Observe != nil {
		v.Opts.Observe("POST", v.Resource, v.Subresource, code, time.Since(start))
	}
}

func (v *Virtual[In, Out]) serve(w http.ResponseWriter, r *http.Request) error {
	f, err := negotiateOutput(r, false)
	if err != nil {
		return err
	}
	body, err := readBody(r, v.Opts.MaxRequestBodyBytes)
	if err != nil {
		return err
	}
	in := v.New()
	if err := decodeRequest(w, r, body, in, metav1.FieldValidationStrict); err != nil {
		return err
	}
	if err := checkTypeMeta(in, v.GVK); err != nil {
		return err
	}
	ctx, cancel := r.Context(), context.CancelFunc(func() {})
	if v.Timeout > 0 {
		ctx, cancel = context.WithTimeout(ctx, v.Timeout)
	}
	defer cancel()
	out, err := v.Create(ctx, r, in)
	if err != nil {
		return err
	}
	if out.GetObjectKind().GroupVersionKind().Empty() {
		return fmt.Errorf("%s: the result has no kind", v.GVK.Kind)
	}
	writeEncoded(w, r, http.StatusCreated, f, out)
	return nil
}

// decodeRequest decodes a request body of a fixed kind, protobuf (by its
// Content-Type), JSON or YAML (fields checked per directive), into in.
func decodeRequest(w http.ResponseWriter, r *http.Request, body []byte, in runtime.Object, directive string) error {
	if isProtobuf(r.Header.Get("Content-Type")) {
		gvk, err := decodeProtobuf(body, in, "request body")
		if err != nil {
			return err
		}
		in.GetObjectKind().SetGroupVersionKind(gvk)
		return nil
	}
	data, yamlStrict, err := bodyToJSON(r.Header.Get("Content-Type"), body, directive)
	if err != nil {
		return err
	}
	return unmarshal(w, data, in, directive, yamlStrict, "request body")
}
