// Package celeval feeds admission attributes to Kubernetes' admission CEL
// library (k8s.io/apiserver/pkg/admission/plugin/cel, the code
// kube-apiserver evaluates ValidatingAdmissionPolicy expressions and
// webhook matchConditions with): the environment, and the versioned
// attributes and AdmissionRequest its evaluators take.
package celeval

import (
	"sync"

	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	apiadmission "k8s.io/apiserver/pkg/admission"
	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/cel/environment"

	"github.com/kubeforge/kubeforge/runtime/admission"
	"github.com/kubeforge/kubeforge/runtime/admission/match"
)

var (
	baseOnce sync.Once
	base     *environment.EnvSet
)

// EnvSet is the base CEL environment of this Kubernetes version, built
// once (it costs milliseconds).
func EnvSet() *environment.EnvSet {
	baseOnce.Do(func() { base = environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion()) })
	return base
}

// NewCompiler returns a compiler for one policy or one webhook: it keeps
// that policy's variables.
func NewCompiler() (*plugincel.CompositedCompiler, error) {
	return plugincel.NewCompositedCompiler(EnvSet())
}

// Input is the versioned attributes and the AdmissionRequest of a write
// matched as m; va holds the objects converted to m's kind.
func Input(a, va *admission.Attributes, m match.Matched) (*apiadmission.VersionedAttributes, *admissionv1.AdmissionRequest) {
	var u user.Info
	if a.User != nil {
		u = &user.DefaultInfo{Name: a.User.Name, UID: a.User.UID, Groups: a.User.Groups, Extra: a.User.Extra}
	} else {
		u = &user.DefaultInfo{}
	}
	rec := apiadmission.NewAttributesRecord(a.Object, a.OldObject, a.Kind, a.Namespace, a.Name, a.Resource, a.Subresource,
		apiadmission.Operation(a.Operation), a.Options, a.DryRun, u)
	vattr := &apiadmission.VersionedAttributes{
		Attributes:    rec,
		VersionedKind: m.Kind,
	}
	if va.Object != nil {
		vattr.VersionedObject = apiadmission.NewLazyObject(va.Object)
	}
	if va.OldObject != nil {
		vattr.VersionedOldObject = apiadmission.NewLazyObject(va.OldObject)
	}
	req := plugincel.CreateAdmissionRequest(rec,
		metav1.GroupVersionResource{Group: m.Resource.Group, Version: m.Resource.Version, Resource: m.Resource.Resource},
		metav1.GroupVersionKind{Group: m.Kind.Group, Version: m.Kind.Version, Kind: m.Kind.Kind})
	return vattr, req
}
