package fieldmanager

import (
	"reflect"
	"time"
	"unicode/utf8"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
)

// FieldManager is the apimachinery field manager (Update records the
// fields a non-apply write changed, Apply merges an applied
// configuration), with the managedFields of a create (createPath) and
// of an update (updatePath) of a proven kind computed directly.
type FieldManager struct {
	*managedfields.FieldManager
	create *createPath // nil: every write goes to the apimachinery field manager
	// custom: a create of a user's kind that create does not follow.
	custom *customCreate
	update *updatePath // nil: every non-create write does
}

// Update is managedfields.FieldManager.Update.
func (f *FieldManager) Update(liveObj, newObj runtime.Object, manager string) (runtime.Object, error) {
	if out, ok := f.create.track(liveObj, newObj, manager); ok {
		return out, nil
	}
	if out, ok := f.custom.track(liveObj, newObj, manager); ok {
		return out, nil
	}
	if out, ok := f.update.track(liveObj, newObj, manager); ok {
		return out, nil
	}
	return f.FieldManager.Update(liveObj, newObj, manager)
}

// UpdateNoErrors is managedfields.FieldManager.UpdateNoErrors.
func (f *FieldManager) UpdateNoErrors(liveObj, newObj runtime.Object, manager string) runtime.Object {
	if out, ok := f.create.track(liveObj, newObj, manager); ok {
		return out
	}
	if out, ok := f.custom.track(liveObj, newObj, manager); ok {
		return out
	}
	if out, ok := f.update.track(liveObj, newObj, manager); ok {
		return out
	}
	return f.FieldManager.UpdateNoErrors(liveObj, newObj, manager)
}

// createPath records the managedFields of a create of a proven kind as
// apimachinery's field manager records them, without its chain.
//
// A create's Update (live: an empty object without uid or managedFields;
// new: an object without managedFields) goes through apimachinery's
// field manager as follows: no entry is decoded (the new object sends
// none, the live one has none); the non-applied skip tracks the write (no
// uid, probability 1); the manager is named "unknown" when empty and its
// identifier (JSON of manager, operation Update, apiVersion and
// subresource) decodes to the same entry; the last-applied wrappers do
// nothing on Update; no schema reconciliation (no managers); Compare of
// the live and new objects gives the manager's set (added and modified,
// as there are no other managers to take fields from), filtered by the
// version's reset fields and stripped of the metadata fields no manager
// owns; the entry gets the time now (UTC) and the set's JSON; one entry
// needs no cap and no sort; an empty set leaves no entry, and
// managedFields nil. Compare, the two filters and the JSON are
// createFields' walk into a fieldsTree. Any other write, and any object
// the walk does not follow, goes to apimachinery.
type createPath struct {
	typ        reflect.Type // the kind's (proven) Go type
	gvk        schema.GroupVersionKind
	apiVersion string
	root       *cmpNode
	reset      fieldpath.Filter // the version's reset fields; nil when none
	resetSet   *fieldpath.Set   // what reset excludes
	// emptyLive: the kind is a custom resource (Kind.CustomResource), whose
	// live object on a create is empty; see cmpWalker.emptyLive.
	emptyLive bool
}

// stripSet is the fields managedfields' stripMetaManager takes out of
// every manager's set.
var stripSet = fieldpath.NewSet(
	fieldpath.MakePathOrDie("apiVersion"),
	fieldpath.MakePathOrDie("kind"),
	fieldpath.MakePathOrDie("metadata"),
	fieldpath.MakePathOrDie("metadata", "name"),
	fieldpath.MakePathOrDie("metadata", "namespace"),
	fieldpath.MakePathOrDie("metadata", "creationTimestamp"),
	fieldpath.MakePathOrDie("metadata", "selfLink"),
	fieldpath.MakePathOrDie("metadata", "uid"),
	fieldpath.MakePathOrDie("metadata", "clusterName"),
	fieldpath.MakePathOrDie("metadata", "generation"),
	fieldpath.MakePathOrDie("metadata", "managedFields"),
	fieldpath.MakePathOrDie("metadata", "resourceVersion"),
)

// newCreatePath is the create path of a proven kind's field manager for
// subresource, or nil; reset is the reset fields of the kind's version.
func newCreatePath(tc *kindTypeConverter, subresource string, reset *fieldpath.Set) *createPath {
	if tc == nil || tc.proven == nil || subresource != "" {
		return nil
	}
	p, ok := tc.types.types[tc.gvk]
	if !ok {
		return nil
	}
	root, err := compilePlan(tc.proven, p.Schema, p.TypeRef, tc.cr)
	if err != nil {
		return nil
	}
	c := &createPath{typ: tc.proven, gvk: tc.gvk, apiVersion: tc.gvk.GroupVersion().String(), root: root}
	if reset != nil {
		c.reset, c.resetSet = fieldpath.NewExcludeSetFilter(reset), reset
	}
	return c
}

// track records newObj's managedFields when the write is a create the
// path follows (ok), and leaves both objects untouched otherwise.
func (c *createPath) track(liveObj, newObj runtime.Object, manager string) (runtime.Object, bool) {
	if c == nil {
		return nil, false
	}
	obj, manager, ok := asCreate(c.typ, c.gvk, liveObj, newObj, manager)
	if !ok {
		return nil, false
	}
	tree := getFieldsTree(c.resetSet, stripSet)
	defer putFieldsTree(tree)
	if err := createFields(tree, c.root, reflect.ValueOf(liveObj), reflect.ValueOf(newObj), c.emptyLive); err != nil {
		return nil, false
	}
	if tree.empty() {
		obj.SetManagedFields(nil)
		return newObj, true
	}
	raw, err := tree.appendJSON(make([]byte, 0, 512))
	if err != nil {
		return nil, false
	}
	setCreateEntry(obj, manager, c.apiVersion, raw)
	return newObj, true
}

// asCreate is newObj as a metav1.Object, and the manager's name, when the
// write is a create of the kind (typ, gvk) as apimachinery's field manager
// sees one: an empty live object without uid, neither object with
// managedFields, a manager named in UTF-8 ("unknown" when empty).
func asCreate(typ reflect.Type, gvk schema.GroupVersionKind, liveObj, newObj runtime.Object, manager string) (metav1.Object, string, bool) {
	if reflect.TypeOf(liveObj) != typ || reflect.TypeOf(newObj) != typ ||
		liveObj.GetObjectKind().GroupVersionKind() != gvk || newObj.GetObjectKind().GroupVersionKind() != gvk {
		return nil, "", false
	}
	live, ok := liveObj.(metav1.Object)
	obj, ok2 := newObj.(metav1.Object)
	if !ok || !ok2 {
		return nil, "", false
	}
	if len(live.GetManagedFields()) != 0 || len(obj.GetManagedFields()) != 0 || live.GetUID() != "" || !utf8.ValidString(manager) {
		return nil, "", false
	}
	if manager == "" {
		manager = "unknown"
	}
	return obj, manager, true
}

// setCreateEntry gives obj the one entry of a create: manager's Update,
// now, owning the fields of raw (FieldsV1 JSON).
func setCreateEntry(obj metav1.Object, manager, apiVersion string, raw []byte) {
	obj.SetManagedFields([]metav1.ManagedFieldsEntry{{
		Manager:    manager,
		Operation:  metav1.ManagedFieldsOperationUpdate,
		APIVersion: apiVersion,
		Time:       &metav1.Time{Time: time.Now().UTC()},
		FieldsType: "FieldsV1",
		FieldsV1:   &metav1.FieldsV1{Raw: raw},
	}})
}
