package openapi_test

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/kubeforge/kubeforge/generators/openapi"
	acceptancev1 "github.com/kubeforge/kubeforge/generators/openapi/testdata/generated/acceptance/v1"
	"github.com/kubeforge/kubeforge/runtime/openapidefs"
)

// schema is the subset of OpenAPI v3 (as Kubernetes serves it) the
// generator may emit. Decoding with DisallowUnknownFields catches misspelt
// keywords and wrong JSON types (exclusiveMinimum must be a boolean, ...).
type schema struct {
	Ref                  string             `json:"$ref"`
	Description          string             `json:"description"`
	Title                string             `json:"title"`
	Example              any                `json:"example"`
	ExternalDocs         *externalDocs      `json:"externalDocs"`
	Type                 string             `json:"type"`
	Format               string             `json:"format"`
	Properties           map[string]*schema `json:"properties"`
	AdditionalProperties *schema            `json:"additionalProperties"`
	Items                *schema            `json:"items"`
	AllOf                []*schema          `json:"allOf"`
	AnyOf                []*schema          `json:"anyOf"`
	Required             []string           `json:"required"`
	Default              any                `json:"default"`
	Enum                 []any              `json:"enum"`
	Minimum              *float64           `json:"minimum"`
	Maximum              *float64           `json:"maximum"`
	ExclusiveMinimum     bool               `json:"exclusiveMinimum"`
	ExclusiveMaximum     bool               `json:"exclusiveMaximum"`
	MultipleOf           *float64           `json:"multipleOf"`
	MinLength            *int64             `json:"minLength"`
	MaxLength            *int64             `json:"maxLength"`
	Pattern              string             `json:"pattern"`
	MinItems             *int64             `json:"minItems"`
	MaxItems             *int64             `json:"maxItems"`
	UniqueItems          bool               `json:"uniqueItems"`
	MinProperties        *int64             `json:"minProperties"`
	MaxProperties        *int64             `json:"maxProperties"`
	GVK                  []struct {
		Group, Version, Kind string
	} `json:"x-kubernetes-group-version-kind"`
	ListType              string   `json:"x-kubernetes-list-type"`
	ListMapKeys           []string `json:"x-kubernetes-list-map-keys"`
	MapType               string   `json:"x-kubernetes-map-type"`
	IntOrString           bool     `json:"x-kubernetes-int-or-string"`
	EmbeddedResource      bool     `json:"x-kubernetes-embedded-resource"`
	PreserveUnknownFields bool     `json:"x-kubernetes-preserve-unknown-fields"`
	Validations           []struct {
		Rule, Message string
	} `json:"x-kubernetes-validations"`
	Patch    string `json:"x-kubernetes-patch-strategy"`
	PatchKey string `json:"x-kubernetes-patch-merge-key"`
	Unions   any    `json:"x-kubernetes-unions"`
}

type externalDocs struct {
	URL         string `json:"url"`
	Description string `json:"description"`
}

func decodeStrict(t *testing.T, name string, raw json.RawMessage) *schema {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(raw))
	d.DisallowUnknownFields()
	var s schema
	if err := d.Decode(&s); err != nil {
		t.Fatalf("decode schema %s: %v", name, err)
	}
	return &s
}

// checkRefs walks s and reports every $ref that does not resolve, and every
// $ref with siblings (kube-openapi v3 wraps those in allOf).
func checkRefs(t *testing.T, name string, s *schema, defined func(string) bool) {
	t.Helper()
	if s == nil {
		return
	}
	if s.Ref != "" {
		if !strings.HasPrefix(s.Ref, openapidefs.RefPrefix) || !defined(strings.TrimPrefix(s.Ref, openapidefs.RefPrefix)) {
			t.Errorf("%s: unresolved $ref %q", name, s.Ref)
		}
		if !reflect.DeepEqual(*s, schema{Ref: s.Ref}) {
			t.Errorf("%s: $ref %q has siblings", name, s.Ref)
		}
	}
	for p, c := range s.Properties {
		checkRefs(t, name+"."+p, c, defined)
	}
	checkRefs(t, name+"[additionalProperties]", s.AdditionalProperties, defined)
	checkRefs(t, name+"[items]", s.Items, defined)
	for _, c := range append(append([]*schema(nil), s.AllOf...), s.AnyOf...) {
		checkRefs(t, name, c, defined)
	}
}

