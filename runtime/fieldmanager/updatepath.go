package fieldmanager

import (
	"bytes"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	"sigs.k8s.io/structured-merge-diff/v6/typed"
)

// updatePath records the managedFields of a non-apply write (update,
// patch) of a proven kind, through the main resource or the status
// subresource, as apimachinery's field manager records them, without
// its chain.
//
// apimachinery's field manager goes, for an Update:
//
//   - FieldManager.Update decodes the managedFields of the new object,
//     or the live object's when the new one sends none (or cannot be
//     decoded), none when it sends a reset (an empty list, or one empty
//     entry); a subresource always takes the live object's. The new
//     object's managedFields are then cleared: Compare sees them removed;
//   - versionCheck, lastAppliedUpdater and lastAppliedManager do nothing
//     on Update;
//   - skipNonApplied: no decoded entry and a live object with a uid
//     records nothing (managedFields nil);
//   - capManagers, after the rest: more than 10 Update entries merge the
//     oldest into "ancient-changes" (not reproduced: left to apimachinery);
//   - buildManagerInfo names the writer (JSON of manager or "unknown",
//     operation Update, apiVersion, subresource);
//   - managedFieldsUpdater runs the rest as "current-operation" and then,
//     when that manager kept a set, merges it into the writer's (after the
//     writer lost what everyone lost) with the time now;
//   - stripMeta takes the metadata fields no one owns out of
//     "current-operation"'s set;
//   - structuredMerge's Updater: reconciles every set with the schema
//     (a no-op for sets written under it: checked once per decoded set);
//     Compare of live and new; every other manager (the writer included)
//     loses the added, modified and removed fields, filtered by the
//     version's reset fields; "current-operation" gets added and
//     modified, filtered; empty sets are dropped;
//   - the entries are encoded (each set's JSON) and sorted by operation,
//     time in seconds, manager, apiVersion and subresource.
//
// The path follows that with comparison (the walk of the create path,
// two-sided), every entry of the kind's own apiVersion (another would be
// converted: left to apimachinery), decoded sets cached by their JSON
// (an unchanged set is not decoded again, and its JSON is reused, as a
// set's JSON decodes and encodes back to the same bytes: checked when
// cached). An unchanged entry's FieldsV1 shares its bytes with the entry
// it comes from (the live object's or the request's), as apimachinery's
// output shares the entries' Time pointers: neither is written in place.
type updatePath struct {
	cmp         *createPath
	subresource string
	empty       *typed.TypedValue // an empty object, for schema reconciliation
	sets        setCache
}

// maxUpdateManagers is managedfields' DefaultMaxUpdateManagers.
const maxUpdateManagers = 10

// newUpdatePath is the update path of a proven kind's field manager for
// subresource ("" or "status"), or nil.
func newUpdatePath(tc *kindTypeConverter, subresource string, reset *fieldpath.Set) *updatePath {
	if subresource != "" && subresource != "status" {
		return nil
	}
	c := newCreatePath(tc, "", reset)
	if c == nil {
		return nil
	}
	p := tc.types.types[tc.gvk]
	empty, err := p.FromUnstructured(map[string]any{})
	if err != nil {
		return nil
	}
	return &updatePath{cmp: c, subresource: subresource, empty: empty}
}

// managerEntry is one decoded managedFields entry.
type managerEntry struct {
	src     *metav1.ManagedFieldsEntry
	set     *fieldpath.Set
	changed bool // set differs from the entry's
}

