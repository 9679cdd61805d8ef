package openapi_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kubeforge/kubeforge/generators/internal/gentest"
	"github.com/kubeforge/kubeforge/generators/openapi"
	gatesgolden "github.com/kubeforge/kubeforge/generators/openapi/testdata/markers/golden/generated/gates/v1"
	gates "github.com/kubeforge/kubeforge/generators/openapi/testdata/markers/types/gates/v1"
	"github.com/kubeforge/kubeforge/runtime/cel"
	"github.com/kubeforge/kubeforge/runtime/openapidefs"
)

const gatesGV = "dev.example.gates.v1."

// TestMarkersGolden generates testdata/markers (the schema markers of
// controller-tools v0.23.0) and compares with the committed, compiled
// golden; the compiled golden returns what the generator computes.
func TestMarkersGolden(t *testing.T) {
	api := gentest.Load(t, "testdata/markers")
	files, err := openapi.Generator{}.Generate(api)
	if err != nil {
		t.Fatal(err)
	}
	gentest.Golden(t, files, "testdata/markers/golden")
	want, err := openapi.Schemas(api.Groups[0].Versions[0])
	if err != nil {
		t.Fatal(err)
	}
	got := gatesgolden.OpenAPISchemas()
	if len(got) != len(want) {
		t.Fatalf("golden has %d schemas, generator %d", len(got), len(want))
	}
	for n, w := range want {
		if string(got[n]) != string(w) {
			t.Errorf("schema %s differs between the golden and the generator", n)
		}
	}
}

// TestMarkersSchema: the markers show in OpenAPI where controller-gen puts
// them in a CRD schema: items: constraints under items (a $ref with
// siblings in allOf), title, example, externalDocs, and the CEL rules of
// the oneOf markers and +k8s:immutable in x-kubernetes-validations.
func TestMarkersSchema(t *testing.T) {
	schemas := gatesgolden.OpenAPISchemas()
	get := func(name string) map[string]any {
		t.Helper()
		var m map[string]any
		if err := json.Unmarshal(schemas[gatesGV+name], &m); err != nil {
			t.Fatalf("schema %s: %v", name, err)
		}
		return m
	}
	common := openapidefs.CommonSchemas()
	for n, raw := range schemas {
		checkRefs(t, n, decodeStrict(t, n, raw), func(ref string) bool {
			_, a := schemas[ref]
			_, b := common[ref]
			return a || b
		})
	}
	js := func(v any) string {
		var b strings.Builder
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			t.Fatal(err)
		}
		return strings.TrimSuffix(b.String(), "\n")
	}
	spec := get("GateSpec")
	props := spec["properties"].(map[string]any)
	for prop, want := range map[string]string{
		"names": `{"description":"Names of the gate.","example":["north","south"],"items":{"maxLength":16,"type":"string",` +
			`"x-kubernetes-validations":[{"message":"admin is reserved","rule":"self != 'admin'"}]},"maxItems":8,"title":"Gate names","type":"array"}`,
		"endpoints": `{"description":"Endpoints are hosts under example.com.","items":{"allOf":[{"$ref":"#/components/schemas/dev.example.gates.v1.Endpoint"}],` +
			`"x-kubernetes-validations":[{"message":"hosts are under example.com","rule":"self.host.endsWith('.example.com')"}]},"maxItems":4,"type":"array"}`,
		"ports": `{"description":"Ports take the bounds of their list type, and one more.","items":{"format":"int32","maximum":65535,"minimum":1,"multipleOf":2,"type":"integer"},` +
			`"title":"Port list","type":"array"}`,
		"objects": `{"description":"Objects are whole Kubernetes objects.","items":{"allOf":[{"$ref":"#/components/schemas/io.k8s.apimachinery.pkg.runtime.RawExtension"}],` +
			`"type":"object","x-kubernetes-embedded-resource":true,"x-kubernetes-preserve-unknown-fields":true},"maxItems":2,"type":"array"}`,
		"serial": `{"description":"Serial never changes once set.","example":"SN-1","externalDocs":{"url":"/docs/serials"},"maxLength":32,"type":"string",` +
			`"x-kubernetes-validations":[{"message":"field is immutable","rule":"self == oldSelf"}]}`,
		"owner": `{"description":"Owner is required and never changes.","maxLength":32,"type":"string",` +
			`"x-kubernetes-validations":[{"message":"field is immutable","rule":"self == oldSelf"}]}`,
	} {
		if got := js(props[prop]); got != want {
			t.Errorf("%s =\n %s\nwant\n %s", prop, got, want)
		}
	}
	if got, want := js(spec["x-kubernetes-validations"]), `[{"message":"field serial is immutable once set","rule":"!has(oldSelf.serial) || has(self.serial)"}]`; got != want {
		t.Errorf("GateSpec rules = %s, want %s", got, want)
	}
	if spec["title"] != "Gate" || js(spec["externalDocs"]) != `{"description":"Gate guide","url":"https://example.com/gates"}` {
		t.Errorf("GateSpec title %v externalDocs %v", spec["title"], spec["externalDocs"])
	}
	for name, want := range map[string]string{
		"Backend": `[{"message":"a Service needs a port","rule":"self.kind != 'Service' || has(self.port)"},{"message":"weight is not negative","rule":"!has(self.weight) || self.weight >= 0"}]`,
		"Exactly": `[{"message":"exactly one of the fields in [http grpc] must be set","rule":"(has(self.http)?1:0)+(has(self.grpc)?1:0) == 1"}]`,
		"AtMost":  `[{"message":"at most one of the fields in [a b] may be set","rule":"(has(self.a)?1:0)+(has(self.b)?1:0) <= 1"}]`,
		"AtLeast": `[{"message":"at least one of the fields in [a b] must be set","rule":"has(self.a)||has(self.b)"}]`,
	} {
		if got := js(get(name)["x-kubernetes-validations"]); got != want {
			t.Errorf("%s rules = %s, want %s", name, got, want)
		}
	}
}

