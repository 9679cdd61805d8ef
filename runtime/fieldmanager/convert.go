package fieldmanager

import (
	"fmt"
	"reflect"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubeforge/kubeforge/runtime/presence"
)

// Conversion converts one served version of a kind (a spoke) to and from
// the kind's hub, its storage version, which may be in another group
// (events.k8s.io/v1 Event is stored as core/v1 Event). The conversion
// generator writes one per spoke kind (Conversions in
// generated/<group>/<version>); build it with NewConversion.
type Conversion struct {
	// GVK is the spoke; Hub the storage version of the kind.
	GVK, Hub schema.GroupVersionKind
	// New and NewHub return empty objects of the spoke and the hub.
	New, NewHub func() runtime.Object
	// ToHub converts a spoke object to the hub, FromHub a hub object to
	// the spoke; neither modifies its argument.
	ToHub, FromHub func(runtime.Object) (runtime.Object, error)
}

// NewConversion types the conversion of spoke S of a kind with hub H:
// newSpoke and newHub return empty objects, toHub and fromHub are the
// generated <Kind>ToHub and <Kind>FromHub.
func NewConversion[S, H runtime.Object](gvk, hub schema.GroupVersionKind, newSpoke func() S, newHub func() H, toHub func(S) (H, error), fromHub func(H) (S, error)) Conversion {
	return Conversion{
		GVK:    gvk,
		Hub:    hub,
		New:    func() runtime.Object { return newSpoke() },
		NewHub: func() runtime.Object { return newHub() },
		ToHub: func(in runtime.Object) (runtime.Object, error) {
			s, ok := in.(S)
			if !ok {
				return nil, fmt.Errorf("convert %s to %s: got a %T", gvk, hub, in)
			}
			return toHub(s)
		},
		FromHub: func(in runtime.Object) (runtime.Object, error) {
			h, ok := in.(H)
			if !ok {
				return nil, fmt.Errorf("convert %s to %s: got a %T", hub, gvk, in)
			}
			return fromHub(h)
		},
	}
}

// version is one version of a kind the field managers convert: the hub
// (toHub and fromHub nil) or a spoke of hub.
type version struct {
	gvk, hub       schema.GroupVersionKind
	new            func() runtime.Object
	typ            reflect.Type // of new's objects
	toHub, fromHub func(runtime.Object) (runtime.Object, error)
}

func (v *version) isHub() bool { return v.gvk == v.hub }

