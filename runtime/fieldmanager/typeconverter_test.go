package fieldmanager_test

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/randfill"

	"github.com/kubeforge/kubeforge/internal/shipped"
	"github.com/kubeforge/kubeforge/runtime/fieldmanager"
)

// fieldManagers returns k's field manager for subresource sub and
// apimachinery's, built from the same registry, to compare with.
func fieldManagers(t *testing.T, reg *fieldmanager.Registry, k fieldmanager.Kind, sub string) (fast, ref *fieldmanager.FieldManager) {
	t.Helper()
	fast, err := reg.FieldManager(k, sub)
	if err != nil {
		t.Fatal(err)
	}
	ref, err = fieldmanager.ReferenceFieldManager(reg, k, sub)
	if err != nil {
		t.Fatal(err)
	}
	return fast, ref
}

// shippedKinds is a registry of every generated group-version (schemas
// and conversions) and the kinds of those group-versions that have a
// schema of their own, lists aside.
func shippedKinds(t *testing.T) (*fieldmanager.Registry, []fieldmanager.Kind) {
	t.Helper()
	reg := fieldmanager.NewRegistry()
	scheme := runtime.NewScheme()
	var kinds []fieldmanager.Kind
	for _, g := range shipped.GroupVersions {
		schemas := g.Schemas()
		if err := reg.AddSchemas(g.GV, schemas); err != nil {
			t.Fatal(err)
		}
		if err := g.AddToScheme(scheme); err != nil {
			t.Fatal(err)
		}
		if g.Conversions != nil {
			for _, c := range g.Conversions() {
				if err := reg.AddConversion(c); err != nil {
					t.Fatal(err)
				}
			}
		}
		for kind := range scheme.KnownTypes(g.GV) {
			gvk := g.GV.WithKind(kind)
			if strings.HasSuffix(kind, "List") || !declares(schemas, gvk) {
				continue
			}
			kinds = append(kinds, fieldmanager.Kind{GVK: gvk, New: func() runtime.Object {
				obj, err := scheme.New(gvk)
				if err != nil {
					panic(err) // the scheme listed it
				}
				return obj
			}})
		}
	}
	if len(kinds) < 15 {
		t.Fatalf("%d shipped kinds found, want every generated kind", len(kinds))
	}
	return reg, kinds
}

// declares: a schema of schemas names gvk in x-kubernetes-group-version-kind.
func declares(schemas map[string]json.RawMessage, gvk schema.GroupVersionKind) bool {
	for _, raw := range schemas {
		var s struct {
			GVKs []schema.GroupVersionKind `json:"x-kubernetes-group-version-kind"`
		}
		if json.Unmarshal(raw, &s) == nil {
			for _, k := range s.GVKs {
				if k == gvk {
					return true
				}
			}
		}
	}
	return false
}

// TestShippedKindsProven: every generated kind's Go type is proven to fit
// its schema, so none of them pays for validation it does not need.
func TestShippedKindsProven(t *testing.T) {
	reg, kinds := shippedKinds(t)
	for _, k := range kinds {
		if !fieldmanager.Proven(reg, k) {
			t.Errorf("%s: Go type %T not proven to fit its schema", k.GVK, k.New())
		}
	}
}

// fuzzer fills objects of any kind, with values structured-merge-diff
// meets in practice (times to the second, quantities and IntOrStrings of
// both kinds) and short strings, so that keyed list items repeat keys and
// sometimes leave them empty.
func fuzzer(seed int64) *randfill.Filler {
	return randfill.NewWithSeed(seed).NilChance(0.3).NumElements(0, 3).Funcs(
		func(s *string, c randfill.Continue) { *s = []string{"", "a", "b", "TCP"}[c.Intn(4)] },
		func(q *resource.Quantity, c randfill.Continue) {
			*q = *resource.NewQuantity(c.Int63n(1<<40), resource.DecimalSI)
		},
		func(t *metav1.Time, c randfill.Continue) { *t = metav1.Unix(c.Int63n(4e9), 0).Rfc3339Copy() },
		func(t *metav1.MicroTime, c randfill.Continue) {
			*t = metav1.NewMicroTime(time.Unix(c.Int63n(4e9), c.Int63n(1e6)*1e3))
		},
		func(x *intstr.IntOrString, c randfill.Continue) {
			switch c.Intn(6) {
			case 0, 1:
				*x = intstr.FromInt32(c.Int31n(100))
			case 2:
				*x = intstr.FromString(c.String(3))
			case 3:
				// JSON escapes these and replaces invalid UTF-8.
				*x = intstr.FromString([]string{"<a&b>", "\xff", "a\u2028", ""}[c.Intn(4)])
			case 4:
				// Equal to another by JSON, not by reflect.DeepEqual.
				*x = intstr.IntOrString{Type: intstr.Int, IntVal: c.Int31n(2), StrVal: "x"}
			default:
				*x = intstr.IntOrString{}
			}
		},
		func(tm *metav1.TypeMeta, c randfill.Continue) { *tm = metav1.TypeMeta{} },
		func(m *metav1.ObjectMeta, c randfill.Continue) {
			c.FillNoCustom(m)
			m.ManagedFields = nil
			m.DeletionTimestamp = nil
		},
		func(raw *runtime.RawExtension, c randfill.Continue) {
			*raw = runtime.RawExtension{}
			if c.Bool() {
				raw.Raw = []byte(`{"x":1}`)
			}
		},
	)
}

