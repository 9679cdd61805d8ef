package delegate

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeforge/kubeforge/runtime/auth"
)

// AlwaysAllowPaths are allowed to everyone without asking the cluster, as
// in kube's delegated authorization: the aggregator and kubelet probe them.
var AlwaysAllowPaths = []string{"/healthz", "/livez", "/readyz"}

// Reviews asks the cluster's SubjectAccessReview (kube's webhook
// authorizer in delegated mode): the cluster's RBAC decides.
type Reviews struct {
	c                     *Cluster
	allowedTTL, deniedTTL time.Duration
	cache                 *ttlCache[answer]
}

type answer struct {
	d      auth.Decision
	reason string
}

// Reviews returns the authorizer; an allowed answer is remembered for
// allowedTTL, any other for deniedTTL.
func (c *Cluster) Reviews(allowedTTL, deniedTTL time.Duration) *Reviews {
	return &Reviews{c: c, allowedTTL: allowedTTL, deniedTTL: deniedTTL, cache: newTTLCache[answer](10000)}
}

// Authorize implements auth.Authorizer.
func (r *Reviews) Authorize(ctx context.Context, a auth.Attributes) (auth.Decision, string, error) {
	if !a.IsResourceRequest {
		for _, p := range AlwaysAllowPaths {
			if a.Path == p {
				return auth.DecisionAllow, "", nil
			}
		}
	}
	spec := reviewSpec(a)
	k, err := json.Marshal(spec)
	if err != nil {
		return auth.DecisionNoOpinion, "", fmt.Errorf("subject access review: %w", err)
	}
	key := string(k)
	if ans, ok := r.cache.get(key); ok {
		return ans.d, ans.reason, nil
	}
	sar := &authorizationv1.SubjectAccessReview{
		TypeMeta: metav1.TypeMeta{APIVersion: "authorization.k8s.io/v1", Kind: "SubjectAccessReview"},
		Spec:     spec,
	}
	if err := r.c.do(ctx, http.MethodPost, "/apis/authorization.k8s.io/v1/subjectaccessreviews", nil, sar, sar); err != nil {
		return auth.DecisionNoOpinion, "", fmt.Errorf("subject access review: %w", err)
	}
	ans := answer{d: auth.DecisionNoOpinion, reason: sar.Status.Reason}
	switch {
	case sar.Status.Allowed:
		ans.d = auth.DecisionAllow
		r.cache.put(key, ans, r.allowedTTL)
	case sar.Status.Denied:
		ans.d = auth.DecisionDeny
		r.cache.put(key, ans, r.deniedTTL)
	default:
		if sar.Status.EvaluationError != "" && ans.reason == "" {
			ans.reason = sar.Status.EvaluationError
		}
		r.cache.put(key, ans, r.deniedTTL)
	}
	return ans.d, ans.reason, nil
}

// reviewSpec is the SubjectAccessReview of a request.
func reviewSpec(a auth.Attributes) authorizationv1.SubjectAccessReviewSpec {
	var spec authorizationv1.SubjectAccessReviewSpec
	if a.User != nil {
		spec.User, spec.UID, spec.Groups = a.User.Name, a.User.UID, a.User.Groups
		for k, v := range a.User.Extra {
			if spec.Extra == nil {
				spec.Extra = map[string]authorizationv1.ExtraValue{}
			}
			spec.Extra[k] = v
		}
	}
	if a.IsResourceRequest {
		spec.ResourceAttributes = &authorizationv1.ResourceAttributes{
			Namespace: a.Namespace, Verb: a.Verb, Group: a.APIGroup, Version: a.APIVersion,
			Resource: a.Resource, Subresource: a.Subresource, Name: a.Name,
		}
	} else {
		spec.NonResourceAttributes = &authorizationv1.NonResourceAttributes{Path: a.Path, Verb: a.Verb}
	}
	return spec
}
