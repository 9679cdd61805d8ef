package fieldmanager

import (
	"bytes"
	"fmt"
	"reflect"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	"sigs.k8s.io/structured-merge-diff/v6/typed"

	"github.com/kubeforge/kubeforge/runtime/jsonencode"
)

// CopyingFieldManager is the field manager of k for subresource, built as
// FieldManager builds it but with a convertor that deep-copies every object
// it converts to the same version, as runtime.Scheme's does.
func CopyingFieldManager(r *Registry, k Kind, subresource string) (*FieldManager, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.build(k, subresource, true)
}

// Proven reports whether k's Go type was proven to fit its schema, so
// that its field manager skips validation where that changes nothing.
func Proven(r *Registry, k Kind) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.tc != nil && r.tc.forKind(k.GVK, k.New()).proven != nil
}

// ReferenceFieldManager is the field manager of k for subresource as
// kube-apiserver builds it: managedfields.NewTypeConverter's converter,
// which validates every object, and a convertor that copies.
func ReferenceFieldManager(r *Registry, k Kind, subresource string) (*FieldManager, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	tc, err := managedfields.NewTypeConverter(r.schemas, false)
	if err != nil {
		return nil, err
	}
	return r.buildWith(k, subresource, true, tc)
}

// KindTypeConverter is the type converter FieldManager gives k's field
// manager.
func KindTypeConverter(r *Registry, k Kind) managedfields.TypeConverter {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.tc.forKind(k.GVK, k.New())
}

// CreateSets is what the create path of k's field manager makes of a
// write of obj over live, unfiltered (followed false when it leaves the
// write to apimachinery), and what structured-merge-diff's Compare of the
// two typed objects reports as added or modified (err its error); each
// as a set and as the set's JSON.
func CreateSets(r *Registry, k Kind, live, obj runtime.Object) (got, want SetJSON, followed bool, err error) {
	r.mu.Lock()
	tc := r.tc.forKind(k.GVK, k.New())
	r.mu.Unlock()
	c := newCreatePath(tc, "", nil)
	if c == nil {
		return got, want, false, fmt.Errorf("%s: no create path", k.GVK)
	}
	tree := newFieldsTree(nil, nil)
	if cerr := createFields(tree, c.root, reflect.ValueOf(live), reflect.ValueOf(obj), false); cerr == nil {
		followed = true
		if got.JSON, err = tree.appendJSON(nil); err != nil {
			return got, want, followed, fmt.Errorf("the tree's JSON: %w", err)
		}
		got.Set = &fieldpath.Set{}
		if err := got.Set.FromJSON(bytes.NewReader(got.JSON)); err != nil {
			return got, want, followed, fmt.Errorf("the tree's JSON %s: %w", got.JSON, err)
		}
	}
	lt, err := tc.ObjectToTyped(live, typed.AllowDuplicates)
	if err != nil {
		return got, want, followed, err
	}
	nt, err := tc.ObjectToTyped(obj, typed.AllowDuplicates)
	if err != nil {
		return got, want, followed, err
	}
	cmp, err := lt.Compare(nt)
	if err != nil {
		return got, want, followed, err
	}
	want.Set = cmp.Added.Union(cmp.Modified)
	if want.JSON, err = want.Set.ToJSON(); err != nil {
		return got, want, followed, err
	}
	return got, want, followed, nil
}

// SetJSON is a set and its FieldsV1 JSON.
type SetJSON struct {
	Set  *fieldpath.Set
	JSON []byte
}

// FollowsCreate: the create path records a write of obj over live
// itself.
func FollowsCreate(fm *FieldManager, live, obj runtime.Object) bool {
	_, ok := fm.create.track(live.DeepCopyObject(), obj.DeepCopyObject(), "probe")
	return ok
}

// Comparisons is what the update path's walk makes of live and obj
// (followed false when it leaves the write to apimachinery), and
// structured-merge-diff's Compare of the two typed objects (err its
// error).
func Comparisons(r *Registry, k Kind, live, obj runtime.Object) (got [3]*fieldpath.Set, followed bool, want [3]*fieldpath.Set, err error) {
	r.mu.Lock()
	tc := r.tc.forKind(k.GVK, k.New())
	r.mu.Unlock()
	c := newCreatePath(tc, "", nil)
	if c == nil {
		return got, false, want, fmt.Errorf("%s: no create path", k.GVK)
	}
	a, m, rm, cerr := comparison(c.root, reflect.ValueOf(live), reflect.ValueOf(obj))
	got = [3]*fieldpath.Set{a, m, rm}
	lt, err := tc.ObjectToTyped(live, typed.AllowDuplicates)
	if err != nil {
		return got, cerr == nil, want, err
	}
	nt, err := tc.ObjectToTyped(obj, typed.AllowDuplicates)
	if err != nil {
		return got, cerr == nil, want, err
	}
	cmp, err := lt.Compare(nt)
	if err != nil {
		return got, cerr == nil, want, err
	}
	return got, cerr == nil, [3]*fieldpath.Set{cmp.Added, cmp.Modified, cmp.Removed}, nil
}

// FollowsUpdate: the update path records a write of obj over live by
// manager itself.
func FollowsUpdate(fm *FieldManager, live, obj runtime.Object, manager string) bool {
	_, ok := fm.update.track(live.DeepCopyObject(), obj.DeepCopyObject(), manager)
	return ok
}

// UnprovenFieldManager is the field manager of k for subresource built as
// for a kind whose Go type was not proven to fit its schema: no create
// or update path of its own.
func UnprovenFieldManager(r *Registry, k Kind, subresource string) (*FieldManager, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	cr := jsonencode.IsCustomResource(reflect.TypeOf(k.New()).Elem())
	return r.buildWith(k, subresource, false, &kindTypeConverter{types: r.tc, cr: cr})
}

// HasCustomCreate reports whether fm records a user kind's creates
// through customCreate.
func HasCustomCreate(fm *FieldManager) bool { return fm.custom != nil }
