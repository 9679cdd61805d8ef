package fieldmanager_test

import (
	"fmt"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/randfill"

	"github.com/kubeforge/kubeforge/runtime/fieldmanager"
)

// TestUpdatePathMatchesKube: random sequences of writes to fuzzed objects
// of every shipped kind, with and without a status subresource, through
// the main resource and the status subresource, by up to 13 managers
// (beyond the cap of 10 Update entries; unnamed, non-ASCII and invalid
// UTF-8 names among them), record exactly what
// kube-apiserver's field manager records, times included: before each
// write the live entries get old times (some equal, some missing), which
// a manager the write leaves alone keeps, and the writer's entry gets
// the time now when the write changed something it now owns. Writes
// replace the object, refill one field, remove list items and map keys,
// send the live object back, send managedFields edited by the client
// (an entry dropped, a reset, an entry of another apiVersion, a set in
// other JSON), or are applies. Plain updates below the cap take the
// update path whenever kube's field manager accepts them.
func TestUpdatePathMatchesKube(t *testing.T) {
	start := time.Now().Add(-time.Second)
	for _, hasStatus := range []bool{false, true} {
		reg, kinds := shippedKinds(t)
		for _, k := range kinds {
			k.HasStatus = hasStatus
			t.Run(fmt.Sprintf("%s/status=%v", k.GVK, hasStatus), func(t *testing.T) {
				var fms [2][2]*fieldmanager.FieldManager // [subresource][fast, ref]
				for i, sub := range []string{"", "status"} {
					fast, ref := fieldManagers(t, reg, k, sub)
					fms[i] = [2]*fieldmanager.FieldManager{fast, ref}
				}
				followed, plain := 0, 0
				for seed := range int64(25) {
					f, p := updateSequence(t, k, fms, fuzzer(seed), start)
					followed += f
					plain += p
				}
				t.Logf("%d of %d plain updates followed", followed, plain)
				if followed == 0 {
					t.Errorf("no update took the update path")
				}
			})
		}
	}
}

