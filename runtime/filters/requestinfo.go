package filters

import (
	"net/http"

	"github.com/kubeforge/kubeforge/runtime/request"
)

// WithRequestInfo parses the request info once and stores it in the
// context, where request.InfoOf finds it.
func WithRequestInfo(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		ri := request.Parse(req)
		next.ServeHTTP(w, req.WithContext(request.WithInfo(req.Context(), ri)))
	})
}
