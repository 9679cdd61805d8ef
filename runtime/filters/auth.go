package filters

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubeforge/kubeforge/runtime/audit"
	"github.com/kubeforge/kubeforge/runtime/auth"
	"github.com/kubeforge/kubeforge/runtime/request"
)

// Authenticate returns the user of a request; an error is a 401.
type Authenticate func(req *http.Request) (*auth.User, error)

// WithAuthentication puts the request's user in its context; a request
// whose credentials fail (or that has none, when anonymous requests are
// off) gets kube's 401 Unauthorized Status. The Authorization header is
// removed once read, as kube-apiserver does.
func WithAuthentication(next http.Handler, authenticate Authenticate, auditor *audit.Auditor, log *slog.Logger) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		u, err := authenticate(req)
		if err != nil {
			log.Debug("unauthorized request", "uri", req.URL.RequestURI(), "remote", req.RemoteAddr, "err", err)
			if auditor != nil {
				auditFailedAuthentication(w, req, auditor)
			}
			WriteStatus(w, req, http.StatusUnauthorized, metav1.StatusReasonUnauthorized, "Unauthorized", nil)
			return
		}
		req.Header.Del("Authorization")
		next.ServeHTTP(w, withContext(req, auth.SetUser(req.Context(), u)))
	})
}

// withContext is req with ctx, req itself when ctx is its context already
// (a value set in place in the request's state).
func withContext(req *http.Request, ctx context.Context) *http.Request {
	if ctx == req.Context() {
		return req
	}
	return req.WithContext(ctx)
}

// WithAuthorization asks authz about every request, before any handler
// runs (so a list or watch is judged before any data is sent); a denial is
// kube's 403 Forbidden Status with its message; when the authorizer could
// not decide (an error and no opinion), a 503 with Retry-After.
func WithAuthorization(next http.Handler, authz auth.Authorizer, log *slog.Logger) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		u, _ := auth.UserFrom(req.Context())
		a := auth.Attributes{User: u, Info: *request.InfoOf(req)}
		d, reason, err := authz.Authorize(req.Context(), a)
		rec := audit.From(req.Context())
		rec.Annotate("authorization.k8s.io/reason", reason)
		if d == auth.DecisionAllow {
			rec.Annotate("authorization.k8s.io/decision", "allow")
			next.ServeHTTP(w, req)
			return
		}
		rec.Annotate("authorization.k8s.io/decision", "forbid")
		if err != nil {
			log.Warn("authorization failed", "uri", req.URL.RequestURI(), "err", err)
			if d == auth.DecisionNoOpinion {
				// No decision could be made (the main cluster's
				// SubjectAccessReview did not answer): retryable, not a
				// denial. kube answers 500 here.
				w.Header().Set("Retry-After", "1")
				WriteStatus(w, req, http.StatusServiceUnavailable, metav1.StatusReasonServiceUnavailable,
					"authorization is unavailable, try again: "+err.Error(), nil)
				return
			}
		}
		writeForbidden(w, req, a, reason)
	})
}

// ForbiddenError is kube-apiserver's 403 for a, with the authorizer's
// reason appended when there is one: `shipments.shipping.kubeforge.dev is
// forbidden: User "x" cannot list resource "shipments" in API group
// "shipping.kubeforge.dev" in the namespace "a"`.
func ForbiddenError(a auth.Attributes, reason string) *apierrors.StatusError {
	msg := ForbiddenMessage(a)
	if reason != "" {
		msg += ": " + reason
	}
	if !a.IsResourceRequest {
		return apierrors.NewForbidden(schema.GroupResource{}, "", errors.New(msg))
	}
	return apierrors.NewForbidden(schema.GroupResource{Group: a.APIGroup, Resource: a.Resource}, a.Name, errors.New(msg))
}

// ForbiddenMessage is the "User ... cannot ..." sentence of a denial.
func ForbiddenMessage(a auth.Attributes) string {
	name := ""
	if a.User != nil {
		name = a.User.Name
	}
	if !a.IsResourceRequest {
		return fmt.Sprintf("User %q cannot %s path %q", name, a.Verb, a.Path)
	}
	resource := a.Resource
	if a.Subresource != "" {
		resource += "/" + a.Subresource
	}
	if a.Namespace != "" {
		return fmt.Sprintf("User %q cannot %s resource %q in API group %q in the namespace %q", name, a.Verb, resource, a.APIGroup, a.Namespace)
	}
	return fmt.Sprintf("User %q cannot %s resource %q in API group %q at the cluster scope", name, a.Verb, resource, a.APIGroup)
}

