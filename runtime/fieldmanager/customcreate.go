package fieldmanager

import (
	"fmt"
	"reflect"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	"sigs.k8s.io/structured-merge-diff/v6/typed"
)

// customCreate records the managedFields of a create of one of the user's
// kinds that createPath does not follow (a Go type not proven to fit its
// schema, such as Gateway API's HTTPRoute, whose atomic rules hold keyed
// lists). apimachinery's field manager compares the new object with the
// zero Go object, which already holds an empty spec, so the spec's own
// entry ("f:spec": {".": {}, ...}) was missing; kube-apiserver compares
// with the unstructured live object of a custom resource's create, which
// holds apiVersion and kind alone. This is that Compare, on the typed
// values structured-merge-diff builds (validated), then createPath's
// filters: the version's reset fields and the metadata no manager owns.
type customCreate struct {
	typ        reflect.Type
	gvk        schema.GroupVersionKind
	apiVersion string
	tc         *kindTypeConverter
	reset      fieldpath.Filter // nil when none
}

// newCustomCreate is the custom create path of a user's kind for the main
// resource, or nil.
func newCustomCreate(tc *kindTypeConverter, k Kind, subresource string, reset *fieldpath.Set) *customCreate {
	if tc == nil || !k.CustomResource || subresource != "" {
		return nil
	}
	// tc.gvk is set only for a proven kind: the kind's own GVK names the
	// schema.
	if _, ok := tc.types.types[k.GVK]; !ok {
		return nil
	}
	c := &customCreate{typ: reflect.TypeOf(k.New()), gvk: k.GVK, apiVersion: k.GVK.GroupVersion().String(), tc: tc}
	if reset != nil {
		c.reset = fieldpath.NewExcludeSetFilter(reset)
	}
	return c
}

// track records newObj's managedFields when the write is a create of the
// kind (ok); anything else, and any object Compare refuses, is left to
// apimachinery, which answers it with its own error.
func (c *customCreate) track(liveObj, newObj runtime.Object, manager string) (runtime.Object, bool) {
	if c == nil {
		return nil, false
	}
	obj, manager, ok := asCreate(c.typ, c.gvk, liveObj, newObj, manager)
	if !ok {
		return nil, false
	}
	set, err := c.fields(newObj)
	if err != nil {
		return nil, false
	}
	if set.Empty() {
		obj.SetManagedFields(nil)
		return newObj, true
	}
	raw, err := set.ToJSON()
	if err != nil {
		return nil, false
	}
	setCreateEntry(obj, manager, c.apiVersion, raw)
	return newObj, true
}

// fields is what Compare of the empty live object and obj reports as
// added or modified, filtered.
func (c *customCreate) fields(obj runtime.Object) (*fieldpath.Set, error) {
	var u map[string]any
	var err error
	if c.tc.cr {
		u, err = customResourceContent(obj)
	} else {
		u, err = runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	}
	if err != nil {
		return nil, fmt.Errorf("convert %s to unstructured: %w", c.gvk, err)
	}
	// As in the custom resource's JSON: a root object Go writes empty
	// (the status a create reset, an unset spec) is absent, as createPath
	// leaves it out.
	for k, v := range u {
		if m, ok := v.(map[string]any); ok && len(m) == 0 && k != "metadata" {
			delete(u, k)
		}
	}
	p := c.tc.types.types[c.gvk]
	newTV, err := p.FromUnstructured(u, typed.AllowDuplicates)
	if err != nil {
		return nil, fmt.Errorf("type %s: %w", c.gvk, err)
	}
	liveTV, err := p.FromUnstructured(map[string]any{"apiVersion": c.apiVersion, "kind": c.gvk.Kind}, typed.AllowDuplicates)
	if err != nil {
		return nil, fmt.Errorf("type the empty %s: %w", c.gvk, err)
	}
	cmp, err := liveTV.Compare(newTV)
	if err != nil {
		return nil, fmt.Errorf("compare %s: %w", c.gvk, err)
	}
	set := cmp.Added.Union(cmp.Modified)
	if c.reset != nil {
		set = c.reset.Filter(set)
	}
	return set.Difference(stripSet), nil
}
