package tablecell

import (
	"sync"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

type thing struct {
	Status struct {
		Conditions []metav1.Condition `json:"conditions,omitempty"`
		Counts     []int32            `json:"counts,omitempty"`
	} `json:"status"`
}

// TestCell: filters, indexes and wildcards as kube's table convertor
// evaluates them, with its cell types; concurrent use is safe.
func TestCell(t *testing.T) {
	var o thing
	o.Status.Conditions = []metav1.Condition{
		{Type: "Synced", Status: "False", Reason: "Waiting"},
		{Type: "Ready", Status: "True", Reason: "Done", LastTransitionTime: metav1.Date(2024, 1, 2, 3, 4, 5, 0, metav1.Now().Location())},
	}
	o.Status.Counts = []int32{7, 8}
	for _, tc := range []struct {
		path, typ string
		want      any
	}{
		{`.status.conditions[?(@.type=="Ready")].status`, "string", "True"},
		{`.status.conditions[?(@.type=="Ready")].reason`, "string", "Done"},
		{`.status.conditions[?(@.type=="Gone")].status`, "string", nil},
		{`.status.conditions[*].type`, "string", "Synced"},
		{`.status.counts[1]`, "integer", int64(8)},
		{`.status.counts[0]`, "number", float64(7)},
		{`.status.counts[0]`, "boolean", nil},
		{`.status.conditions[?(@.type=="Ready")].lastTransitionTime`, "date", "2024-01-02T03:04:05Z"},
		{`.status.nope`, "string", nil},
	} {
		c := &Column{Name: "c", JSONPath: tc.path, Type: tc.typ}
		if err := Parse("c", tc.path); err != nil {
			t.Fatalf("parse %s: %v", tc.path, err)
		}
		if got := c.Cell(&o); got != tc.want {
			t.Errorf("%s (%s) = %#v, want %#v", tc.path, tc.typ, got, tc.want)
		}
	}
	if err := Parse("c", `.status.conditions[?(@.type=="Ready"`); err == nil {
		t.Error("an unterminated filter parses")
	}
	c := &Column{Name: "c", JSONPath: `.status.conditions[?(@.type=="Ready")].status`, Type: "string"}
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 200 {
				if got := c.Cell(&o); got != "True" {
					t.Errorf("concurrent cell %v", got)
					return
				}
			}
		}()
	}
	wg.Wait()
}
