package filters

import (
	"net/http"

	"github.com/kubeforge/kubeforge/runtime/request"
)

// WithRequestInfo parses the request info once and places the request's
// request.State, which holds it, in the context: the one copy of the
// request the filters make for their state (the user and the audit record
// are set in it in place). request.InfoOf finds the info there.
func WithRequestInfo(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		next.ServeHTTP(w, withState(req))
	})
}

// withState returns req with a new request.State in its context.
func withState(req *http.Request) *http.Request {
	var ri request.Info
	request.ParseInto(req, &ri)
	ctx, _ := request.WithState(req.Context(), ri)
	return req.WithContext(ctx)
}
