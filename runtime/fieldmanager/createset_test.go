package fieldmanager_test

import (
	"bytes"
	"fmt"
	"reflect"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/randfill"

	"github.com/kubeforge/kubeforge/runtime/conversion"
	"github.com/kubeforge/kubeforge/runtime/fieldmanager"
)

// TestCreateSetMatchesCompare: for fuzzed objects of every shipped kind,
// the create path's walk gives exactly the fields structured-merge-diff's
// Compare of the empty and the new object reports as added or modified,
// written byte for byte as the set's ToJSON writes them, or leaves the
// write to it; and it follows every create Compare accepts
// (a kind it stops following shows here). A live object equal to the
// new one (lists with items on both sides) is left to Compare.
func TestCreateSetMatchesCompare(t *testing.T) {
	reg, kinds := shippedKinds(t)
	for _, k := range kinds {
		t.Run(k.GVK.String(), func(t *testing.T) {
			followed, total, refused, emptyFollowed, missed := 0, 0, 0, 0, 0
			for seed := range int64(200) {
				f := fuzzer(seed)
				obj := k.New()
				f.Fill(obj)
				obj.GetObjectKind().SetGroupVersionKind(k.GVK)
				empty := k.New()
				empty.GetObjectKind().SetGroupVersionKind(k.GVK)
				for i, live := range []runtime.Object{empty, obj.DeepCopyObject()} {
					got, want, ok, err := fieldmanager.CreateSets(reg, k, live, obj)
					total++
					if !ok {
						if err != nil {
							refused++
						} else if i == 0 {
							missed++
						}
						continue
					}
					followed++
					if i == 0 {
						emptyFollowed++
					}
					if err != nil {
						t.Fatalf("seed %d: the create path followed what Compare refuses: %v", seed, err)
					}
					if !got.Set.Equals(want.Set) {
						t.Fatalf("seed %d: sets differ\ncreate path:\n%v\nCompare:\n%v", seed, got.Set, want.Set)
					}
					if !bytes.Equal(got.JSON, want.JSON) {
						t.Fatalf("seed %d: JSON differs\ncreate path: %s\n    Compare: %s", seed, got.JSON, want.JSON)
					}
				}
			}
			t.Logf("%d of %d followed (%d of %d creates), %d refused by Compare", followed, total, emptyFollowed, total/2, refused)
			if missed > 0 {
				t.Errorf("%d creates that Compare accepts left to it", missed)
			}
		})
	}
}

// TestCreatePathMatchesKube: creates of fuzzed objects of every shipped
// kind, with and without a status subresource (whose reset fields the
// main resource's set leaves out), through the main resource and the
// status subresource, by named, unnamed, non-ASCII and invalid-UTF-8
// managers, sending no managedFields, an empty list (a reset), an empty
// entry or another manager's entry, with the conversion-data annotation,
// and over an empty live object that has a uid, record exactly what
// kube-apiserver's field manager records (Update and UpdateNoErrors);
// and the plain creates take the create path whenever Compare accepts
// the object.
func TestCreatePathMatchesKube(t *testing.T) {
	for _, hasStatus := range []bool{false, true} {
		reg, kinds := shippedKinds(t)
		for _, k := range kinds {
			k.HasStatus = hasStatus
			t.Run(fmt.Sprintf("%s/status=%v", k.GVK, hasStatus), func(t *testing.T) {
				for _, sub := range []string{"", "status"} {
					fast, ref := fieldManagers(t, reg, k, sub)
					for seed := range int64(40) {
						createVariants(t, k, sub, fast, ref, fuzzer(seed))
					}
				}
			})
		}
	}
}

