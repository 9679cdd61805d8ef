package fieldmanager_test

import (
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubeforge/kubeforge/runtime/fieldmanager"
	typesv1 "github.com/kubeforge/kubeforge/types/shipping/v1"
)

// TestCheckCollectionSizes: every list and map over the bound is named by
// its JSON path; []byte values and collections at the bound pass.
func TestCheckCollectionSizes(t *testing.T) {
	const max = fieldmanager.MaxCollectionItems
	many := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = fmt.Sprintf("example.com/f%d", i)
		}
		return out
	}
	cm := &corev1.ConfigMap{Data: map[string]string{}, BinaryData: map[string][]byte{"blob": make([]byte, 10*max)}}
	cm.Finalizers = many(max)
	for i := range max {
		cm.Data[fmt.Sprint(i)] = ""
	}
	if errs := CheckSizes(cm); len(errs) != 0 {
		t.Fatalf("a ConfigMap at the bound: %v", errs)
	}
	cm.Finalizers = many(max + 1)
	cm.Data["one-more"] = ""
	cm.Labels = map[string]string{"a": "b"}
	errs := CheckSizes(cm)
	if len(errs) != 2 || errs[0].Field != "metadata.finalizers" || errs[1].Field != "data" || errs[0].Error() != fmt.Sprintf("metadata.finalizers: Too many: %d: must have at most %d items", max+1, max) {
		t.Errorf("a ConfigMap over the bound: %v", errs)
	}

	sh := &typesv1.Shipment{}
	sh.Spec.Parcels = make([]typesv1.Parcel, max+5)
	if errs := CheckSizes(sh); len(errs) != 1 || errs[0].Field != "spec.parcels" {
		t.Errorf("a Shipment with %d parcels: %v", max+5, errs)
	}

	// The walk is linear: a million-item object is checked in well under
	// a second (it stops at the refused collection).
	sh.Spec.Parcels = make([]typesv1.Parcel, 1000000)
	start := time.Now()
	if errs := CheckSizes(sh); len(errs) != 1 || time.Since(start) > time.Second {
		t.Errorf("a million parcels: %v after %s", errs, time.Since(start))
	}
}

// CheckSizes is fieldmanager.CheckCollectionSizes.
var CheckSizes = fieldmanager.CheckCollectionSizes