// track records newObj's managedFields when the path follows the write
// (ok), and leaves both objects untouched otherwise.
func (u *updatePath) track(liveObj, newObj runtime.Object, manager string) (runtime.Object, bool) {
	if u == nil {
		return nil, false
	}
	c := u.cmp
	if reflect.TypeOf(liveObj) != c.typ || reflect.TypeOf(newObj) != c.typ ||
		liveObj.GetObjectKind().GroupVersionKind() != c.gvk || newObj.GetObjectKind().GroupVersionKind() != c.gvk {
		return nil, false
	}
	live, ok := liveObj.(metav1.Object)
	obj, ok2 := newObj.(metav1.Object)
	if !ok || !ok2 || !utf8.ValidString(manager) {
		return nil, false
	}
	sent := obj.GetManagedFields()
	src := live.GetManagedFields()
	switch {
	case u.subresource != "":
	case isReset(sent):
		src = nil
	case len(sent) > 0:
		src = sent
	}
	if !entriesAreObjects(liveObj) || !entriesAreObjects(newObj) {
		return nil, false
	}
	if len(src) == 0 && live.GetUID() != "" {
		// skipNonApplied: nothing was tracked, nothing is.
		obj.SetManagedFields(nil)
		return newObj, true
	}
	if manager == "" {
		manager = "unknown"
	}
	entries, ok := u.decode(src)
	if !ok {
		return nil, false
	}

	obj.SetManagedFields(nil)
	added, modified, removed, err := comparison(c.root, reflect.ValueOf(liveObj), reflect.ValueOf(newObj))
	if err != nil {
		obj.SetManagedFields(sent)
		return nil, false
	}
	// "current-operation" gets what was added and modified, filtered by
	// the version's reset fields, stripped.
	fAdded, fModified, fRemoved := u.filter(added), u.filter(modified), u.filter(removed)
	written := union(fAdded, fModified)
	if ownsAny(written, stripSet) {
		written = written.Difference(stripSet)
	}
	// Every other manager, the writer included, loses what changed
	// (filtered); empty sets are dropped. What the writer loses of the
	// added and modified fields comes back to it with written unless
	// stripped: then its set need not be rebuilt.
	var changes *fieldpath.Set
	kept := entries[:0]
	for _, e := range entries {
		lost := owns(e.set, fRemoved)
		touched := lost || owns(e.set, fAdded) || owns(e.set, fModified)
		if touched && !lost && !written.Empty() && isWriter(e.src, manager, c.apiVersion, u.subresource) &&
			!ownsStripped(e.set, fAdded) && !ownsStripped(e.set, fModified) {
			touched = false
		}
		if touched {
			if changes == nil {
				changes = union(union(fAdded, fModified), fRemoved)
			}
			e.set, e.changed = e.set.Difference(changes), true
		}
		if !e.set.Empty() {
			kept = append(kept, e)
		}
	}
	entries = kept
	self := slices.IndexFunc(entries, func(e managerEntry) bool { return isWriter(e.src, manager, c.apiVersion, u.subresource) })
	now := false
	if !written.Empty() {
		now = true
		switch {
		case self < 0:
			entries = append(entries, managerEntry{set: written, changed: true})
			self = len(entries) - 1
		case !ownsAll(entries[self].set, written):
			entries[self].set, entries[self].changed = written.Union(entries[self].set), true
		}
	}
	updaters := 0
	for _, e := range entries {
		if e.src == nil || e.src.Operation == metav1.ManagedFieldsOperationUpdate {
			updaters++
		}
	}
	if updaters > maxUpdateManagers {
		obj.SetManagedFields(sent)
		return nil, false
	}
	if len(entries) == 0 {
		return newObj, true
	}
	out, ok := u.encodeEntries(entries, manager, self, now)
	if !ok {
		obj.SetManagedFields(sent)
		return nil, false
	}
	slices.SortFunc(out, compareEntries)
	obj.SetManagedFields(out)
	return newObj, true
}

// encodeEntries returns the managedFields of entries: an entry's set as
// JSON when it changed, else the bytes it was read from; the writer's
// entry (self) gets the time now when now is set. Not ok when a set does
// not encode.
func (u *updatePath) encodeEntries(entries []managerEntry, manager string, self int, now bool) ([]metav1.ManagedFieldsEntry, bool) {
	c := u.cmp
	out := make([]metav1.ManagedFieldsEntry, len(entries))
	for i, e := range entries {
		var o metav1.ManagedFieldsEntry
		if e.src != nil {
			o = metav1.ManagedFieldsEntry{Manager: e.src.Manager, Operation: e.src.Operation, APIVersion: e.src.APIVersion,
				Time: e.src.Time, FieldsType: "FieldsV1", Subresource: e.src.Subresource}
		} else {
			o = metav1.ManagedFieldsEntry{Manager: manager, Operation: metav1.ManagedFieldsOperationUpdate,
				APIVersion: c.apiVersion, FieldsType: "FieldsV1", Subresource: u.subresource}
		}
		if now && i == self {
			o.Time = &metav1.Time{Time: time.Now().UTC()}
		}
		if e.changed {
			raw, err := e.set.ToJSON()
			if err != nil {
				return nil, false
			}
			o.FieldsV1 = &metav1.FieldsV1{Raw: raw}
		} else {
			o.FieldsV1 = &metav1.FieldsV1{Raw: fieldsRaw(e.src)}
		}
		out[i] = o
	}
	return out, true
}

