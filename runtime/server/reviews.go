package server

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"time"

	restful "github.com/emicklei/go-restful/v3"
	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kubeforge/kubeforge/runtime/auth"
	"github.com/kubeforge/kubeforge/runtime/builtinkinds"
	"github.com/kubeforge/kubeforge/runtime/endpoints"
	"github.com/kubeforge/kubeforge/runtime/request"
	"github.com/kubeforge/kubeforge/runtime/storage"
)

// Token lifetimes of TokenRequest, as kube-apiserver bounds them.
const (
	defaultTokenSeconds = 3600
	minTokenSeconds     = 600
	maxTokenSeconds     = 1 << 32
)

// addBuiltinRoutes serves what package runtime/builtinkinds computes
// rather than stores: the review group-versions authentication.k8s.io/v1
// (SelfSubjectReview for kubectl auth whoami, TokenReview) and
// authorization.k8s.io/v1 (the access and rules reviews kubectl auth can-i
// sends), and the extra subresources of the added group-versions (a
// ServiceAccount's token). Routes and discovery rows come from the same
// table rows. Called by Run before it starts serving.
func (s *Server) addBuiltinRoutes() error {
	h := builtinHandlers{s}
	for _, gv := range builtinkinds.ComputedGroups(h, NewWebService) {
		if err := s.AddGroupVersion(GroupVersion{Group: gv.Group, Version: gv.Version, WebService: gv.WebService, Resources: gv.Resources}); err != nil {
			return err
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, gv := range s.groups {
		s.groups[i].Resources = builtinkinds.AddSubresources(gv.WebService, gv.Resources, h)
	}
	return nil
}

// builtinHandlers serve the computed resources: the reviews with security
// on (not in aggregated mode, where the main cluster serves them), the
// TokenRequest when the server issues ServiceAccount tokens.
type builtinHandlers struct{ s *Server }

var _ builtinkinds.Handlers = builtinHandlers{}

// reviews reports whether the review APIs are served.
func (h builtinHandlers) reviews() bool { return h.s.sec != nil && !h.s.cfg.Aggregated }

// virtual is the route function of a computed create-only resource (its
// objects are *E), answered by create.
func virtual[E any, P interface {
	*E
	runtime.Object
}](s *Server, t builtinkinds.Target, create func(ctx context.Context, r *http.Request, in P) (P, error)) restful.RouteFunction {
	v := &endpoints.Virtual[P, P]{
		Resource: t.Resource, Subresource: t.Subresource, GVK: t.GVK,
		New:    func() P { return P(new(E)) },
		Create: create, Opts: s.EndpointOptions(), Timeout: s.cfg.RequestTimeout,
	}
	return v.Serve
}

func (h builtinHandlers) ServiceAccountToken(t builtinkinds.Target) restful.RouteFunction {
	s := h.s
	if s.sec == nil || s.sec.tokens == nil {
		return nil
	}
	return virtual(s, t,
		func(ctx context.Context, r *http.Request, in *authenticationv1.TokenRequest) (*authenticationv1.TokenRequest, error) {
			ri := request.InfoOf(r)
			return s.requestToken(ctx, ri.Namespace, ri.Name, in)
		})
}

func (h builtinHandlers) SelfSubjectReview(t builtinkinds.Target) restful.RouteFunction {
	if !h.reviews() {
		return nil
	}
	return virtual(h.s, t,
		func(ctx context.Context, _ *http.Request, in *authenticationv1.SelfSubjectReview) (*authenticationv1.SelfSubjectReview, error) {
			u, _ := auth.UserFrom(ctx)
			in.Status.UserInfo = userInfo(u)
			in.CreationTimestamp = metav1.Now()
			return in, nil
		})
}

func (h builtinHandlers) TokenReview(t builtinkinds.Target) restful.RouteFunction {
	if !h.reviews() {
		return nil
	}
	return virtual(h.s, t,
		func(ctx context.Context, _ *http.Request, in *authenticationv1.TokenReview) (*authenticationv1.TokenReview, error) {
			if in.Spec.Token == "" {
				return nil, apierrors.NewInvalid(schema.GroupKind{Group: authenticationv1.GroupName, Kind: "TokenReview"}, "",
					field.ErrorList{field.Required(field.NewPath("spec", "token"), "token must be provided")})
			}
			in.Status = h.s.reviewToken(ctx, in.Spec)
			return in, nil
		})
}

func (h builtinHandlers) SelfSubjectAccessReview(t builtinkinds.Target) restful.RouteFunction {
	if !h.reviews() {
		return nil
	}
	return virtual(h.s, t,
		func(ctx context.Context, _ *http.Request, in *authorizationv1.SelfSubjectAccessReview) (*authorizationv1.SelfSubjectAccessReview, error) {
			u, _ := auth.UserFrom(ctx)
			st, err := h.s.accessReview(ctx, "SelfSubjectAccessReview", u, in.Spec.ResourceAttributes, in.Spec.NonResourceAttributes)
			if err != nil {
				return nil, err
			}
			in.Status = st
			return in, nil
		})
}

func (h builtinHandlers) SubjectAccessReview(t builtinkinds.Target) restful.RouteFunction {
	if !h.reviews() {
		return nil
	}
	return virtual(h.s, t,
		func(ctx context.Context, _ *http.Request, in *authorizationv1.SubjectAccessReview) (*authorizationv1.SubjectAccessReview, error) {
			if err := checkSubject(in.Spec, "SubjectAccessReview"); err != nil {
				return nil, err
			}
			st, err := h.s.accessReview(ctx, "SubjectAccessReview", subjectUser(in.Spec), in.Spec.ResourceAttributes, in.Spec.NonResourceAttributes)
			if err != nil {
				return nil, err
			}
			in.Status = st
			return in, nil
		})
}

func (h builtinHandlers) LocalSubjectAccessReview(t builtinkinds.Target) restful.RouteFunction {
	if !h.reviews() {
		return nil
	}
	return virtual(h.s, t, h.s.localSubjectAccessReview)
}

func (s *Server) localSubjectAccessReview(ctx context.Context, r *http.Request, in *authorizationv1.LocalSubjectAccessReview) (*authorizationv1.LocalSubjectAccessReview, error) {
	ns := request.InfoOf(r).Namespace
	if err := checkSubject(in.Spec, "LocalSubjectAccessReview"); err != nil {
		return nil, err
	}
	ra := in.Spec.ResourceAttributes
	if ra == nil || in.Spec.NonResourceAttributes != nil {
		return nil, apierrors.NewInvalid(schema.GroupKind{Group: authorizationv1.GroupName, Kind: "LocalSubjectAccessReview"}, "",
			field.ErrorList{field.Invalid(field.NewPath("spec", "resourceAttributes"), ra, "resourceAttributes are required and nonResourceAttributes are forbidden")})
	}
	if ra.Namespace != ns {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("spec.resourceAttributes.namespace must match namespace: %v", ns))
	}
	in.Namespace = ns
	st, err := s.accessReview(ctx, "LocalSubjectAccessReview", subjectUser(in.Spec), ra, nil)
	if err != nil {
		return nil, err
	}
	in.Status = st
	return in, nil
}

func (h builtinHandlers) SelfSubjectRulesReview(t builtinkinds.Target) restful.RouteFunction {
	if !h.reviews() {
		return nil
	}
	return virtual(h.s, t,
		func(ctx context.Context, _ *http.Request, in *authorizationv1.SelfSubjectRulesReview) (*authorizationv1.SelfSubjectRulesReview, error) {
			if in.Spec.Namespace == "" {
				return nil, apierrors.NewInvalid(schema.GroupKind{Group: authorizationv1.GroupName, Kind: "SelfSubjectRulesReview"}, "",
					field.ErrorList{field.Required(field.NewPath("spec", "namespace"), "namespace is required")})
			}
			u, _ := auth.UserFrom(ctx)
			in.Status = h.s.rulesReview(u, in.Spec.Namespace)
			return in, nil
		})
}

func userInfo(u *auth.User) authenticationv1.UserInfo {
	if u == nil {
		return authenticationv1.UserInfo{}
	}
	out := authenticationv1.UserInfo{Username: u.Name, UID: u.UID, Groups: slices.Clone(u.Groups)}
	if len(u.Extra) > 0 {
		out.Extra = map[string]authenticationv1.ExtraValue{}
		for k, v := range u.Extra {
			out.Extra[k] = authenticationv1.ExtraValue(slices.Clone(v))
		}
	}
	return out
}

// reviewToken authenticates a bearer token as a request carrying it would
// be (the token file, then ServiceAccount tokens).
func (s *Server) reviewToken(ctx context.Context, spec authenticationv1.TokenReviewSpec) authenticationv1.TokenReviewStatus {
	for _, t := range s.sec.authn.Tokens {
		u, ok, err := t.AuthenticateToken(ctx, spec.Token)
		if err != nil {
			return authenticationv1.TokenReviewStatus{Error: err.Error()}
		}
		if ok {
			if u.Name != auth.Anonymous && !u.InGroup(auth.AllAuthenticated) {
				u.Groups = append(u.Groups, auth.AllAuthenticated)
			}
			st := authenticationv1.TokenReviewStatus{Authenticated: true, User: userInfo(u)}
			if s.sec.tokens != nil {
				st.Audiences = s.sec.tokens.APIAudiences()
			}
			return st
		}
	}
	return authenticationv1.TokenReviewStatus{Error: "invalid bearer token"}
}

func checkSubject(spec authorizationv1.SubjectAccessReviewSpec, kind string) error {
	if spec.User == "" && len(spec.Groups) == 0 {
		return apierrors.NewInvalid(schema.GroupKind{Group: authorizationv1.GroupName, Kind: kind}, "",
			field.ErrorList{field.Invalid(field.NewPath("spec", "user"), spec.User, "at least one of user or group must be specified")})
	}
	return nil
}

func subjectUser(spec authorizationv1.SubjectAccessReviewSpec) *auth.User {
	u := &auth.User{Name: spec.User, UID: spec.UID, Groups: slices.Clone(spec.Groups)}
	if len(spec.Extra) > 0 {
		u.Extra = map[string][]string{}
		for k, v := range spec.Extra {
			u.Extra[k] = slices.Clone(v)
		}
	}
	return u
}

// accessReview asks the server's authorizer, as a request with those
// attributes would be asked.
func (s *Server) accessReview(ctx context.Context, kind string, u *auth.User, ra *authorizationv1.ResourceAttributes, nra *authorizationv1.NonResourceAttributes) (authorizationv1.SubjectAccessReviewStatus, error) {
	if (ra == nil) == (nra == nil) {
		return authorizationv1.SubjectAccessReviewStatus{}, apierrors.NewInvalid(schema.GroupKind{Group: authorizationv1.GroupName, Kind: kind}, "",
			field.ErrorList{field.Invalid(field.NewPath("spec", "resourceAttributes"), ra, "exactly one of nonResourceAttributes or resourceAttributes must be specified")})
	}
	a := auth.Attributes{User: u}
	if ra != nil {
		a.IsResourceRequest = true
		a.Verb, a.APIGroup, a.APIVersion, a.Namespace = ra.Verb, ra.Group, ra.Version, ra.Namespace
		a.Resource, a.Subresource, a.Name = ra.Resource, ra.Subresource, ra.Name
	} else {
		a.Verb, a.Path = nra.Verb, nra.Path
	}
	d, reason, err := s.sec.authorizer.Authorize(ctx, a)
	st := authorizationv1.SubjectAccessReviewStatus{Allowed: d == auth.DecisionAllow, Denied: d == auth.DecisionDeny, Reason: reason}
	if err != nil {
		st.EvaluationError = err.Error()
	}
	if st.Allowed && st.Reason == "" && s.rbacAuthorizer != nil && !u.InGroup(auth.SystemPrivilegedGroup) {
		st.Reason = "RBAC: allowed"
	}
	return st, nil
}

// rulesReview lists what u may do in namespace: RBAC's rules (for
// system:masters, everything).
func (s *Server) rulesReview(u *auth.User, namespace string) authorizationv1.SubjectRulesReviewStatus {
	st := authorizationv1.SubjectRulesReviewStatus{ResourceRules: []authorizationv1.ResourceRule{}, NonResourceRules: []authorizationv1.NonResourceRule{}}
	if s.cfg.AuthorizationMode == AuthorizationAlwaysAllow || u.InGroup(auth.SystemPrivilegedGroup) {
		st.ResourceRules = append(st.ResourceRules, authorizationv1.ResourceRule{Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"*"}})
		st.NonResourceRules = append(st.NonResourceRules, authorizationv1.NonResourceRule{Verbs: []string{"*"}, NonResourceURLs: []string{"*"}})
		if s.cfg.AuthorizationMode == AuthorizationAlwaysAllow {
			return st
		}
	}
	if s.rbacAuthorizer == nil {
		return st
	}
	for _, r := range s.rbacAuthorizer.RulesFor(u, namespace) {
		if len(r.NonResourceURLs) > 0 {
			st.NonResourceRules = append(st.NonResourceRules, authorizationv1.NonResourceRule{Verbs: r.Verbs, NonResourceURLs: r.NonResourceURLs})
			continue
		}
		st.ResourceRules = append(st.ResourceRules, authorizationv1.ResourceRule{Verbs: r.Verbs, APIGroups: r.APIGroups, Resources: r.Resources, ResourceNames: r.ResourceNames})
	}
	return st
}

