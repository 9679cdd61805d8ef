package openapidefs

import (
	"encoding/json"
	"testing"
)

func TestSchemasDecodeAndResolve(t *testing.T) {
	all, err := parse()
	if err != nil {
		t.Fatal(err)
	}
	if len(all) < 20 {
		t.Fatalf("only %d well-known schemas", len(all))
	}
	for name, raw := range all {
		var s struct{ Description string }
		if err := json.Unmarshal(raw, &s); err != nil {
			t.Errorf("decode %s: %v", name, err)
		}
		if s.Description == "" {
			t.Errorf("%s has no description", name)
		}
	}
	if _, err := Closure(all, keys(all)...); err != nil {
		t.Fatal(err)
	}
}

func TestCommonSchemas(t *testing.T) {
	common := CommonSchemas()
	for _, n := range []string{Status, StatusDetails, StatusCause, DeleteOptions, Preconditions, WatchEvent, Patch, APIResourceList, APIResource, ListMeta, ObjectMeta, Time, RawExtension} {
		if _, ok := common[n]; !ok {
			t.Errorf("CommonSchemas lacks %s", n)
		}
	}
	if _, err := Closure(common, keys(common)...); err != nil {
		t.Fatalf("CommonSchemas is not closed under $ref: %v", err)
	}
	var st struct{ Properties map[string]json.RawMessage }
	if err := json.Unmarshal(common[Status], &st); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"kind", "apiVersion", "metadata", "status", "message", "reason", "details", "code"} {
		if _, ok := st.Properties[p]; !ok {
			t.Errorf("Status lacks property %q", p)
		}
	}
}

func TestWellKnownShapes(t *testing.T) {
	all := KnownSchemas()
	get := func(n string) map[string]any {
		var m map[string]any
		if err := json.Unmarshal(all[n], &m); err != nil {
			t.Fatalf("decode %s: %v", n, err)
		}
		return m
	}
	if m := get(Time); m["type"] != "string" || m["format"] != "date-time" {
		t.Errorf("Time: %v %v", m["type"], m["format"])
	}
	if m := get(Duration); m["type"] != "string" {
		t.Errorf("Duration: %v", m["type"])
	}
	if m := get(FieldsV1); m["type"] != "object" {
		t.Errorf("FieldsV1: %v", m["type"])
	}
	for _, n := range []string{Quantity, IntOrString} {
		m := get(n)
		if m["x-kubernetes-int-or-string"] != true || len(m["anyOf"].([]any)) != 2 {
			t.Errorf("%s: not int-or-string: %v", n, m)
		}
	}
	if m := get(Quantity); m["pattern"] == nil {
		t.Errorf("Quantity has no pattern")
	}
	// kube-openapi v3 never puts siblings next to $ref.
	for n, raw := range all {
		var v any
		_ = json.Unmarshal(raw, &v)
		checkNoRefSiblings(t, n, v)
	}
}

func checkNoRefSiblings(t *testing.T, name string, v any) {
	switch v := v.(type) {
	case map[string]any:
		if _, ok := v["$ref"]; ok && len(v) > 1 {
			t.Errorf("%s: $ref with siblings: %v", name, v)
		}
		for _, x := range v {
			checkNoRefSiblings(t, name, x)
		}
	case []any:
		for _, x := range v {
			checkNoRefSiblings(t, name, x)
		}
	}
}

func TestNames(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{Name("k8s.io/apimachinery/pkg/apis/meta/v1", "ObjectMeta"), ObjectMeta},
		{Name("k8s.io/apimachinery/pkg/api/resource", "Quantity"), Quantity},
		{Name("github.com/acme/api/types/x/v1", "T"), "com.github.acme.api.types.x.v1.T"},
		{LocalName("shipping.kubeforge.dev", "v1", "Shipment"), "dev.kubeforge.shipping.v1.Shipment"},
		{Ref("a.B"), "#/components/schemas/a.B"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
	if _, err := Closure(map[string]json.RawMessage{"a": json.RawMessage(`{"$ref":"#/components/schemas/b"}`)}, "a"); err == nil {
		t.Error("Closure accepted a dangling ref")
	}
}

func keys(m map[string]json.RawMessage) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}