func TestGoldenSchemasValidate(t *testing.T) {
	got := acceptancev1.OpenAPISchemas()
	common := openapidefs.CommonSchemas()
	defined := func(n string) bool {
		_, a := got[n]
		_, b := common[n]
		return a || b
	}
	decoded := map[string]*schema{}
	for n, raw := range got {
		if !json.Valid(raw) {
			t.Fatalf("%s: invalid JSON", n)
		}
		s := decodeStrict(t, n, raw)
		decoded[n] = s
		checkRefs(t, n, s, defined)
		if s.Description == "" {
			t.Errorf("%s has no description", n)
		}
		for _, r := range s.Required {
			if _, ok := s.Properties[r]; !ok {
				t.Errorf("%s: required %q is not a property", n, r)
			}
		}
	}

	const gv = "dev.example.acceptance.v1."
	for _, k := range []string{"Gadget", "GadgetList", "Zone", "ZoneList"} {
		s := decoded[gv+k]
		if s == nil {
			t.Fatalf("no schema %s", gv+k)
		}
		if len(s.GVK) != 1 || s.GVK[0].Group != "acceptance.example.dev" || s.GVK[0].Version != "v1" || s.GVK[0].Kind != k {
			t.Errorf("%s: x-kubernetes-group-version-kind = %+v", k, s.GVK)
		}
		for _, p := range []string{"apiVersion", "kind"} {
			if s.Properties[p] == nil || s.Properties[p].Type != "string" {
				t.Errorf("%s.%s is not a string property", k, p)
			}
		}
		meta := s.Properties["metadata"]
		want := openapidefs.Ref(openapidefs.ObjectMeta)
		if strings.HasSuffix(k, "List") {
			want = openapidefs.Ref(openapidefs.ListMeta)
		}
		if meta == nil || len(meta.AllOf) != 1 || meta.AllOf[0].Ref != want || meta.Description == "" {
			t.Errorf("%s.metadata = %+v, want allOf %s with a description", k, meta, want)
		}
	}
	if items := decoded[gv+"ZoneList"].Properties["items"]; items == nil || items.Items == nil || items.Items.Ref != openapidefs.Ref(gv+"Zone") {
		t.Errorf("ZoneList.items = %+v", items)
	}

	spec := decoded[gv+"GadgetSpec"]
	size := spec.Properties["size"]
	if !reflect.DeepEqual(size.Enum, []any{"small", "medium", "large"}) || size.Default != "medium" || size.Type != "string" {
		t.Errorf("size = %+v", size)
	}
	rep := spec.Properties["replicas"]
	if rep.Minimum == nil || *rep.Minimum != 0 || rep.Maximum == nil || *rep.Maximum != 100 ||
		rep.Type != "integer" || rep.Format != "int32" || rep.Description != "Replicas is how many copies of the gadget run." {
		t.Errorf("replicas = %+v", rep)
	}
	if parts := spec.Properties["parts"]; parts.ListType != "map" || !reflect.DeepEqual(parts.ListMapKeys, []string{"name"}) {
		t.Errorf("parts = %+v", parts)
	}
	if tags := spec.Properties["tags"]; tags.ListType != "set" || tags.MaxItems == nil || *tags.MaxItems != 8 {
		t.Errorf("tags = %+v", tags)
	}
	if !reflect.DeepEqual(spec.Required, []string{"owner"}) {
		t.Errorf("GadgetSpec.required = %v", spec.Required)
	}
	if p := decoded[gv+"Part"].Properties["name"]; p.Pattern != `^[a-z][a-z0-9-]*$` {
		t.Errorf("Part.name.pattern = %q", p.Pattern)
	}
	if tm := decoded[openapidefs.Time]; tm == nil || tm.Type != "string" || tm.Format != "date-time" {
		t.Errorf("Time = %+v", tm)
	}
	if d := decoded[gv+"MaintenanceWindow"].Properties["duration"]; d.Default != "1h0m0s" || d.AllOf[0].Ref != openapidefs.Ref(openapidefs.Duration) {
		t.Errorf("duration = %+v", d)
	}
}

// TestGoldenMatchesGenerator checks that the compiled golden returns what
// the generator computes now.
func TestGoldenMatchesGenerator(t *testing.T) {
	api := openapi.AcceptanceAPI()
	want, err := openapi.Schemas(api.Groups[0].Versions[0])
	if err != nil {
		t.Fatal(err)
	}
	got := acceptancev1.OpenAPISchemas()
	if len(got) != len(want) {
		t.Fatalf("golden has %d schemas, generator %d", len(got), len(want))
	}
	for n, w := range want {
		if !bytes.Equal(got[n], w) {
			t.Errorf("schema %s differs between the golden and the generator", n)
		}
	}
}