// TestUnvalidatedMatchesKube: for every shipped kind, creates, updates by
// the creator and by another manager, updates sending the live object
// back (managedFields included) and changing one top-level field,
// applies (forced or not), and writes whose live object holds
// a managedFields entry that is not a JSON object, on fuzzed objects
// (list-maps with repeated or empty keys, sets, atomic lists and structs,
// IntOrString, quantities, times), record exactly what kube-apiserver's
// field manager records, error for error.
func TestUnvalidatedMatchesKube(t *testing.T) {
	reg, kinds := shippedKinds(t)
	for _, k := range kinds {
		t.Run(k.GVK.String(), func(t *testing.T) {
			fast, err := reg.FieldManager(k, "")
			if err != nil {
				t.Fatal(err)
			}
			ref, err := fieldmanager.ReferenceFieldManager(reg, k, "")
			if err != nil {
				t.Fatal(err)
			}
			for seed := range int64(60) {
				fuzzWrites(t, k, fast, ref, fuzzer(seed))
			}
		})
	}
}

func fuzzWrites(t *testing.T, k fieldmanager.Kind, fast, ref *fieldmanager.FieldManager, f *randfill.Filler) {
	t.Helper()
	obj := func() runtime.Object {
		o := k.New()
		f.Fill(o)
		o.GetObjectKind().SetGroupVersionKind(k.GVK)
		return o
	}
	empty := k.New()
	empty.GetObjectKind().SetGroupVersionKind(k.GVK)
	created := obj()
	lf, lr := stepSame(t, "create", update(fast, created, "creator"), update(ref, created, "creator"), empty, empty.DeepCopyObject())
	next := obj()
	lf, lr = stepSame(t, "update by the creator", update(fast, next, "creator"), update(ref, next, "creator"), lf, lr)
	other := obj()
	lf, lr = stepSame(t, "update by another manager", update(fast, other, "other"), update(ref, other, "other"), lf, lr)
	// A client sending back what it read, managedFields included: every
	// field compares equal.
	back := lf.DeepCopyObject()
	lf, lr = stepSame(t, "update sending the live object back", update(fast, back, "reader"), update(ref, back, "reader"), lf, lr)
	// A client changing a few fields of what it read. Its name sorts after
	// the earlier managers', as its time does: entries are ordered by
	// time in seconds, then name, and the two sides may write in
	// different seconds.
	some := lf.DeepCopyObject()
	fillOneField(f, some)
	lf, lr = stepSame(t, "update changing one field", update(fast, some, "updater"), update(ref, some, "updater"), lf, lr)
	if u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj()); err == nil {
		cfg := &unstructured.Unstructured{Object: u}
		cfg.SetGroupVersionKind(k.GVK)
		stepSame(t, "apply", apply(fast, cfg, "applier"), apply(ref, cfg, "applier"), lf, lr)
		lf, lr = stepSame(t, "forced apply", applyForce(fast, cfg), applyForce(ref, cfg), lf, lr)
	}
	// An entry written into etcd by another program: kube's validation
	// refuses it, and so must this field manager. (Without a uid the
	// field manager tracks the write although the entries do not decode.)
	odd := func(o runtime.Object) runtime.Object {
		o = o.DeepCopyObject()
		m := o.(metav1.Object)
		m.SetUID("")
		m.SetManagedFields(append(m.GetManagedFields(), metav1.ManagedFieldsEntry{
			Manager: "odd", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: k.GVK.GroupVersion().String(),
			FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(`"x"`)},
		}))
		return o
	}
	last := obj()
	stepSame(t, "update over an odd entry", update(fast, last, "creator"), update(ref, last, "creator"), odd(lf), odd(lr))
}

func applyForce(fm *fieldmanager.FieldManager, cfg *unstructured.Unstructured) func(runtime.Object) (runtime.Object, error) {
	return func(live runtime.Object) (runtime.Object, error) {
		return fm.Apply(live, cfg.DeepCopy(), "applier", true)
	}
}

// stepSame is step, with the error of each side in the message.
func stepSame(t *testing.T, name string, fast, ref func(runtime.Object) (runtime.Object, error), liveFast, liveRef runtime.Object) (runtime.Object, runtime.Object) {
	t.Helper()
	_, errFast := fast(liveFast.DeepCopyObject())
	_, errRef := ref(liveRef.DeepCopyObject())
	if (errFast == nil) != (errRef == nil) {
		t.Fatalf("%s: errors differ: %v / %v", name, errFast, errRef)
	}
	return step(t, fmt.Sprint(name), fast, ref, liveFast, liveRef)
}

// fillOneField refills one top-level field of obj (spec, status or the
// like) with fuzzed values, leaving the rest as it was.
func fillOneField(f *randfill.Filler, obj runtime.Object) {
	v := reflect.ValueOf(obj).Elem()
	var fields []reflect.Value
	for i := range v.NumField() {
		if sf := v.Type().Field(i); !sf.Anonymous && sf.IsExported() {
			fields = append(fields, v.Field(i))
		}
	}
	var pick uint8
	f.Fill(&pick)
	if len(fields) > 0 {
		f.Fill(fields[int(pick)%len(fields)].Addr().Interface())
	}
}
