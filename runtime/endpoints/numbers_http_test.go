package endpoints_test

import (
	"net/http"
	"strings"
	"testing"
)

// TestIntegralFloatsInIntegerFields: a kind of yours takes an integral
// float for an integer field, as kube-apiserver takes it for a custom
// resource, and stores the integer; a fraction is still refused, with
// kube's words.
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
	// A fraction is a number, not an integer (kube's 422 for a custom
	// resource); an integral float next to another field's wrong type is
	// not reported.
	r = ts.do(t, "POST", widgetsPath("default"), jsonType, body("f3", "2.5"))
	// kube-openapi checks the published format first: the type error names
	// int32 and the Go type of the value, and its range check adds a cause.
	wantStatus(t, r, http.StatusUnprocessableEntity, "Invalid", `[spec.replicas: Invalid value: "float64": spec.replicas in body must be of type int32: "float64", <nil>: Invalid value: "": Checked value must be of type integer with format int32 in spec.replicas]`)
	r = ts.do(t, "POST", widgetsPath("default"), jsonType, `{"apiVersion":"test.kubeforge.dev/v1","kind":"Widget","metadata":{"name":"f4"},"spec":{"replicas":4.0,"size":7}}`)
	st := wantStatus(t, r, http.StatusUnprocessableEntity, "Invalid", `Widget.test.kubeforge.dev "f4" is invalid: spec.size: Invalid value: "integer": spec.size in body must be of type string: "integer"`)
	if st.Details == nil || len(st.Details.Causes) != 1 {
		t.Errorf("f4: causes %+v, want spec.size's alone", st.Details)
	}

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