func (s *Server) requestToken(ctx context.Context, ns, name string, in *authenticationv1.TokenRequest) (*authenticationv1.TokenRequest, error) {
	gk := schema.GroupKind{Group: authenticationv1.GroupName, Kind: "TokenRequest"}
	if in.Name != "" && in.Name != name {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("the name of the object (%s) does not match the name on the URL (%s)", in.Name, name))
	}
	if in.Spec.ExpirationSeconds == nil {
		d := int64(defaultTokenSeconds)
		in.Spec.ExpirationSeconds = &d
	}
	var errs field.ErrorList
	p := field.NewPath("spec", "expirationSeconds")
	switch exp := *in.Spec.ExpirationSeconds; {
	case exp < minTokenSeconds:
		errs = append(errs, field.Invalid(p, exp, "may not specify a duration less than 10 minutes"))
	case exp > maxTokenSeconds:
		errs = append(errs, field.TooLong(p, exp, maxTokenSeconds))
	}
	if in.Spec.BoundObjectRef != nil {
		errs = append(errs, field.NotSupported(field.NewPath("spec", "boundObjectRef", "kind"), in.Spec.BoundObjectRef.Kind, []string{}))
	}
	if len(errs) > 0 {
		return nil, apierrors.NewInvalid(gk, name, errs)
	}
	sa, err := s.serviceAccounts.Get(ctx, ns, name, storage.GetOptions{})
	if err != nil {
		return nil, err
	}
	if sa.DeletionTimestamp != nil {
		return nil, apierrors.NewNotFound(schema.GroupResource{Resource: "serviceaccounts"}, name)
	}
	token, expires, err := s.sec.tokens.Issue(sa, in.Spec.Audiences, time.Duration(*in.Spec.ExpirationSeconds)*time.Second)
	if err != nil {
		return nil, err
	}
	if len(in.Spec.Audiences) == 0 {
		in.Spec.Audiences = s.sec.tokens.APIAudiences()
	}
	in.Name, in.Namespace = sa.Name, sa.Namespace
	in.CreationTimestamp = metav1.Time{}
	in.Status = authenticationv1.TokenRequestStatus{Token: token, ExpirationTimestamp: metav1.NewTime(expires)}
	return in, nil
}