func writeForbidden(w http.ResponseWriter, req *http.Request, a auth.Attributes, reason string) {
	st := ForbiddenError(a, reason).ErrStatus
	WriteStatus(w, req, http.StatusForbidden, st.Reason, st.Message, st.Details)
}

// Impersonation headers (kube's authenticationv1.Impersonate*).
const (
	ImpersonateUser        = "Impersonate-User"
	ImpersonateUID         = "Impersonate-Uid"
	ImpersonateGroup       = "Impersonate-Group"
	ImpersonateExtraPrefix = "Impersonate-Extra-"
)

// WithImpersonation serves kubectl --as: the Impersonate-* headers replace
// the request's user once the real user is allowed to impersonate each of
// them (verb impersonate on users, groups and serviceaccounts, and on
// uids and userextras/<key> in authentication.k8s.io), as kube-apiserver
// checks them; otherwise the answer is kube's 403.
func WithImpersonation(next http.Handler, authz auth.Authorizer, log *slog.Logger) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		name := req.Header.Get(ImpersonateUser)
		groups := req.Header.Values(ImpersonateGroup)
		uid := req.Header.Get(ImpersonateUID)
		var extra map[string][]string // made for the rare request that has some
		for k, vs := range req.Header {
			if strings.HasPrefix(k, ImpersonateExtraPrefix) {
				if extra == nil {
					extra = map[string][]string{}
				}
				key, err := url.PathUnescape(strings.ToLower(strings.TrimPrefix(k, ImpersonateExtraPrefix)))
				if err != nil {
					WriteStatus(w, req, http.StatusBadRequest, metav1.StatusReasonBadRequest, fmt.Sprintf("invalid impersonation extra key %q: %v", k, err), nil)
					return
				}
				extra[key] = append(extra[key], vs...)
			}
		}
		if name == "" && len(groups) == 0 && uid == "" && len(extra) == 0 {
			next.ServeHTTP(w, req)
			return
		}
		if name == "" {
			WriteStatus(w, req, http.StatusBadRequest, metav1.StatusReasonBadRequest,
				"requested impersonation of groups, a uid or extra fields without impersonating a user", nil)
			return
		}
		real, _ := auth.UserFrom(req.Context())
		check := func(ri request.Info) bool {
			ri.Verb, ri.IsResourceRequest = "impersonate", true
			a := auth.Attributes{User: real, Info: ri}
			d, reason, err := authz.Authorize(req.Context(), a)
			if d == auth.DecisionAllow {
				return true
			}
			if err != nil {
				log.Warn("impersonation authorization failed", "err", err)
			}
			writeForbidden(w, req, a, reason)
			return false
		}
		u := &auth.User{Name: name, UID: uid}
		if ns, sa, ok := strings.Cut(strings.TrimPrefix(name, auth.ServiceAccountUsernamePrefix), ":"); ok && strings.HasPrefix(name, auth.ServiceAccountUsernamePrefix) {
			if !check(request.Info{Resource: "serviceaccounts", Namespace: ns, Name: sa}) {
				return
			}
			if len(groups) == 0 {
				u.Groups = []string{auth.ServiceAccountGroup, auth.ServiceAccountGroupPrefix + ns}
			}
		} else if !check(request.Info{Resource: "users", Name: name}) {
			return
		}
		for _, g := range groups {
			if !check(request.Info{Resource: "groups", Name: g}) {
				return
			}
			u.Groups = append(u.Groups, g)
		}
		if uid != "" && !check(request.Info{APIGroup: "authentication.k8s.io", Resource: "uids", Name: uid}) {
			return
		}
		for k, vs := range extra {
			for _, v := range vs {
				if !check(request.Info{APIGroup: "authentication.k8s.io", Resource: "userextras", Subresource: k, Name: v}) {
					return
				}
			}
			if u.Extra == nil {
				u.Extra = map[string][]string{}
			}
			u.Extra[k] = vs
		}
		if name != auth.Anonymous && !u.InGroup(auth.AllAuthenticated) {
			u.Groups = append(u.Groups, auth.AllAuthenticated)
		} else if name == auth.Anonymous && !u.InGroup(auth.AllUnauthenticated) {
			u.Groups = append(u.Groups, auth.AllUnauthenticated)
		}
		for k := range req.Header {
			if k == ImpersonateUser || k == ImpersonateUID || k == ImpersonateGroup || strings.HasPrefix(k, ImpersonateExtraPrefix) {
				req.Header.Del(k)
			}
		}
		audit.From(req.Context()).SetImpersonatedUser(u)
		next.ServeHTTP(w, withContext(req, auth.SetUser(req.Context(), u)))
	})
}