// TestTypeErrors: a body whose values have the wrong types is kube's 422
// for a custom resource, one cause per field with its path (list indexes
// and map keys included), and nothing is stored.
func TestTypeErrors(t *testing.T) {
	ts := newServer(t)
	body := `{"apiVersion":"test.kubeforge.dev/v1","kind":"Widget",` +
		`"metadata":{"name":"t1","labels":{"a":"ok","b":5},"creationTimestamp":7},` +
		`"spec":{"size":["x"],"replicas":true,"ports":[{"name":"a","port":80},{"name":"b","port":"http"},"c"]},` +
		`"status":{"readyAt":{"t":1}}}`
	r := ts.do(t, "POST", widgetsPath("default"), jsonType, body)
	st := wantStatus(t, r, http.StatusUnprocessableEntity, "Invalid", `Widget.test.kubeforge.dev "t1" is invalid: [`)
	want := map[string]string{
		"metadata.labels[b]":         `Invalid value: "integer": metadata.labels[b] in body must be of type string: "integer"`,
		"metadata.creationTimestamp": `Invalid value: "integer": metadata.creationTimestamp in body must be of type string: "integer"`,
		"spec.size":                  `Invalid value: "array": spec.size in body must be of type string: "array"`,
		"spec.replicas":              `Invalid value: "": spec.replicas in body must be of type int32: ""`, // a boolean fails the format first
		"spec.ports[1].port":         `Invalid value: "string": spec.ports[1].port in body must be of type integer: "string"`,
		"spec.ports[2]":              `Invalid value: "string": spec.ports[2] in body must be of type object: "string"`,
		"status.readyAt":             `Invalid value: "object": status.readyAt in body must be of type string: "object"`,
	}
	got := map[string]string{}
	if st.Details != nil {
		for _, c := range st.Details.Causes {
			got[c.Field] = c.Message
			// kube's reason for a custom resource's value of the wrong type.
			if c.Type != "FieldValueTypeInvalid" {
				t.Errorf("cause %s: type %q, want FieldValueTypeInvalid", c.Field, c.Type)
			}
		}
	}
	for f, m := range want {
		if got[f] != m {
			t.Errorf("cause %s: %q, want %q", f, got[f], m)
		}
	}
	if len(got) != len(want) {
		t.Errorf("causes %v, want exactly %v", got, want)
	}
	r = ts.do(t, "GET", widgetsPath("default")+"/t1", "", "")
	wantStatus(t, r, http.StatusNotFound, "NotFound", "not found")

	// Unknown fields beside a wrong type: kube's decoder finds them first,
	// so Strict is its 400 and Warn sends them as warnings with the 422.
	mixed := `{"apiVersion":"test.kubeforge.dev/v1","kind":"Widget","metadata":{"name":"m1"},"spec":{"replicas":"x","nope":1}}`
	r = ts.do(t, "POST", widgetsPath("default")+"?fieldValidation=Strict", jsonType, mixed)
	wantStatus(t, r, http.StatusBadRequest, "BadRequest", `strict decoding error: unknown field "spec.nope"`)
	r = ts.do(t, "POST", widgetsPath("default")+"?fieldValidation=Warn", jsonType, mixed)
	wantStatus(t, r, http.StatusUnprocessableEntity, "Invalid", `spec.replicas in body must be of type integer: "string"`)
	if w := r.header.Get("Warning"); !strings.Contains(w, `unknown field \"spec.nope\"`) {
		t.Errorf("Warn: Warning header %q, want the unknown field", w)
	}
	r = ts.do(t, "POST", widgetsPath("default")+"?fieldValidation=Ignore", jsonType, mixed)
	wantStatus(t, r, http.StatusUnprocessableEntity, "Invalid", `spec.replicas in body must be of type integer: "string"`)

	// An apply configuration with the wrong types: the same 422.
	r = ts.do(t, "PATCH", widgetsPath("default")+"/a1?fieldManager=a", "application/apply-patch+yaml",
		"apiVersion: test.kubeforge.dev/v1\nkind: Widget\nmetadata: {name: a1}\nspec: {replicas: many, ports: [{name: a, port: [80]}]}\n")
	st = wantStatus(t, r, http.StatusUnprocessableEntity, "Invalid", `Widget.test.kubeforge.dev "a1" is invalid: [`)
	if st.Details == nil || len(st.Details.Causes) != 2 {
		t.Errorf("apply with two wrong types: %+v, want two causes", st.Details)
	}

	// A patch whose result has the wrong types, of each patch type.
	for _, tc := range []struct{ ct, body string }{
		{"application/merge-patch+json", `{"spec":{"ports":[{"name":"a","port":"http"}]}}`},
		{"application/json-patch+json", `[{"op":"add","path":"/spec/ports","value":[{"name":"a","port":"http"}]}]`},
		{"application/strategic-merge-patch+json", `{"spec":{"ports":[{"name":"a","port":"http"}]}}`},
	} {
		ts.createWidget(t, "default", "t3", `{"size":"small"}`)
		r = ts.do(t, "PATCH", widgetsPath("default")+"/t3", tc.ct, tc.body)
		wantStatus(t, r, http.StatusUnprocessableEntity, "Invalid", `Widget.test.kubeforge.dev "t3" is invalid: spec.ports[0].port: Invalid value: "string": spec.ports[0].port in body must be of type integer: "string"`)
		ts.do(t, "DELETE", widgetsPath("default")+"/t3", "", "")
	}

	// An update's body too; an int32 out of range is the range check's
	// error, as kube-apiserver's for a custom resource.
	ts.createWidget(t, "default", "t2", `{"size":"small"}`)
	r = ts.do(t, "PUT", widgetsPath("default")+"/t2", jsonType, `{"apiVersion":"test.kubeforge.dev/v1","kind":"Widget","metadata":{"name":"t2","resourceVersion":"1"},"spec":{"replicas":3000000000}}`)
	wantStatus(t, r, http.StatusUnprocessableEntity, "Invalid", `<nil>: Invalid value: "": Checked value must be of type integer with format int32 in spec.replicas`)
}

// TestFormatErrors: a time metav1.Time does not parse and a quantity
// resource.Quantity does not parse are the schema's 422 (format date-time,
// the quantity pattern), as for a custom resource.
func TestFormatErrors(t *testing.T) {
	ts := newServer(t)
	r := ts.do(t, "POST", widgetsPath("default"), jsonType, `{"apiVersion":"test.kubeforge.dev/v1","kind":"Widget","metadata":{"name":"d1"},"status":{"readyAt":"2026-01-01"}}`)
	wantStatus(t, r, http.StatusUnprocessableEntity, "Invalid", `status.readyAt: Invalid value: "2026-01-01": status.readyAt in body must be of type date-time: "2026-01-01"`)
	// A fraction of a second beyond microseconds, and a zone offset: a
	// time metav1.Time takes.
	ts.createWidget(t, "default", "d3", `{"size":"small"}`)
	r = ts.do(t, "PATCH", widgetsPath("default")+"/d3/status", "application/merge-patch+json", `{"status":{"readyAt":"2026-01-01T10:00:00.1234567+02:00"}}`)
	if r.code != http.StatusOK {
		t.Errorf("status patch with an RFC 3339 time: %s", r)
	}
	r = ts.do(t, "PATCH", widgetsPath("default")+"/d3/status", "application/merge-patch+json", `{"status":{"readyAt":"yesterday"}}`)
	wantStatus(t, r, http.StatusUnprocessableEntity, "Invalid", `status.readyAt in body must be of type date-time: "yesterday"`)
}
