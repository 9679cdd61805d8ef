// Package match decides which admission configurations apply to a write,
// as kube-apiserver decides it: rules (operations, API groups, versions,
// resources with subresources, scope), matchPolicy Equivalent (a write
// through one version matches a rule naming another served version of the
// same resource, and the object is converted to it), namespaceSelector
// and objectSelector.
package match

import (
	"fmt"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubeforge/kubeforge/runtime/admission"
)

// Version is one served version of a resource.
type Version struct {
	Resource   schema.GroupVersionResource
	Kind       schema.GroupVersionKind
	Namespaced bool
}

// Env is what matching needs from the server: its resources, their
// conversions and its namespaces (all from memory).
type Env struct {
	// Versions lists the served versions of a group-resource, preferred
	// first.
	Versions func(gr schema.GroupResource) []Version
	// Convert converts obj to the kind to (a version of the same kind).
	Convert func(obj runtime.Object, to schema.GroupVersionKind) (runtime.Object, error)
	// Namespace returns a namespace, if it exists.
	Namespace func(name string) (*corev1.Namespace, bool)
}

// Matched is the resource a configuration matched a write as: the
// request's own, or an equivalent version under matchPolicy Equivalent.
type Matched struct {
	Resource schema.GroupVersionResource
	Kind     schema.GroupVersionKind
}

// Rules reports whether a write matches rules (and none of exclude), and
// as which resource. policy nil or Equivalent tries the other served
// versions when the request's does not match.
func (e *Env) Rules(a *admission.Attributes, rules, exclude []admissionregistrationv1.RuleWithOperations, policy *admissionregistrationv1.MatchPolicyType) (Matched, bool) {
	own := Matched{Resource: a.Resource, Kind: a.Kind}
	namespaced := a.Namespace != ""
	if vs := e.versions(a.Resource.GroupResource()); len(vs) > 0 {
		for _, v := range vs {
			if v.Resource == a.Resource {
				namespaced = v.Namespaced
			}
		}
	}
	matches := func(gvr schema.GroupVersionResource) bool {
		return anyRule(rules, a, gvr, namespaced) && !anyRule(exclude, a, gvr, namespaced)
	}
	if matches(a.Resource) {
		return own, true
	}
	if policy != nil && *policy == admissionregistrationv1.Exact {
		return Matched{}, false
	}
	for _, v := range e.versions(a.Resource.GroupResource()) {
		if v.Resource == a.Resource || !matches(v.Resource) {
			continue
		}
		m := Matched{Resource: v.Resource, Kind: v.Kind}
		if a.Subresource == "scale" || a.Subresource != "" && a.Kind.Group != a.Resource.Group {
			m.Kind = a.Kind // a Scale is the same whatever the version
		}
		return m, true
	}
	return Matched{}, false
}

func (e *Env) versions(gr schema.GroupResource) []Version {
	if e.Versions == nil {
		return nil
	}
	return e.Versions(gr)
}

func anyRule(rules []admissionregistrationv1.RuleWithOperations, a *admission.Attributes, gvr schema.GroupVersionResource, namespaced bool) bool {
	for i := range rules {
		if ruleMatches(&rules[i], a, gvr, namespaced) {
			return true
		}
	}
	return false
}

func ruleMatches(r *admissionregistrationv1.RuleWithOperations, a *admission.Attributes, gvr schema.GroupVersionResource, namespaced bool) bool {
	opOK := false
	for _, op := range r.Operations {
		if op == admissionregistrationv1.OperationAll || string(op) == string(a.Operation) {
			opOK = true
			break
		}
	}
	if !opOK || !oneOf(r.APIGroups, gvr.Group) || !oneOf(r.APIVersions, gvr.Version) {
		return false
	}
	if !resourceMatches(r.Resources, gvr.Resource, a.Subresource) {
		return false
	}
	scope := admissionregistrationv1.AllScopes
	if r.Scope != nil {
		scope = *r.Scope
	}
	switch scope {
	case admissionregistrationv1.ClusterScope:
		return !namespaced
	case admissionregistrationv1.NamespacedScope:
		return namespaced
	}
	return true
}

func oneOf(list []string, v string) bool {
	for _, s := range list {
		if s == "*" || s == v {
			return true
		}
	}
	return false
}

