package validate

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/api/validation/path"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// nameFuncs are the name functions the generator emits, and one it does
// not (a wrapper of NameIsDNSSubdomain that must take apimachinery's path).
var nameFuncs = []struct {
	name  string
	fn    apivalidation.ValidateNameFunc
	known bool
}{
	{"NameIsDNSSubdomain", apivalidation.NameIsDNSSubdomain, true},
	{"NameIsDNSLabel", apivalidation.NameIsDNSLabel, true},
	{"NameIsDNS1035Label", apivalidation.NameIsDNS1035Label, true},
	{"ValidatePathSegmentName", path.ValidatePathSegmentName, true},
	{"wrapper", func(name string, prefix bool) []string {
		return append(apivalidation.NameIsDNSSubdomain(name, prefix), "refused by the wrapper")
	}, false},
}

// TestObjectMetaNameRules: the known functions are recognized by their
// code pointer, any other is not.
func TestObjectMetaNameRules(t *testing.T) {
	for _, nf := range nameFuncs {
		if got := ruleOf(nf.fn) != unknownRule; got != nf.known {
			t.Errorf("%s: known = %v, want %v", nf.name, got, nf.known)
		}
	}
	if ruleOf(apivalidation.ValidateNamespaceName) != dnsLabelRule {
		t.Errorf("ValidateNamespaceName is not the DNS label rule")
	}
	if ruleOf(nil) != unknownRule {
		t.Errorf("a nil name function is known")
	}
}

// TestObjectMetaPredicates compares each byte loop with the apimachinery
// function it stands for, on adversarial and random strings.
func TestObjectMetaPredicates(t *testing.T) {
	g := newMetaGen(1)
	strs := adversarialStrings()
	for range 30000 {
		strs = append(strs, g.anyString())
	}
	valid := map[string]int{}
	check := func(what, s string, got, want bool) {
		t.Helper()
		if got != want {
			t.Errorf("%s(%q) = %v, apimachinery says %v", what, s, got, want)
		}
		if got {
			valid[what]++
		}
	}
	for _, s := range strs {
		check("label key", s, isQualifiedName(s, false), len(validation.IsQualifiedName(s)) == 0)
		check("label value", s, s == "" || isLabelName(s), len(validation.IsValidLabelValue(s)) == 0)
		check("annotation key", s, annotationsValid(map[string]string{s: ""}),
			len(apivalidation.ValidateAnnotations(map[string]string{s: ""}, field.NewPath("a"))) == 0)
		ref := metav1.OwnerReference{APIVersion: s, Kind: "K", Name: "n", UID: "u"}
		check("owner apiVersion", s, ownerReferencesValid([]metav1.OwnerReference{ref}),
			len(apivalidation.ValidateOwnerReferences([]metav1.OwnerReference{ref}, field.NewPath("o"))) == 0)
		mf := metav1.ManagedFieldsEntry{Manager: s, Operation: metav1.ManagedFieldsOperationUpdate}
		check("manager", s, managedFieldsValid([]metav1.ManagedFieldsEntry{mf}),
			len(metav1validation.ValidateManagedFields([]metav1.ManagedFieldsEntry{mf}, field.NewPath("m"))) == 0)
		for _, nf := range nameFuncs[:4] {
			rule := ruleOf(nf.fn)
			check(nf.name, s, rule.valid(s, false), len(nf.fn(s, false)) == 0)
			check(nf.name+" prefix", s, rule.valid(s, true), len(nf.fn(s, true)) == 0)
		}
	}
	// Every predicate must have accepted a good share, or the comparison
	// above says little.
	for _, what := range []string{"label key", "label value", "annotation key", "owner apiVersion", "manager",
		"NameIsDNSSubdomain", "NameIsDNSLabel prefix", "NameIsDNS1035Label", "ValidatePathSegmentName prefix"} {
		if valid[what] < 1000 {
			t.Errorf("%s: only %d of %d strings valid", what, valid[what], len(strs))
		}
	}
}

