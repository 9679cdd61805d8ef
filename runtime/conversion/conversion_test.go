package conversion

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

type hub struct {
	Spec struct {
		Tags []string `json:"tags,omitempty"`
	} `json:"spec"`
}

func TestStoreLoad(t *testing.T) {
	meta := &metav1.ObjectMeta{}
	if err := Store(meta, map[string]any{"spec": map[string]any{"tags": []string{"a"}}}); err != nil {
		t.Fatal(err)
	}
	if got := meta.Annotations[DataAnnotation]; got != `{"spec":{"tags":["a"]}}` {
		t.Fatalf("annotation = %q", got)
	}
	var h hub
	raw, ok := Load(meta, &h)
	if !ok {
		t.Fatal("Load = false, want true")
	}
	if !Has(Object(raw, "spec"), "tags") || Has(Object(raw, "spec"), "other") || len(Items(Object(raw, "spec"), "tags")) != 1 || Item(Items(raw, "x"), 0) != nil {
		t.Fatalf("raw = %v", raw)
	}
	if len(h.Spec.Tags) != 1 || h.Spec.Tags[0] != "a" {
		t.Fatalf("decoded %+v", h)
	}
	if meta.Annotations != nil {
		t.Fatalf("annotations after Load = %v, want nil", meta.Annotations)
	}
}

func TestLoadGarbageAndMissing(t *testing.T) {
	meta := &metav1.ObjectMeta{Annotations: map[string]string{DataAnnotation: "{not json", "keep": "x"}}
	var h hub
	if _, ok := Load(meta, &h); ok {
		t.Fatal("Load of garbage = true")
	}
	if _, ok := meta.Annotations[DataAnnotation]; ok || meta.Annotations["keep"] != "x" {
		t.Fatalf("annotations after Load = %v", meta.Annotations)
	}
	if _, ok := Load(&metav1.ObjectMeta{}, &h); ok {
		t.Fatal("Load without annotation = true")
	}
}

func TestStoreEmptyRemoves(t *testing.T) {
	meta := &metav1.ObjectMeta{Annotations: map[string]string{DataAnnotation: "{}"}}
	if err := Store(meta, nil); err != nil {
		t.Fatal(err)
	}
	if meta.Annotations != nil {
		t.Fatalf("annotations = %v, want nil", meta.Annotations)
	}
}

// TestConvertibleError: a conversion method's error, however wrapped, is
// kube's answer to a failing conversion webhook (500, no reason), and
// RestoreMeta keeps the original metadata but labels and annotations.
func TestConvertibleError(t *testing.T) {
	gvk := schema.GroupVersionKind{Group: "batch.example.dev", Version: "v2", Kind: "CronJob"}
	err := fmt.Errorf("apply: %w", Convertible(gvk, errors.New("bad schedule")))
	var st apierrors.APIStatus
	if !errors.As(err, &st) || st.Status().Code != 500 || st.Status().Reason != "" ||
		st.Status().Message != "conversion webhook for batch.example.dev/v2, Kind=CronJob failed: bad schedule" {
		t.Errorf("status of %v: %+v", err, st)
	}
	if Convertible(gvk, nil) != nil {
		t.Error("Convertible(nil) is not nil")
	}
	in := &metav1.ObjectMeta{Name: "a", Namespace: "ns", UID: "u", ResourceVersion: "7", Labels: map[string]string{"x": "1"}}
	out := &metav1.ObjectMeta{Name: "a", Namespace: "ns", UID: "other", Labels: map[string]string{"y": "2"}}
	if err := RestoreMeta(gvk, in, out); err != nil || out.UID != "u" || out.ResourceVersion != "7" || out.Labels["y"] != "2" || out.Labels["x"] != "" {
		t.Errorf("RestoreMeta: %v %+v", err, out)
	}
	if err := RestoreMeta(gvk, in, &metav1.ObjectMeta{Name: "b", Namespace: "ns"}); err == nil || !strings.Contains(err.Error(), `must have the same name: "a" != "b"`) {
		t.Errorf("RestoreMeta of a renamed object: %v", err)
	}
}