// AddConversion adds the conversion of a served version of a kind to and
// from its hub (a generated Conversions), so that managedFields entries
// written through one version are kept, and conflict, on writes through
// another. Add every conversion before the first FieldManager call.
func (r *Registry) AddConversion(c Conversion) error {
	switch {
	case c.GVK.Kind == "" || c.GVK.Version == "" || c.Hub.Kind == "" || c.Hub.Version == "":
		return fmt.Errorf("add conversion of %s to %s: spoke and hub need a version and a kind", c.GVK, c.Hub)
	case c.GVK == c.Hub:
		return fmt.Errorf("add conversion of %s: it is its own hub", c.GVK)
	case c.New == nil || c.NewHub == nil || c.ToHub == nil || c.FromHub == nil:
		return fmt.Errorf("add conversion of %s to %s: New, NewHub, ToHub and FromHub are required", c.GVK, c.Hub)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if v, ok := r.versions[c.GVK]; ok {
		if v.isHub() {
			return fmt.Errorf("add conversion of %s to %s: %s is already the hub of other versions", c.GVK, c.Hub, c.GVK)
		}
		return fmt.Errorf("add conversion of %s to %s: already added (to %s)", c.GVK, c.Hub, v.hub)
	}
	if h, ok := r.versions[c.Hub]; ok && !h.isHub() {
		return fmt.Errorf("add conversion of %s to %s: %s is itself converted to %s", c.GVK, c.Hub, c.Hub, h.hub)
	}
	if _, ok := r.versions[c.Hub]; !ok {
		r.versions[c.Hub] = &version{gvk: c.Hub, hub: c.Hub, new: c.NewHub, typ: reflect.TypeOf(c.NewHub())}
	}
	r.versions[c.GVK] = &version{gvk: c.GVK, hub: c.Hub, new: c.New, typ: reflect.TypeOf(c.New()), toHub: c.ToHub, fromHub: c.FromHub}
	return nil
}

// family returns every version of k's kind that converts (its hub and the
// hub's spokes), k's own version always included with k.New. Callers hold
// r.mu.
func (r *Registry) family(k Kind) map[schema.GroupVersionKind]*version {
	own := &version{gvk: k.GVK, hub: k.GVK, new: k.New, typ: reflect.TypeOf(k.New())}
	hub := k.GVK
	if v, ok := r.versions[k.GVK]; ok {
		hub = v.hub
		own.hub, own.toHub, own.fromHub = v.hub, v.toHub, v.fromHub
	}
	out := map[schema.GroupVersionKind]*version{k.GVK: own}
	for gvk, v := range r.versions {
		if gvk != k.GVK && v.hub == hub {
			out[gvk] = v
		}
	}
	return out
}

// kindConvertor is the runtime.ObjectConvertor, ObjectCreater and
// ObjectDefaulter of one kind's field manager. It converts, typed or
// unstructured, between any two versions of the kind's family (through
// the hub), which the field manager does to compare objects in the version
// of each managedFields entry; a version outside the family is not
// registered, and the field manager drops entries of such versions.
type kindConvertor struct {
	kind     Kind
	versions map[schema.GroupVersionKind]*version
	kinds    []schema.GroupVersionKind // of versions
	typ      reflect.Type              // of kind.New's objects
	// alwaysCopy: convert to the same version by a deep copy too, as
	// runtime.Scheme does (for tests that compare the two).
	alwaysCopy bool
}

var (
	_ runtime.ObjectConvertor = (*kindConvertor)(nil)
	_ runtime.ObjectCreater   = (*kindConvertor)(nil)
	_ runtime.ObjectDefaulter = (*kindConvertor)(nil)
)

// newKindConvertor is the convertor of kind k over the versions of its
// family.
func newKindConvertor(k Kind, versions map[schema.GroupVersionKind]*version, alwaysCopy bool) *kindConvertor {
	c := &kindConvertor{kind: k, versions: versions, typ: reflect.TypeOf(k.New()), alwaysCopy: alwaysCopy}
	for gvk := range versions {
		c.kinds = append(c.kinds, gvk)
	}
	return c
}

func (c *kindConvertor) sameType(obj runtime.Object) bool {
	return reflect.TypeOf(obj) == c.typ
}

func (c *kindConvertor) notRegistered(gvk schema.GroupVersionKind) error {
	return runtime.NewNotRegisteredErrForKind("field manager of "+c.kind.GVK.String(), gvk)
}

// New implements runtime.ObjectCreater.
func (c *kindConvertor) New(gvk schema.GroupVersionKind) (runtime.Object, error) {
	v, ok := c.versions[gvk]
	if !ok {
		return nil, c.notRegistered(gvk)
	}
	obj := v.new()
	obj.GetObjectKind().SetGroupVersionKind(gvk)
	return obj, nil
}

// Default implements runtime.ObjectDefaulter. The field manager defaults
// only the result of an apply, right after converting it from its
// unstructured form, where typed already applied the defaults: with the
// keys that form holds, as kube-apiserver defaults a custom resource's
// unstructured object (an explicit zero the apply set stays).
func (c *kindConvertor) Default(runtime.Object) {}

// Convert implements runtime.ObjectConvertor; the field manager does not
// use it.
func (c *kindConvertor) Convert(in, out, context any) error {
	return fmt.Errorf("field manager of %s: convert %T to %T: only ConvertToVersion is supported", c.kind.GVK, in, out)
}

// ConvertFieldLabel implements runtime.ObjectConvertor; the field manager
// does not use it.
func (c *kindConvertor) ConvertFieldLabel(gvk schema.GroupVersionKind, label, value string) (string, string, error) {
	return "", "", fmt.Errorf("field manager of %s: field label %q of %s is not supported", c.kind.GVK, label, gvk)
}

// typed returns in as the Go type of its version, with its version.
func (c *kindConvertor) typed(in runtime.Object) (runtime.Object, *version, error) {
	if u, ok := in.(*unstructured.Unstructured); ok {
		gvk := u.GroupVersionKind()
		v, ok := c.versions[gvk]
		if !ok {
			return nil, nil, c.notRegistered(gvk)
		}
		obj := v.new()
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.UnstructuredContent(), obj); err != nil {
			return nil, nil, fmt.Errorf("convert %s to its Go type: %w", gvk, err)
		}
		obj.GetObjectKind().SetGroupVersionKind(gvk)
		if gvk == c.kind.GVK && c.kind.Default != nil {
			c.kind.Default(obj, presence.Unstructured(u.UnstructuredContent()))
		}
		return obj, v, nil
	}
	gvk := in.GetObjectKind().GroupVersionKind()
	if gvk.Empty() && c.sameType(in) {
		gvk = c.kind.GVK
	}
	v, ok := c.versions[gvk]
	if !ok {
		return nil, nil, c.notRegistered(gvk)
	}
	if reflect.TypeOf(in) != v.typ {
		return nil, nil, fmt.Errorf("field manager of %s: a %T says it is %s", c.kind.GVK, in, gvk)
	}
	return in, v, nil
}

// ConvertToVersion implements runtime.ObjectConvertor: in (typed or
// unstructured, of any version of the family) becomes a new object of the
// Go type of the target version, converted through the hub.
func (c *kindConvertor) ConvertToVersion(in runtime.Object, target runtime.GroupVersioner) (runtime.Object, error) {
	obj, from, err := c.typed(in)
	if err != nil {
		return nil, err
	}
	want, ok := target.KindForGroupVersionKinds(c.kinds)
	if !ok {
		return nil, runtime.NewNotRegisteredGVKErrForTarget("field manager of "+c.kind.GVK.String(), from.gvk, target)
	}
	to, ok := c.versions[want]
	if !ok {
		return nil, c.notRegistered(want)
	}
	var out runtime.Object
	switch {
	case to == from && obj == in && !c.alwaysCopy && in.GetObjectKind().GroupVersionKind() == want:
		// The field manager only reads what it converts to its own
		// version (to typed values, and the result of an apply, which it
		// made itself), so the object is given back as it is: a deep copy
		// of the live and the new object per write was all this cost.
		return in, nil
	case to == from:
		if obj == in {
			obj = obj.DeepCopyObject()
		}
		out = obj
	default:
		hub := obj
		if !from.isHub() {
			if hub, err = from.toHub(obj); err != nil {
				return nil, fmt.Errorf("convert %s to %s: %w", from.gvk, from.hub, err)
			}
		}
		if to.isHub() {
			out = hub
		} else if out, err = to.fromHub(hub); err != nil {
			return nil, fmt.Errorf("convert %s to %s: %w", to.hub, to.gvk, err)
		}
	}
	out.GetObjectKind().SetGroupVersionKind(want)
	return out, nil
}