// TestMarkersEnforcedAsKube runs the rules the markers add through
// runtime/cel, as the generated server does (Kubernetes' CEL validator
// over the structural schema built from the generated OpenAPI), on
// objects converted as the server converts them (omitempty fields absent):
// what kube-apiserver accepts and refuses for a controller-gen CRD of the
// same types, at the same paths.
func TestMarkersEnforcedAsKube(t *testing.T) {
	rules := &cel.Rules{Root: gatesGV + "Gate", Schemas: gatesgolden.OpenAPISchemas}
	if err := rules.Compile(); err != nil {
		t.Fatal(err)
	}
	base := func() *gates.Gate {
		g := &gates.Gate{Spec: gates.GateSpec{Owner: "alice", Serial: "A"}}
		g.Name = "g1"
		return g
	}
	// The typed object converted as the server converts it for the rules
	// (omitempty fields absent).
	u := func(t *testing.T, g *gates.Gate) *unstructured.Unstructured {
		t.Helper()
		m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(g)
		if err != nil {
			t.Fatal(err)
		}
		return &unstructured.Unstructured{Object: m}
	}
	validate := func(t *testing.T, obj, old *gates.Gate) field.ErrorList {
		if old == nil {
			return rules.Validate(context.Background(), u(t, obj), nil)
		}
		return rules.Validate(context.Background(), u(t, obj), u(t, old))
	}
	ep := func(h string) *gates.Endpoint { return &gates.Endpoint{Host: h} }
	tests := []struct {
		name   string
		mutate func(g *gates.Gate)
		old    func(g *gates.Gate) // nil: a create
		want   []string            // "<path>: ...<message>"; empty: accepted
	}{
		{"valid", func(g *gates.Gate) {
			g.Spec.Names = []string{"north", "south"}
			g.Spec.Endpoints = []gates.Endpoint{{Host: "a.example.com"}}
			g.Spec.Exactly = &gates.Exactly{HTTP: ep("h")}
			g.Spec.AtMost = &gates.AtMost{A: "x"}
			g.Spec.AtLeast = &gates.AtLeast{B: []string{"y"}}
		}, nil, nil},
		{"items rule at the item's index", func(g *gates.Gate) { g.Spec.Names = []string{"north", "admin"} }, nil,
			[]string{`spec.names[1]: Invalid value: "admin": admin is reserved`}},
		{"items rule on struct items", func(g *gates.Gate) {
			g.Spec.Endpoints = []gates.Endpoint{{Host: "a.example.com"}, {Host: "evil.org"}}
		}, nil, []string{"spec.endpoints[1]: Invalid value: hosts are under example.com"}},
		{"exactly one of none", func(g *gates.Gate) { g.Spec.Exactly = &gates.Exactly{} }, nil,
			[]string{"spec.exactly: Invalid value: exactly one of the fields in [http grpc] must be set"}},
		{"exactly one of two", func(g *gates.Gate) { g.Spec.Exactly = &gates.Exactly{HTTP: ep("h"), GRPC: ep("g")} }, nil,
			[]string{"spec.exactly: Invalid value: exactly one of the fields in [http grpc] must be set"}},
		{"exactly one of: grpc alone", func(g *gates.Gate) { g.Spec.Exactly = &gates.Exactly{GRPC: ep("g")} }, nil, nil},
		{"at most one of: none", func(g *gates.Gate) { g.Spec.AtMost = &gates.AtMost{} }, nil, nil},
		{"at most one of: two", func(g *gates.Gate) { b := int32(0); g.Spec.AtMost = &gates.AtMost{A: "x", B: &b} }, nil,
			[]string{"spec.atMost: Invalid value: at most one of the fields in [a b] may be set"}},
		{"at least one of: none", func(g *gates.Gate) { g.Spec.AtLeast = &gates.AtLeast{} }, nil,
			[]string{"spec.atLeast: Invalid value: at least one of the fields in [a b] must be set"}},
		{"at least one of: both", func(g *gates.Gate) { g.Spec.AtLeast = &gates.AtLeast{A: "x", B: []string{"y"}} }, nil, nil},

		{"immutable: a create sets anything", func(g *gates.Gate) { g.Spec.Serial = "Z" }, nil, nil},
		{"immutable: an unchanged update", func(g *gates.Gate) {}, func(g *gates.Gate) {}, nil},
		{"immutable: a changed value", func(g *gates.Gate) { g.Spec.Serial = "B" }, func(g *gates.Gate) {},
			[]string{`spec.serial: Invalid value: "B": field is immutable`}},
		{"immutable: an optional field cleared", func(g *gates.Gate) { g.Spec.Serial = "" }, func(g *gates.Gate) {},
			[]string{"spec: Invalid value: field serial is immutable once set"}},
		{"immutable: an optional field set once", func(g *gates.Gate) {}, func(g *gates.Gate) { g.Spec.Serial = "" }, nil},
		{"immutable: a required field changed", func(g *gates.Gate) { g.Spec.Owner = "bob" }, func(g *gates.Gate) {},
			[]string{`spec.owner: Invalid value: "bob": field is immutable`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			obj := base()
			tt.mutate(obj)
			var old *gates.Gate
			if tt.old != nil {
				old = base()
				tt.old(old)
			}
			errs := validate(t, obj, old)
			if len(errs) != len(tt.want) {
				t.Fatalf("got %d errors, want %d:\n%v", len(errs), len(tt.want), errs)
			}
			for i, want := range tt.want {
				if got := errs[i].Error(); got != want {
					t.Errorf("error %d:\n got %s\nwant %s", i, got, want)
				}
			}
		})
	}
}
