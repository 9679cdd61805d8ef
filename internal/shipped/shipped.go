// Package shipped lists the group-versions the generated tree serves and
// the Go types they register, for the tests that must cover every one
// (the JSON decoder's and encoder's parity tests, the field manager's
// differential tests). A group-version added to generated/ and not here
// fails Types, so none escapes those tests silently.
package shipped

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubeforge/kubeforge/generated"
	admissionregistrationv1 "github.com/kubeforge/kubeforge/generated/admissionregistration/v1"
	coordinationv1 "github.com/kubeforge/kubeforge/generated/coordination/v1"
	corev1 "github.com/kubeforge/kubeforge/generated/core/v1"
	eventsv1 "github.com/kubeforge/kubeforge/generated/events/v1"
	infrav1 "github.com/kubeforge/kubeforge/generated/infra/v1"
	rbacv1 "github.com/kubeforge/kubeforge/generated/rbac/v1"
	shippingv1 "github.com/kubeforge/kubeforge/generated/shipping/v1"
	shippingv1alpha1 "github.com/kubeforge/kubeforge/generated/shipping/v1alpha1"
	"github.com/kubeforge/kubeforge/runtime/fieldmanager"
	"github.com/kubeforge/kubeforge/runtime/resource"
)

// GroupVersion is one generated group-version: its resource table,
// OpenAPI schemas, scheme registration and conversions (nil when it
// converts to no other version).
type GroupVersion struct {
	GV          schema.GroupVersion
	Resources   []*resource.Info
	Schemas     func() map[string]json.RawMessage
	AddToScheme func(*runtime.Scheme) error
	Conversions func() []fieldmanager.Conversion
}

// GroupVersions are every generated group-version, over types/ and the
// k8s.io/api packages types/doc.go serves.
var GroupVersions = []GroupVersion{
	{admissionregistrationv1.SchemeGroupVersion, admissionregistrationv1.Resources, admissionregistrationv1.OpenAPISchemas, admissionregistrationv1.AddToScheme, nil},
	{coordinationv1.SchemeGroupVersion, coordinationv1.Resources, coordinationv1.OpenAPISchemas, coordinationv1.AddToScheme, nil},
	{corev1.SchemeGroupVersion, corev1.Resources, corev1.OpenAPISchemas, corev1.AddToScheme, nil},
	{eventsv1.SchemeGroupVersion, eventsv1.Resources, eventsv1.OpenAPISchemas, eventsv1.AddToScheme, eventsv1.Conversions},
	{infrav1.SchemeGroupVersion, infrav1.Resources, infrav1.OpenAPISchemas, infrav1.AddToScheme, nil},
	{rbacv1.SchemeGroupVersion, rbacv1.Resources, rbacv1.OpenAPISchemas, rbacv1.AddToScheme, nil},
	{shippingv1.SchemeGroupVersion, shippingv1.Resources, shippingv1.OpenAPISchemas, shippingv1.AddToScheme, nil},
	{shippingv1alpha1.SchemeGroupVersion, shippingv1alpha1.Resources, shippingv1alpha1.OpenAPISchemas, shippingv1alpha1.AddToScheme, shippingv1alpha1.Conversions},
}

// Type is one Go type a shipped group-version's scheme knows: its kinds,
// lists and the option types (DeleteOptions, ...) a request body decodes
// into.
type Type struct {
	Name string // group/version, Kind
	Type reflect.Type
	// Stored: a kind the apiserver stores (a row of a resource table, not
	// a list or an option type).
	Stored bool
}

// Types returns every type generated.AddToScheme registers, by name; an
// error when a registered group-version is missing from GroupVersions.
func Types() ([]Type, error) {
	scheme := runtime.NewScheme()
	if err := generated.AddToScheme(scheme); err != nil {
		return nil, fmt.Errorf("register the shipped types: %w", err)
	}
	stored := map[schema.GroupVersion]map[string]bool{}
	for _, g := range GroupVersions {
		stored[g.GV] = map[string]bool{}
		for _, i := range g.Resources {
			if gv := (schema.GroupVersion{Group: i.Group, Version: i.Version}); gv != g.GV {
				return nil, fmt.Errorf("list the shipped types: resource %s is of %v, listed under %v", i.Plural, gv, g.GV)
			}
			stored[g.GV][i.Kind] = true
		}
	}
	var out []Type
	for gvk, typ := range scheme.AllKnownTypes() {
		if gvk.Version == runtime.APIVersionInternal {
			continue // apimachinery's internal watch event: never JSON
		}
		kinds, ok := stored[gvk.GroupVersion()]
		if !ok {
			return nil, fmt.Errorf("list the shipped types: %v is registered by generated.AddToScheme but missing from shipped.GroupVersions", gvk.GroupVersion())
		}
		out = append(out, Type{Name: gvk.GroupVersion().String() + ", " + gvk.Kind, Type: typ, Stored: kinds[gvk.Kind]})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	if len(out) < 50 {
		return nil, fmt.Errorf("list the shipped types: %d found, want every kind, list and option type of %d group-versions", len(out), len(GroupVersions))
	}
	return out, nil
}
