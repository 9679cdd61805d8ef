package conversion

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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