func updateSequence(t *testing.T, k fieldmanager.Kind, fms [2][2]*fieldmanager.FieldManager, f *randfill.Filler, start time.Time) (followed, plain int) {
	t.Helper()
	gv := k.GVK.GroupVersion().String()
	fill := func() runtime.Object {
		o := k.New()
		f.Fill(o)
		o.GetObjectKind().SetGroupVersionKind(k.GVK)
		return o
	}
	pick := func(n int) int {
		var b uint16
		f.Fill(&b)
		return int(b) % n
	}
	empty := k.New()
	empty.GetObjectKind().SetGroupVersionKind(k.GVK)
	created, err := fms[0][1].Update(empty, fill(), "m0")
	if err != nil {
		return 0, 0
	}
	created.(metav1.Object).SetUID("u")
	live := created
	for i := range 14 {
		// Old times, some equal, some missing, on the live entries.
		live = live.DeepCopyObject()
		lm := live.(metav1.Object)
		mf := lm.GetManagedFields()
		for j := range mf {
			switch pick(5) {
			case 0:
				mf[j].Time = nil
			default:
				mf[j].Time = &metav1.Time{Time: time.Unix(int64(1000+pick(3)), 0).UTC()}
			}
		}
		lm.SetManagedFields(mf)

		sub := pick(3) / 2 // the status subresource one time in three
		manager := fmt.Sprintf("m%d", pick(13))
		switch pick(12) {
		case 0, 1:
			manager = ""
		case 2:
			manager = "<ü&\u2028>" // escaped in JSON identifiers
		case 3:
			manager = "a\xffb" // invalid UTF-8: replaced in identifiers
		}
		var obj runtime.Object
		sent := "none"
		switch pick(6) {
		case 0:
			obj = fill()
		case 1:
			obj = live.DeepCopyObject()
			fillOneField(f, obj)
		case 2:
			obj = dropItems(f, live)
		case 3:
			obj = live.DeepCopyObject()
		case 4:
			if u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(fill()); err == nil {
				cfg := &unstructured.Unstructured{Object: u}
				cfg.SetGroupVersionKind(k.GVK)
				force := pick(2) == 0
				outFast, errFast := fms[0][0].Apply(live.DeepCopyObject(), cfg.DeepCopy(), manager+"-applier", force)
				outRef, errRef := fms[0][1].Apply(live.DeepCopyObject(), cfg.DeepCopy(), manager+"-applier", force)
				if (errFast == nil) != (errRef == nil) {
					t.Fatalf("step %d apply: errors differ: %v / %v", i, errFast, errRef)
				}
				if errRef == nil {
					sameWrite(t, fmt.Sprintf("step %d apply", i), outFast, outRef, live, "", start)
					live = outRef
				}
				continue
			}
			obj = fill()
		default:
			obj = live.DeepCopyObject()
			fillOneField(f, obj)
			sent = "edited"
			om := obj.(metav1.Object)
			mf := om.GetManagedFields()
			switch pick(7) {
			case 5:
				// The writer's own entry holding fields stripMeta strips,
				// one of them changed.
				who := manager
				if who == "" {
					who = "unknown"
				}
				mf = slices.DeleteFunc(slices.Clone(mf), func(e metav1.ManagedFieldsEntry) bool {
					return e.Manager == who && e.Operation == metav1.ManagedFieldsOperationUpdate
				})
				mf = append(mf, metav1.ManagedFieldsEntry{Manager: who, Operation: metav1.ManagedFieldsOperationUpdate,
					APIVersion: gv, FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:metadata":{"f:generation":{},"f:name":{}}}`)}})
				om.SetName(fmt.Sprintf("renamed-%d", i))
			case 0:
				if len(mf) > 0 {
					mf = append(mf[:0:0], mf[1:]...)
				}
			case 1:
				mf = []metav1.ManagedFieldsEntry{}
			case 2:
				mf = append(mf, metav1.ManagedFieldsEntry{Manager: "old", Operation: metav1.ManagedFieldsOperationUpdate,
					APIVersion: "other.kubeforge.dev/v9", FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:metadata":{"f:labels":{}}}`)}})
			case 3:
				mf = append(mf, metav1.ManagedFieldsEntry{Manager: "spaced", Operation: metav1.ManagedFieldsOperationUpdate,
					APIVersion: gv, FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:metadata": {"f:labels": {}}}`)}})
			case 4:
				// A set under an atomic list: reconciled to the list.
				mf = append(mf, metav1.ManagedFieldsEntry{Manager: "atomic", Operation: metav1.ManagedFieldsOperationUpdate,
					APIVersion: gv, FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:metadata":{"f:managedFields":{"f:x":{}}}}`)}})
			default:
				mf = append(mf, metav1.ManagedFieldsEntry{Manager: "client", Operation: metav1.ManagedFieldsOperationApply,
					APIVersion: gv, FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:metadata":{"f:annotations":{}}}`)}})
			}
			om.SetManagedFields(mf)
		}
		if sent == "none" && pick(2) == 0 {
			obj.(metav1.Object).SetManagedFields(nil)
		}
		if sent == "none" && obj.(metav1.Object).GetManagedFields() != nil {
			sent = "live"
		}
		fast, ref := fms[sub][0], fms[sub][1]
		name := fmt.Sprintf("step %d: update by %q through %q, managedFields sent: %s", i, manager, []string{"", "status"}[sub], sent)
		follows := fieldmanager.FollowsUpdate(fast, live, obj, manager)
		outRef, errRef := ref.Update(live.DeepCopyObject(), obj.DeepCopyObject(), manager)
		before := live.DeepCopyObject()
		outFast, errFast := fast.Update(live, obj.DeepCopyObject(), manager)
		if (errFast == nil) != (errRef == nil) {
			t.Fatalf("%s: errors differ: %v / %v", name, errFast, errRef)
		}
		if !reflect.DeepEqual(live, before) {
			t.Fatalf("%s: the live object changed", name)
		}
		if follows && errRef != nil {
			t.Fatalf("%s: the update path followed a write kube's field manager refuses: %v", name, errRef)
		}
		if errRef != nil {
			continue
		}
		noErr := fast.UpdateNoErrors(live.DeepCopyObject(), obj.DeepCopyObject(), manager)
		sameWrite(t, name, outFast, outRef, live, manager, start)
		sameWrite(t, name+" (UpdateNoErrors)", noErr, outRef, live, manager, start)
		// Invalid UTF-8 names are left to apimachinery, which replaces
		// the bytes in the entry: then two entries may name one manager
		// (its identifiers differ, escaped or not), which is left to it
		// too.
		if sent != "edited" && updaters(outRef) <= 10 && updaters(live) <= 10 && utf8.ValidString(manager) && !repeatsManager(live) {
			plain++
			if follows {
				followed++
			} else {
				t.Errorf("%s: a plain update below the cap was left to apimachinery", name)
			}
		}
		live = outRef
		live.(metav1.Object).SetUID("u")
	}
	return followed, plain
}

// repeatsManager: two entries of obj have one manager identifier.
func repeatsManager(obj runtime.Object) bool {
	seen := map[[4]string]bool{}
	for _, e := range obj.(metav1.Object).GetManagedFields() {
		id := [4]string{e.Manager, string(e.Operation), e.APIVersion, e.Subresource}
		if e.Operation == metav1.ManagedFieldsOperationApply {
			id[2] = ""
		}
		if seen[id] {
			return true
		}
		seen[id] = true
	}
	return false
}

// updaters counts obj's Update entries.
func updaters(obj runtime.Object) int {
	n := 0
	for _, e := range obj.(metav1.Object).GetManagedFields() {
		if e.Operation == metav1.ManagedFieldsOperationUpdate {
			n++
		}
	}
	return n
}

// sameWrite fails unless got and want are the same object with the same
// managedFields, in the same order, times included, but for entries
// both give the time now (written at or after start, the two managers
// may run either side of a second): an entry with an old time must keep
// it.
func sameWrite(t *testing.T, name string, got, want, live runtime.Object, manager string, start time.Time) {
	t.Helper()
	g, w := got.DeepCopyObject(), want.DeepCopyObject()
	gm, wm := g.(metav1.Object).GetManagedFields(), w.(metav1.Object).GetManagedFields()
	if len(gm) == len(wm) {
		for i := range gm {
			gt, wt := gm[i].Time, wm[i].Time
			if gt != nil && wt != nil && !gt.Before(&metav1.Time{Time: start}) && !wt.Before(&metav1.Time{Time: start}) {
				gm[i].Time, wm[i].Time = nil, nil
			}
		}
	}
	if !reflect.DeepEqual(g, w) {
		t.Fatalf("%s: results differ\n fast %+v\n  ref %+v", name, gm, wm)
	}
}

// TestUpdatePathConcurrent: one field manager's update path (its cache
// of decoded sets is shared) used from several goroutines at once
// records what kube's field manager records; run it under -race.
func TestUpdatePathConcurrent(t *testing.T) {
	reg, kinds := shippedKinds(t)
	var k fieldmanager.Kind
	for _, kk := range kinds {
		if kk.GVK.Kind == "Shipment" && kk.GVK.Version == "v1" {
			k = kk
		}
	}
	if k.New == nil {
		t.Fatal("no shipping/v1 Shipment")
	}
	fast, err := reg.FieldManager(k, "")
	if err != nil {
		t.Fatal(err)
	}
	ref, err := fieldmanager.ReferenceFieldManager(reg, k, "")
	if err != nil {
		t.Fatal(err)
	}
	type write struct {
		live, obj, want runtime.Object
		manager         string
	}
	var writes []write
	for seed := range int64(40) {
		f := fuzzer(seed)
		obj := k.New()
		f.Fill(obj)
		obj.GetObjectKind().SetGroupVersionKind(k.GVK)
		empty := k.New()
		empty.GetObjectKind().SetGroupVersionKind(k.GVK)
		live, err := ref.Update(empty, obj, "creator")
		if err != nil {
			continue
		}
		lm := live.(metav1.Object)
		lm.SetUID("u")
		mf := lm.GetManagedFields()
		for i := range mf {
			mf[i].Time = &metav1.Time{Time: time.Unix(1000, 0).UTC()}
		}
		next := live.DeepCopyObject()
		fillOneField(f, next)
		manager := fmt.Sprintf("m%d", seed%3)
		want, err := ref.Update(live.DeepCopyObject(), next.DeepCopyObject(), manager)
		if err != nil {
			continue
		}
		writes = append(writes, write{live, next, want, manager})
	}
	var wg sync.WaitGroup
	errs := make(chan error, 4*len(writes))
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range 5 {
				for i := range writes {
					w := writes[(i+g+r)%len(writes)]
					got, err := fast.Update(w.live, w.obj.DeepCopyObject(), w.manager)
					if err != nil {
						errs <- err
						return
					}
					if !reflect.DeepEqual(entriesWithoutNow(got), entriesWithoutNow(w.want)) {
						errs <- fmt.Errorf("write %d: managedFields differ\n got %+v\nwant %+v", i, entriesWithoutNow(got), entriesWithoutNow(w.want))
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// entriesWithoutNow is obj's managedFields without the times of this
// year (the writer's).
func entriesWithoutNow(obj runtime.Object) []metav1.ManagedFieldsEntry {
	mf := append([]metav1.ManagedFieldsEntry(nil), obj.(metav1.Object).GetManagedFields()...)
	for i := range mf {
		if mf[i].Time != nil && mf[i].Time.Year() == time.Now().Year() {
			mf[i].Time = nil
		}
	}
	return mf
}

// TestUpdatePathCap: managers that each own a label of their own, one
// after another, beyond the cap of 10 Update entries (kube then merges
// the oldest into "ancient-changes"), record what kube's field manager
// records, through the main resource and the status subresource.
func TestUpdatePathCap(t *testing.T) {
	start := time.Now().Add(-time.Second)
	reg, kinds := shippedKinds(t)
	for _, k := range kinds {
		if k.GVK.Kind != "Shipment" && k.GVK.Kind != "ConfigMap" && k.GVK.Kind != "Deployment" {
			continue
		}
		for _, sub := range []string{"", "status"} {
			fast, ref := fieldManagers(t, reg, k, sub)
			live := k.New()
			live.GetObjectKind().SetGroupVersionKind(k.GVK)
			lm := live.(metav1.Object)
			lm.SetName("n")
			lm.SetUID("u")
			lm.SetManagedFields([]metav1.ManagedFieldsEntry{{Manager: "m0", Operation: metav1.ManagedFieldsOperationUpdate,
				APIVersion: k.GVK.GroupVersion().String(), FieldsType: "FieldsV1", Subresource: sub,
				Time: &metav1.Time{Time: time.Unix(999, 0).UTC()}, FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:metadata":{"f:name":{}}}`)}}})
			for i := range 14 {
				obj := live.DeepCopyObject()
				om := obj.(metav1.Object)
				labels := map[string]string{}
				for key, v := range om.GetLabels() {
					labels[key] = v
				}
				labels[fmt.Sprintf("l%d", i)] = "x"
				om.SetLabels(labels)
				manager := fmt.Sprintf("m%d", i)
				name := fmt.Sprintf("%s %q: write %d", k.GVK, sub, i)
				outRef, err := ref.Update(live.DeepCopyObject(), obj.DeepCopyObject(), manager)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				outFast, err := fast.Update(live.DeepCopyObject(), obj, manager)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				sameWrite(t, name, outFast, outRef, live, manager, start)
				// Distinct old times, so that the oldest entries are known.
				mf := outRef.(metav1.Object).GetManagedFields()
				for j := range mf {
					if mf[j].Time != nil && mf[j].Time.Year() > 2000 {
						mf[j].Time = &metav1.Time{Time: time.Unix(int64(1000+i), 0).UTC()}
					}
				}
				live = outRef
			}
			if n := updaters(live); n != 10 {
				t.Errorf("%s %q: %d Update entries after 14 managers, want the cap (10)", k.GVK, sub, n)
			}
		}
	}
}