// TestObjectMetaParity: on random and adversarial metadata, with each
// name function and both scopes, ObjectMeta returns what
// ValidateObjectMeta returns, and the fast verdict is "valid" exactly
// when apimachinery finds nothing.
func TestObjectMetaParity(t *testing.T) {
	g := newMetaGen(2)
	metas := adversarialMetas()
	for range 6000 {
		metas = append(metas, g.meta())
	}
	validCount, invalidCount := 0, 0
	for _, m := range metas {
		for _, nf := range nameFuncs {
			for _, namespaced := range []bool{true, false} {
				if checkParity(t, m, namespaced, nf.fn, nf.known) {
					validCount++
				} else {
					invalidCount++
				}
			}
		}
		if t.Failed() {
			return
		}
	}
	t.Logf("%d metadata: %d valid and %d invalid cases", len(metas), validCount, invalidCount)
	if validCount < len(metas) || invalidCount < len(metas) {
		t.Errorf("%d valid and %d invalid cases: the generator no longer covers both", validCount, invalidCount)
	}
}

// checkParity fails t where ObjectMeta and ValidateObjectMeta differ and
// reports whether apimachinery found m valid.
func checkParity(t testing.TB, m *metav1.ObjectMeta, namespaced bool, nameFn apivalidation.ValidateNameFunc, known bool) bool {
	t.Helper()
	fld := field.NewPath("metadata")
	want := apivalidation.ValidateObjectMeta(m, namespaced, nameFn, fld)
	got := ObjectMeta(m, namespaced, nameFn, fld)
	if !reflect.DeepEqual(sortedErrors(got), sortedErrors(want)) {
		t.Errorf("namespaced=%v %#v:\n got %v\nwant %v", namespaced, m, got, want)
	}
	if fast := objectMetaValid(m, namespaced, nameFn); known && fast != (len(want) == 0) {
		t.Errorf("namespaced=%v %#v: fast path says valid=%v, apimachinery %v", namespaced, m, fast, want)
	}
	return len(want) == 0
}

// TestObjectMetaAllocations: valid metadata, with a generateName masked
// on the stack, costs no allocation.
func TestObjectMetaAllocations(t *testing.T) {
	m := shipmentMeta()
	m.GenerateName = "s-"
	fld := field.NewPath("metadata")
	for _, nf := range nameFuncs[:4] {
		if allocs := testing.AllocsPerRun(100, func() {
			if errs := ObjectMeta(m, true, nf.fn, fld); errs != nil {
				t.Fatalf("%s: %v", nf.name, errs)
			}
		}); allocs != 0 {
			t.Errorf("%s: %v allocations per call", nf.name, allocs)
		}
	}
}

// sortedErrors orders a copy of errs: apimachinery ranges over labels and
// annotations, so two calls list their errors in different orders.
func sortedErrors(errs field.ErrorList) field.ErrorList {
	if errs == nil {
		return nil
	}
	sorted := slices.Clone(errs)
	slices.SortStableFunc(sorted, func(a, b *field.Error) int { return strings.Compare(a.Error(), b.Error()) })
	return sorted
}

// FuzzObjectMeta builds metadata from fuzzed strings (every field
// ValidateObjectMeta looks at) and checks parity.
func FuzzObjectMeta(f *testing.F) {
	f.Add("s-1", "", "ns", "example.com/app", "v", "kubectl.kubernetes.io/last-applied", "example.com/f", "kubectl", "Update", "FieldsV1", "v1", "Shipment", uint8(0))
	f.Add("a-", "a-", "a.b", "A/b", "-v", "\u212Aey", "orphan", "m\x7f", "Apply", "", "/v1", "Event", uint8(0xff))
	f.Add("..", "--", "", "a/b/c", strings.Repeat("v", 64), "Example.COM/x", "foregroundDeletion", "", "apply", "FieldsV2", "apps/", "", uint8(0x5a))
	f.Fuzz(func(t *testing.T, name, generateName, namespace, labelKey, labelValue, annotationKey, finalizer, manager, operation, fieldsType, apiVersion, kind string, flags uint8) {
		controller := flags&1 != 0
		m := &metav1.ObjectMeta{
			Name: name, GenerateName: generateName, Namespace: namespace,
			Labels:          map[string]string{labelKey: labelValue},
			Annotations:     map[string]string{annotationKey: labelValue},
			Finalizers:      []string{finalizer},
			ManagedFields:   []metav1.ManagedFieldsEntry{{Manager: manager, Operation: metav1.ManagedFieldsOperationType(operation), FieldsType: fieldsType}},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: apiVersion, Kind: kind, Name: "o", UID: "u", Controller: &controller}},
		}
		if flags&2 != 0 {
			m.Finalizers = append(m.Finalizers, metav1.FinalizerDeleteDependents)
		}
		if flags&4 != 0 {
			m.OwnerReferences = append(m.OwnerReferences, metav1.OwnerReference{APIVersion: "v1", Kind: "K", Name: "p", UID: "w", Controller: &controller})
		}
		if flags&8 != 0 {
			m.Generation = -1
		}
		nf := nameFuncs[int(flags>>4)%len(nameFuncs)]
		checkParity(t, m, flags&0x80 != 0, nf.fn, nf.known)
	})
}