func createVariants(t *testing.T, k fieldmanager.Kind, sub string, fast, ref *fieldmanager.FieldManager, f *randfill.Filler) {
	t.Helper()
	obj := k.New()
	f.Fill(obj)
	obj.GetObjectKind().SetGroupVersionKind(k.GVK)
	empty := k.New()
	empty.GetObjectKind().SetGroupVersionKind(k.GVK)
	with := func(edit func(metav1.Object)) runtime.Object {
		o := obj.DeepCopyObject()
		edit(o.(metav1.Object))
		return o
	}
	other := metav1.ManagedFieldsEntry{Manager: "other", Operation: metav1.ManagedFieldsOperationUpdate, Time: &metav1.Time{},
		APIVersion: k.GVK.GroupVersion().String(), FieldsType: "FieldsV1",
		FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:metadata":{"f:labels":{}}}`)}}
	cases := []struct {
		name    string
		live    runtime.Object
		obj     runtime.Object
		manager string
	}{
		{"create", empty, obj, "creator"},
		{"unnamed manager", empty, obj, ""},
		{"non-ASCII manager", empty, obj, "<ü&\u2028>"},
		{"invalid UTF-8 manager", empty, obj, "a\xffb"},
		{"managedFields reset", empty, with(func(m metav1.Object) { m.SetManagedFields([]metav1.ManagedFieldsEntry{}) }), "creator"},
		{"an empty entry", empty, with(func(m metav1.Object) { m.SetManagedFields([]metav1.ManagedFieldsEntry{{}}) }), "creator"},
		{"another manager's entry", empty, with(func(m metav1.Object) { m.SetManagedFields([]metav1.ManagedFieldsEntry{other}) }), "creator"},
		{"conversion data", empty, with(func(m metav1.Object) {
			m.SetAnnotations(map[string]string{conversion.DataAnnotation: `{"x":1}`, "a": "b"})
		}), "creator"},
		{"live with a uid", func() runtime.Object {
			o := empty.DeepCopyObject()
			o.(metav1.Object).SetUID("u")
			return o
		}(), obj, "creator"},
	}
	for _, c := range cases {
		name := fmt.Sprintf("%s (subresource %q)", c.name, sub)
		step(t, name, update(fast, c.obj, c.manager), update(ref, c.obj, c.manager), c.live.DeepCopyObject(), c.live.DeepCopyObject())
		gotFast := withoutTimes(t, fast.UpdateNoErrors(c.live.DeepCopyObject(), c.obj.DeepCopyObject(), c.manager))
		gotRef := withoutTimes(t, ref.UpdateNoErrors(c.live.DeepCopyObject(), c.obj.DeepCopyObject(), c.manager))
		if !reflect.DeepEqual(gotFast, gotRef) {
			t.Errorf("%s: UpdateNoErrors differs\n fast %+v\n  ref %+v", name, gotFast, gotRef)
		}
	}
	if sub == "" {
		if _, err := ref.Update(empty.DeepCopyObject(), obj.DeepCopyObject(), "creator"); err == nil && !fieldmanager.FollowsCreate(fast, empty, obj) {
			t.Errorf("a create Compare accepts was left to apimachinery")
		}
	}
}

// TestCustomCreateMatchesCreatePath: a create of a user's kind whose Go
// type is not proven to fit its schema (Gateway API's routes) is
// recorded by customCreate, Compare over kube's empty live object; for
// the user's kinds, which are proven, it records what the create path
// records (checked against kube-apiserver's field manager above), the
// root objects' own entries ("f:spec": {".": {}, ...}) included, with
// and without a status subresource.
func TestCustomCreateMatchesCreatePath(t *testing.T) {
	for _, hasStatus := range []bool{false, true} {
		reg, kinds := shippedKinds(t) // a registry keeps one field manager per kind
		for _, k := range kinds {
			if k.GVK.Group != "shipping.kubeforge.dev" && k.GVK.Group != "infra.kubeforge.dev" {
				continue
			}
			k.CustomResource, k.HasStatus = true, hasStatus
			t.Run(fmt.Sprintf("%s/status=%v", k.GVK, hasStatus), func(t *testing.T) {
				fast, err := reg.FieldManager(k, "")
				if err != nil {
					t.Fatal(err)
				}
				unproven, err := fieldmanager.UnprovenFieldManager(reg, k, "")
				if err != nil {
					t.Fatal(err)
				}
				if !fieldmanager.HasCustomCreate(unproven) {
					t.Fatal("no custom create path for an unproven user kind")
				}
				dots := 0
				for seed := range int64(100) {
					obj, live := fuzzedCreate(k, seed)
					want, err := fast.Update(live.DeepCopyObject(), obj.DeepCopyObject(), "m")
					if err != nil {
						continue // refused by both: duplicates
					}
					got, err := unproven.Update(live.DeepCopyObject(), obj.DeepCopyObject(), "m")
					if err != nil {
						t.Fatalf("seed %d: %v", seed, err)
					}
					w, g := want.(metav1.Object).GetManagedFields(), got.(metav1.Object).GetManagedFields()
					if len(w) != len(g) || len(w) == 1 && !bytes.Equal(w[0].FieldsV1.Raw, g[0].FieldsV1.Raw) {
						t.Fatalf("seed %d:\n create path: %+v\n      custom: %+v", seed, w, g)
					}
					if len(g) == 1 && bytes.Contains(g[0].FieldsV1.Raw, []byte(`"f:spec":{".":{}`)) {
						dots++
					}
				}
				if dots == 0 {
					t.Error("no create owned the spec with its own entry")
				}
			})
		}
	}
}

// fuzzedCreate is a random object of kind k without managedFields and the
// empty live object a create of it starts from.
func fuzzedCreate(k fieldmanager.Kind, seed int64) (obj, live runtime.Object) {
	obj = k.New()
	fuzzer(seed).Fill(obj)
	obj.GetObjectKind().SetGroupVersionKind(k.GVK)
	obj.(metav1.Object).SetManagedFields(nil)
	live = k.New()
	live.GetObjectKind().SetGroupVersionKind(k.GVK)
	return obj, live
}