// decode is DecodeManagedFields of src, the sets from the cache; not ok
// when an entry would not decode, is of another apiVersion, repeats a
// manager, or holds a set that would not reconcile unchanged or encode
// back to its JSON.
func (u *updatePath) decode(src []metav1.ManagedFieldsEntry) ([]managerEntry, bool) {
	entries := make([]managerEntry, len(src), len(src)+1)
	for i := range src {
		e := &src[i]
		switch {
		case e.Operation != metav1.ManagedFieldsOperationApply && e.Operation != metav1.ManagedFieldsOperationUpdate,
			e.APIVersion != u.cmp.apiVersion, e.FieldsType != "FieldsV1",
			!utf8.ValidString(e.Manager), !utf8.ValidString(e.Subresource):
			return nil, false
		}
		for j := range i {
			if sameManager(&src[j], e) {
				return nil, false
			}
		}
		set, ok := u.sets.get(fieldsRaw(e), u.empty)
		if !ok {
			return nil, false
		}
		entries[i] = managerEntry{src: e, set: set}
	}
	return entries, true
}

// filter is the version's reset fields filter (a copy only when it takes
// something out).
func (u *updatePath) filter(s *fieldpath.Set) *fieldpath.Set {
	if u.cmp.reset == nil || s.Empty() || !excludes(u.cmp.resetSet, s) {
		return s
	}
	return u.cmp.reset.Filter(s)
}

// excludes: s.RecursiveDifference(excl) takes something out of s (a path
// of excl or under one).
func excludes(excl, s *fieldpath.Set) bool {
	found := false
	s.Members.Iterate(func(pe fieldpath.PathElement) {
		found = found || excl.Members.Has(pe)
	})
	s.Children.Iterate(func(pe fieldpath.PathElement) {
		if found {
			return
		}
		if excl.Members.Has(pe) {
			found = true
			return
		}
		if ec, ok := excl.Children.Get(pe); ok {
			sc, _ := s.Children.Get(pe)
			found = excludes(ec, sc)
		}
	})
	return found
}

// owns: set holds one of the paths of changes. (The walks below use
// Iterate: fieldpath's All iterators do not stop when asked to.)
func owns(set, changes *fieldpath.Set) bool {
	found := false
	changes.Members.Iterate(func(pe fieldpath.PathElement) {
		found = found || set.Members.Has(pe)
	})
	changes.Children.Iterate(func(pe fieldpath.PathElement) {
		if found {
			return
		}
		if sc, ok := set.Children.Get(pe); ok {
			cc, _ := changes.Children.Get(pe)
			found = owns(sc, cc)
		}
	})
	return found
}

// union is a.Union(b), without building a set when one is empty.
func union(a, b *fieldpath.Set) *fieldpath.Set {
	switch {
	case a.Empty():
		return b
	case b.Empty():
		return a
	}
	return a.Union(b)
}

// ownsAny: set holds one of the paths of other.
func ownsAny(set, other *fieldpath.Set) bool { return owns(set, other) }

// ownsAll: set holds every path of other.
func ownsAll(set, other *fieldpath.Set) bool {
	all := true
	other.Members.Iterate(func(pe fieldpath.PathElement) {
		all = all && set.Members.Has(pe)
	})
	other.Children.Iterate(func(pe fieldpath.PathElement) {
		if !all {
			return
		}
		oc, _ := other.Children.Get(pe)
		if sc, ok := set.Children.Get(pe); ok {
			all = ownsAll(sc, oc)
		} else {
			all = oc.Empty()
		}
	})
	return all
}

// ownsStripped: set holds one of the paths of changes that stripMeta
// takes out of a writer's set.
func ownsStripped(set, changes *fieldpath.Set) bool {
	return ownsIn(set, changes, stripSet)
}