// resourceMatches is kube's rule resource match: "*" is every resource
// without subresource, "*/*" everything, "r/*" every subresource of r,
// "*/s" subresource s of every resource.
func resourceMatches(list []string, resource, sub string) bool {
	for _, s := range list {
		res, subres, hasSub := strings.Cut(s, "/")
		switch {
		case s == "*/*":
			return true
		case !hasSub:
			if sub == "" && (res == "*" || res == resource) {
				return true
			}
		default:
			if (res == "*" || res == resource) && (subres == "*" || subres == sub) {
				return true
			}
		}
	}
	return false
}

// Selectors reports whether a write matches a namespaceSelector and an
// objectSelector (nil selectors match everything). An unknown namespace
// matches only an empty namespaceSelector.
func (e *Env) Selectors(a *admission.Attributes, nsSel, objSel *metav1.LabelSelector) (bool, error) {
	ok, err := e.namespaceMatches(a, nsSel)
	if err != nil || !ok {
		return false, err
	}
	return objectMatches(a, objSel)
}

func (e *Env) namespaceMatches(a *admission.Attributes, sel *metav1.LabelSelector) (bool, error) {
	if sel == nil || len(sel.MatchLabels) == 0 && len(sel.MatchExpressions) == 0 {
		return true, nil
	}
	s, err := metav1.LabelSelectorAsSelector(sel)
	if err != nil {
		return false, fmt.Errorf("namespaceSelector: %w", err)
	}
	var nsLabels map[string]string
	switch {
	case a.Namespace != "":
		ns, ok := e.namespace(a.Namespace)
		if !ok {
			return false, nil
		}
		nsLabels = ns.Labels
	case a.Resource.Group == "" && a.Resource.Resource == "namespaces":
		// A namespace itself is matched on its own labels.
		nsLabels = objectLabels(a.Object)
		if nsLabels == nil {
			nsLabels = objectLabels(a.OldObject)
		}
	default:
		return true, nil // cluster-scoped: the namespace selector does not apply
	}
	return s.Matches(labels.Set(nsLabels)), nil
}

func (e *Env) namespace(name string) (*corev1.Namespace, bool) {
	if e.Namespace == nil {
		return nil, false
	}
	return e.Namespace(name)
}

// objectMatches: the object or the old object carries matching labels.
func objectMatches(a *admission.Attributes, sel *metav1.LabelSelector) (bool, error) {
	if sel == nil || len(sel.MatchLabels) == 0 && len(sel.MatchExpressions) == 0 {
		return true, nil
	}
	s, err := metav1.LabelSelectorAsSelector(sel)
	if err != nil {
		return false, fmt.Errorf("objectSelector: %w", err)
	}
	for _, o := range []runtime.Object{a.Object, a.OldObject} {
		if o != nil && s.Matches(labels.Set(objectLabels(o))) {
			return true, nil
		}
	}
	return false, nil
}

func objectLabels(o runtime.Object) map[string]string {
	if o == nil {
		return nil
	}
	m, err := meta.Accessor(o)
	if err != nil {
		return nil
	}
	return m.GetLabels()
}

// Versioned returns a copy of the attributes with the objects converted
// to the matched kind (the attributes themselves when nothing changes).
func (e *Env) Versioned(a *admission.Attributes, m Matched) (*admission.Attributes, error) {
	if m.Kind == a.Kind {
		return a, nil
	}
	if e.Convert == nil {
		return nil, fmt.Errorf("convert %s to %s: no conversions", a.Kind, m.Kind)
	}
	out := *a
	out.Kind, out.Resource = m.Kind, m.Resource
	var err error
	if a.Object != nil {
		if out.Object, err = e.Convert(a.Object, m.Kind); err != nil {
			return nil, fmt.Errorf("convert %s to %s: %w", a.Kind, m.Kind, err)
		}
	}
	if a.OldObject != nil {
		if out.OldObject, err = e.Convert(a.OldObject, m.Kind); err != nil {
			return nil, fmt.Errorf("convert the old %s to %s: %w", a.Kind, m.Kind, err)
		}
	}
	return &out, nil
}

// Exempt reports whether a write is of an admission configuration itself,
// which kube-apiserver never sends to webhooks or policies: a broken
// webhook matching everything must not lock its own configuration in.
func Exempt(a *admission.Attributes) bool {
	if a.Resource.Group != admissionregistrationv1.GroupName {
		return false
	}
	switch a.Resource.Resource {
	case "validatingwebhookconfigurations", "mutatingwebhookconfigurations",
		"validatingadmissionpolicies", "validatingadmissionpolicybindings",
		"mutatingadmissionpolicies", "mutatingadmissionpolicybindings":
		return true
	}
	return false
}
