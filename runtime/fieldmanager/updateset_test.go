package fieldmanager_test

import (
	"reflect"

	"sigs.k8s.io/randfill"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubeforge/kubeforge/runtime/fieldmanager"
)

// TestComparisonMatchesCompare: for pairs of fuzzed objects of every
// shipped kind (unrelated, one refilled in a single field, one derived
// from the other with items removed, and equal), the update path's walk
// gives exactly structured-merge-diff's Compare: added, modified and
// removed fields; and it follows every pair Compare accepts.
func TestComparisonMatchesCompare(t *testing.T) {
	reg, kinds := shippedKinds(t)
	for _, k := range kinds {
		t.Run(k.GVK.String(), func(t *testing.T) {
			total, refused, changed := 0, 0, 0
			for seed := range int64(150) {
				f := fuzzer(seed)
				fill := func() runtime.Object {
					o := k.New()
					f.Fill(o)
					o.GetObjectKind().SetGroupVersionKind(k.GVK)
					return o
				}
				a, b := fill(), fill()
				one := a.DeepCopyObject()
				fillOneField(f, one)
				pairs := [][2]runtime.Object{{a, b}, {b, a}, {a, one}, {one, a}, {a, a.DeepCopyObject()}, {a, dropItems(f, a)}, {dropItems(f, a), a}}
				for _, p := range pairs {
					got, ok, want, err := fieldmanager.Comparisons(reg, k, p[0], p[1])
					total++
					if err != nil {
						refused++
						if ok {
							t.Fatalf("seed %d: the walk followed what Compare refuses: %v", seed, err)
						}
						continue
					}
					if !ok {
						t.Fatalf("seed %d: a pair Compare accepts was left to it", seed)
					}
					for i, what := range []string{"added", "modified", "removed"} {
						if !got[i].Equals(want[i]) {
							t.Fatalf("seed %d: %s differ\nwalk:\n%v\nCompare:\n%v", seed, what, got[i], want[i])
						}
					}
					if !want[0].Empty() || !want[1].Empty() || !want[2].Empty() {
						changed++
					}
				}
			}
			t.Logf("%d pairs, %d refused by Compare, %d with changes", total, refused, changed)
		})
	}
}

// dropItems is a copy of obj with about a third of the items of its lists
// and keys of its maps removed, and of its nil or empty slices swapped,
// at every depth.
func dropItems(f *randfill.Filler, obj runtime.Object) runtime.Object {
	out := obj.DeepCopyObject()
	var drop func(v reflect.Value)
	coin := func() bool {
		var b uint8
		f.Fill(&b)
		return b%3 == 0
	}
	drop = func(v reflect.Value) {
		switch v.Kind() {
		case reflect.Pointer, reflect.Interface:
			if !v.IsNil() {
				drop(v.Elem())
			}
		case reflect.Struct:
			for i := range v.NumField() {
				if v.Type().Field(i).IsExported() {
					drop(v.Field(i))
				}
			}
		case reflect.Slice:
			if v.Type().Elem().Kind() == reflect.Uint8 {
				return
			}
			if v.IsNil() || v.Len() == 0 {
				// nil and empty slices: equal in JSON, not to reflect.DeepEqual
				if coin() {
					if v.IsNil() {
						v.Set(reflect.MakeSlice(v.Type(), 0, 0))
					} else {
						v.Set(reflect.Zero(v.Type()))
					}
				}
				return
			}
			kept := reflect.MakeSlice(v.Type(), 0, v.Len())
			for i := range v.Len() {
				if !coin() {
					drop(v.Index(i))
					kept = reflect.Append(kept, v.Index(i))
				}
			}
			v.Set(kept)
		case reflect.Map:
			for _, key := range v.MapKeys() {
				if coin() {
					v.SetMapIndex(key, reflect.Value{})
				}
			}
		}
	}
	drop(reflect.ValueOf(out))
	return out
}