// ownsIn: set holds one of the paths of changes that are in also.
func ownsIn(set, changes, also *fieldpath.Set) bool {
	found := false
	changes.Members.Iterate(func(pe fieldpath.PathElement) {
		found = found || set.Members.Has(pe) && also.Members.Has(pe)
	})
	changes.Children.Iterate(func(pe fieldpath.PathElement) {
		if found {
			return
		}
		sc, ok := set.Children.Get(pe)
		ac, ok2 := also.Children.Get(pe)
		if ok && ok2 {
			cc, _ := changes.Children.Get(pe)
			found = ownsIn(sc, cc, ac)
		}
	})
	return found
}

// sameManager: a and b have the same manager identifier (an applier's
// leaves out the apiVersion; both are of one apiVersion here anyway).
func sameManager(a, b *metav1.ManagedFieldsEntry) bool {
	return a.Manager == b.Manager && a.Operation == b.Operation && a.Subresource == b.Subresource
}

func isWriter(e *metav1.ManagedFieldsEntry, manager, apiVersion, subresource string) bool {
	return e != nil && e.Manager == manager && e.Operation == metav1.ManagedFieldsOperationUpdate &&
		e.APIVersion == apiVersion && e.Subresource == subresource
}

// fieldsRaw is the JSON of an entry's set: managedfields reads a missing
// FieldsV1 as an empty set.
func fieldsRaw(e *metav1.ManagedFieldsEntry) []byte {
	if e.FieldsV1 == nil {
		return emptyFields
	}
	return e.FieldsV1.Raw
}

var emptyFields = []byte("{}")

// isReset is managedfields' isResetManagedFields: an empty list, or one
// empty entry, resets managedFields.
func isReset(mf []metav1.ManagedFieldsEntry) bool {
	if len(mf) == 0 {
		return mf != nil
	}
	return len(mf) == 1 && reflect.DeepEqual(mf[0], metav1.ManagedFieldsEntry{})
}

// compareEntries is managedfields' sortEncodedManagedFields order.
func compareEntries(p, q metav1.ManagedFieldsEntry) int {
	if p.Operation != q.Operation {
		return strings.Compare(string(p.Operation), string(q.Operation))
	}
	var ps, qs int64
	if p.Time != nil {
		ps = p.Time.Unix()
	}
	if q.Time != nil {
		qs = q.Time.Unix()
	}
	if ps != qs {
		if ps < qs {
			return -1
		}
		return 1
	}
	if p.Manager != q.Manager {
		return strings.Compare(p.Manager, q.Manager)
	}
	if p.APIVersion != q.APIVersion {
		return strings.Compare(p.APIVersion, q.APIVersion)
	}
	return strings.Compare(p.Subresource, q.Subresource)
}

// setCache holds decoded managedFields sets by their JSON, up to
// maxCachedBytes of JSON (then it starts over). Cached sets are never
// changed: the update path only builds new sets from them.
type setCache struct {
	mu    sync.RWMutex
	sets  map[string]cachedSet
	bytes int
}

type cachedSet struct {
	set *fieldpath.Set
	ok  bool // decodes, reconciles unchanged, encodes back to its JSON
}

const maxCachedBytes = 256 << 10

// get is the set of raw, decoded (and checked) on a miss.
func (c *setCache) get(raw []byte, empty *typed.TypedValue) (*fieldpath.Set, bool) {
	c.mu.RLock()
	e, hit := c.sets[string(raw)]
	c.mu.RUnlock()
	if hit {
		return e.set, e.ok
	}
	e = checkSet(raw, empty)
	if len(raw) > maxCachedBytes/4 {
		return e.set, e.ok
	}
	c.mu.Lock()
	if c.sets == nil || c.bytes+len(raw) > maxCachedBytes {
		c.sets, c.bytes = map[string]cachedSet{}, 0
	}
	if _, dup := c.sets[string(raw)]; !dup {
		c.sets[string(raw)] = e
		c.bytes += len(raw)
	}
	c.mu.Unlock()
	return e.set, e.ok
}

func checkSet(raw []byte, empty *typed.TypedValue) cachedSet {
	set := &fieldpath.Set{}
	if err := set.FromJSON(bytes.NewReader(raw)); err != nil {
		return cachedSet{}
	}
	if reconciled, err := typed.ReconcileFieldSetWithSchema(set, empty); err != nil || reconciled != nil {
		return cachedSet{}
	}
	back, err := set.ToJSON()
	if err != nil || !bytes.Equal(back, raw) {
		return cachedSet{}
	}
	return cachedSet{set: set, ok: true}
}