// BenchmarkObjectMeta: apimachinery's ValidateObjectMeta against
// ObjectMeta on the metadata of a Shipment cmd/bench updates, and of one
// a controller owns too.
func BenchmarkObjectMeta(b *testing.B) {
	fns := map[string]func(*metav1.ObjectMeta, bool, apivalidation.ValidateNameFunc, *field.Path) field.ErrorList{
		"apimachinery": apivalidation.ValidateObjectMeta,
		"fast":         ObjectMeta,
	}
	metas := map[string]*metav1.ObjectMeta{"bench": benchMeta(), "controlled": shipmentMeta()}
	for _, meta := range []string{"bench", "controlled"} {
		for _, name := range []string{"apimachinery", "fast"} {
			m, fn := metas[meta], fns[name]
			b.Run(meta+"/"+name, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if errs := fn(m, true, apivalidation.NameIsDNSSubdomain, field.NewPath("metadata")); len(errs) > 0 {
						b.Fatal(errs)
					}
				}
			})
		}
	}
}

// benchMeta is the metadata of a Shipment cmd/bench updates: one label,
// one manager.
func benchMeta() *metav1.ObjectMeta {
	ts := metav1.Now()
	fields := metav1.FieldsV1{Raw: []byte(`{"f:metadata":{"f:labels":{".":{},"f:bench":{}}},"f:spec":{".":{},"f:destination":{},"f:weight":{}}}`)}
	return &metav1.ObjectMeta{
		Name: "s-000123", Namespace: "bench-0", UID: types.UID("7c1e2a9e-5d8b-4f3e-9a61-2b9f0c3d4e5f"),
		ResourceVersion: "12345", Generation: 1, CreationTimestamp: ts,
		Labels: map[string]string{"bench": "true"},
		ManagedFields: []metav1.ManagedFieldsEntry{
			{Manager: "bench", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "shipping.example.com/v1", Time: &ts, FieldsType: "FieldsV1", FieldsV1: &fields},
		},
	}
}

// shipmentMeta is what cmd/bench's updates carry and a controller adds:
// labels, annotations (with kubectl's last-applied configuration), two
// managers, an owner, a finalizer.
func shipmentMeta() *metav1.ObjectMeta {
	yes := true
	ts := metav1.Now()
	fields := metav1.FieldsV1{Raw: []byte(`{"f:metadata":{"f:labels":{"f:bench":{}}},"f:spec":{"f:destination":{},"f:weight":{}}}`)}
	return &metav1.ObjectMeta{
		Name: "s-000123", Namespace: "bench-0", UID: types.UID("7c1e2a9e-5d8b-4f3e-9a61-2b9f0c3d4e5f"),
		ResourceVersion: "12345", Generation: 3, CreationTimestamp: ts,
		Labels: map[string]string{"bench": "true", "app.kubernetes.io/name": "shipping", "tier": "backend"},
		Annotations: map[string]string{
			"kubectl.kubernetes.io/last-applied-configuration": `{"apiVersion":"shipping.example.com/v1","kind":"Shipment","metadata":{"name":"s-000123","namespace":"bench-0"},"spec":{"destination":"Urgent","weight":5}}`,
			"example.com/note": "rush order",
		},
		OwnerReferences: []metav1.OwnerReference{{APIVersion: "shipping.example.com/v1", Kind: "Order", Name: "o-000123", UID: "1f0e9d8c-7b6a-5f4e-3d2c-1b0a9f8e7d6c", Controller: &yes, BlockOwnerDeletion: &yes}},
		Finalizers:      []string{"shipping.example.com/cleanup"},
		ManagedFields: []metav1.ManagedFieldsEntry{
			{Manager: "bench", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "shipping.example.com/v1", Time: &ts, FieldsType: "FieldsV1", FieldsV1: &fields},
			{Manager: "shipment-controller", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "shipping.example.com/v1", Time: &ts, FieldsType: "FieldsV1", FieldsV1: &fields, Subresource: "status"},
		},
	}
}
