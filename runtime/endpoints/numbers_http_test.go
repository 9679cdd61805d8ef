package endpoints_test

import (
	"net/http"
	"testing"
)

// TestIntegralFloatsInIntegerFields: a kind of yours takes an integral
// float for an integer field, as kube-apiserver takes it for a custom
// resource, and stores the integer; a fraction is still refused, and the
// error names the number as the client wrote it.
func TestIntegralFloatsInIntegerFields(t *testing.T) {
	ts := newServer(t)
	body := func(name, replicas string) string {
		return `{"apiVersion":"test.kubeforge.dev/v1","kind":"Widget","metadata":{"name":"` + name + `"},"spec":{"size":"small","replicas":` + replicas + `}}`
	}
	r := ts.do(t, "POST", widgetsPath("default"), jsonType, body("f1", "3.0"))
	if r.code != http.StatusCreated {
		t.Fatalf("create with replicas 3.0: %s", r)
	}
	if w := decodeWidget(t, r); w.Spec.Replicas == nil || *w.Spec.Replicas != 3 {
		t.Errorf("replicas 3.0 stored as %v", w.Spec.Replicas)
	}
	r = ts.do(t, "POST", widgetsPath("default"), "application/yaml", "apiVersion: test.kubeforge.dev/v1\nkind: Widget\nmetadata: {name: f2}\nspec: {size: small, replicas: 2.0e0}\n")
	if r.code != http.StatusCreated || *decodeWidget(t, r).Spec.Replicas != 2 {
		t.Fatalf("YAML create with replicas 2.0e0: %s", r)
	}
	r = ts.do(t, "POST", widgetsPath("default"), jsonType, body("f3", "2.5"))
	wantStatus(t, r, http.StatusBadRequest, "BadRequest", "cannot unmarshal number 2.5 into Go struct field")
	// The first error, with the number as written, when the retry fails on
	// something else too.
	r = ts.do(t, "POST", widgetsPath("default"), jsonType, `{"apiVersion":"test.kubeforge.dev/v1","kind":"Widget","metadata":{"name":"f4"},"spec":{"replicas":4.0,"size":7}}`)
	wantStatus(t, r, http.StatusBadRequest, "BadRequest", "cannot unmarshal number 4.0 into Go struct field")

	for _, tc := range []struct{ ct, body string }{
		{"application/merge-patch+json", `{"spec":{"replicas":5.0}}`},
		{"application/json-patch+json", `[{"op":"replace","path":"/spec/replicas","value":6e0}]`},
		{"application/strategic-merge-patch+json", `{"spec":{"replicas":7.00}}`},
	} {
		r = ts.do(t, "PATCH", widgetsPath("default")+"/f1", tc.ct, tc.body)
		if r.code != http.StatusOK {
			t.Errorf("%s %s: %s", tc.ct, tc.body, r)
		}
	}
	if w := decodeWidget(t, r); w.Spec.Replicas == nil || *w.Spec.Replicas != 7 {
		t.Errorf("after the patches, replicas %v, want 7", w.Spec.Replicas)
	}
	r = ts.do(t, "PATCH", widgetsPath("default")+"/f1?fieldManager=a&force=true", "application/apply-patch+yaml",
		"apiVersion: test.kubeforge.dev/v1\nkind: Widget\nmetadata: {name: f1}\nspec: {replicas: 8.0}\n")
	if r.code != http.StatusOK || *decodeWidget(t, r).Spec.Replicas != 8 {
		t.Errorf("apply with replicas 8.0: %s", r)
	}
}
