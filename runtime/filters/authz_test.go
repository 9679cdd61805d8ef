package filters

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/kubeforge/kubeforge/runtime/auth"
)

// TestAuthorizationUndecided: an authorizer that cannot decide (the main
// cluster's SubjectAccessReview failing) is a retryable 503, a denial a
// 403, an allowed request served.
func TestAuthorizationUndecided(t *testing.T) {
	served := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusTeapot) })
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	for _, tc := range []struct {
		name  string
		d     auth.Decision
		err   error
		code  int
		retry bool
	}{
		{"undecided", auth.DecisionNoOpinion, errors.New("subject access review: connection refused"), http.StatusServiceUnavailable, true},
		{"denied", auth.DecisionNoOpinion, nil, http.StatusForbidden, false},
		{"denied with an error", auth.DecisionDeny, errors.New("x"), http.StatusForbidden, false},
		{"allowed", auth.DecisionAllow, nil, http.StatusTeapot, false},
	} {
		authz := auth.AuthorizerFunc(func(context.Context, auth.Attributes) (auth.Decision, string, error) { return tc.d, "", tc.err })
		h := WithAuthorization(served, authz, log)
		req := httptest.NewRequest("GET", "/apis/g/v1/widgets", nil)
		req = req.WithContext(auth.WithUser(req.Context(), &auth.User{Name: "alice"}))
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != tc.code || (rec.Header().Get("Retry-After") != "") != tc.retry {
			t.Errorf("%s: %d Retry-After %q, want %d", tc.name, rec.Code, rec.Header().Get("Retry-After"), tc.code)
		}
		if tc.code == http.StatusServiceUnavailable && !strings.Contains(rec.Body.String(), `"reason":"ServiceUnavailable"`) {
			t.Errorf("%s: body %s", tc.name, rec.Body.String())
		}
	}
}
