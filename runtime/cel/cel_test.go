package cel

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubeforge/kubeforge/runtime/jsonencode"
)

// lamp is a typed object for the tests: its JSON is what the rules see.
type lamp struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              lampSpec `json:"spec"`
}

type lampSpec struct {
	Size   string   `json:"size,omitempty"`
	Watts  int32    `json:"watts,omitempty"`
	Serial string   `json:"serial,omitempty"`
	Bulbs  []string `json:"bulbs,omitempty"`
	Min    int32    `json:"min,omitempty"`
	Max    int32    `json:"max,omitempty"`
}

func (l *lamp) DeepCopyObject() runtime.Object { c := *l; return &c }

var _ runtime.Object = &lamp{}

func schemas(rules string) func() map[string]json.RawMessage {
	return func() map[string]json.RawMessage {
		return map[string]json.RawMessage{
			"dev.example.v1.Lamp": json.RawMessage(`{"type":"object","properties":{
				"apiVersion":{"type":"string"},"kind":{"type":"string"},
				"metadata":{"allOf":[{"$ref":"#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"}],"description":"meta"},
				"spec":{"allOf":[{"$ref":"#/components/schemas/dev.example.v1.LampSpec"}],"description":"spec"}}}`),
			"dev.example.v1.LampSpec": json.RawMessage(`{"type":"object",` + rules + `}`),
		}
	}
}

const lampRules = `"x-kubernetes-validations":[
	{"rule":"self.size != 'large' || self.watts >= 60","message":"large lamps need at least 60 watts"},
	{"rule":"self.min <= self.max","messageExpression":"'min exceeds max for a ' + self.size + ' lamp'"}],
	"properties":{
	"size":{"type":"string"},"watts":{"type":"integer","format":"int32"},
	"serial":{"type":"string","x-kubernetes-validations":[{"rule":"self == oldSelf","message":"serial is immutable"}]},
	"bulbs":{"type":"array","items":{"type":"string"},"x-kubernetes-validations":[{"rule":"self.all(b, b.startsWith('b'))","message":"bulb names start with b","reason":"FieldValueForbidden"}]},
	"min":{"type":"integer","format":"int32"},"max":{"type":"integer","format":"int32"}}`

func TestRules(t *testing.T) {
	r := &Rules{Root: "dev.example.v1.Lamp", Schemas: schemas(lampRules)}
	if err := r.Compile(); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	ok := &lamp{ObjectMeta: metav1.ObjectMeta{Name: "l"}, Spec: lampSpec{Size: "large", Watts: 60, Serial: "A", Bulbs: []string{"b1"}, Min: 1, Max: 2}}
	if errs := r.Validate(ctx, ok, nil); len(errs) != 0 {
		t.Fatalf("valid lamp: %v", errs)
	}
	bad := ok.DeepCopyObject().(*lamp)
	bad.Spec.Watts, bad.Spec.Min, bad.Spec.Bulbs = 10, 5, []string{"x"}
	errs := r.Validate(ctx, bad, nil)
	got := errs.ToAggregate().Error()
	// kube-apiserver 1.37's own validator words them (it no longer prints
	// "object" as the value of a failed object rule).
	for _, want := range []string{
		`spec: Invalid value: large lamps need at least 60 watts`,
		`spec: Invalid value: min exceeds max for a large lamp`,
		`spec.bulbs: Forbidden: bulb names start with b`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("errors lack %q:\n%s", want, got)
		}
	}
	// The transition rule runs on updates only.
	changed := ok.DeepCopyObject().(*lamp)
	changed.Spec.Serial = "B"
	if errs := r.Validate(ctx, changed, nil); len(errs) != 0 {
		t.Errorf("a create with any serial: %v", errs)
	}
	if errs := r.Validate(ctx, changed, ok); len(errs) != 1 || !strings.Contains(errs[0].Error(), "spec.serial: Invalid value: \"B\": serial is immutable") {
		t.Errorf("changing the serial: %v", errs)
	}
}

// manyMaps is n unbounded maps, each with a rule that visits every key:
// cheap alone, too costly together.
func manyMaps(n int) string {
	var props []string
	for i := range n {
		props = append(props, fmt.Sprintf(`"m%d":{"type":"object","additionalProperties":{"type":"string"},"x-kubernetes-validations":[{"rule":"self.all(k, k.startsWith('x'))"}]}`, i))
	}
	return strings.Join(props, ",")
}

func TestRulesThatDoNotCompile(t *testing.T) {
	for _, tc := range []struct{ rules, want string }{
		{`"x-kubernetes-validations":[{"rule":"self.nope > 1"}],"properties":{"size":{"type":"string"}}`, "undefined field 'nope'"},
		{`"x-kubernetes-validations":[{"rule":"self.size +"}],"properties":{"size":{"type":"string"}}`, "Syntax error"},
		{`"x-kubernetes-validations":[{"rule":"self.size == 1"}],"properties":{"size":{"type":"string"}}`, "no matching overload"},
		{`"properties":{"names":{"type":"array","items":{"type":"string"},"x-kubernetes-validations":[{"rule":"self.all(a, self.all(b, self.all(c, a + b + c != '')))"}]}}`, "estimated rule cost exceeds budget by factor of more than 100x"},
		// kube-apiserver refuses a CRD with this messageExpression: string()
		// of an integer is estimated at an unbounded length.
		{`"x-kubernetes-validations":[{"rule":"self.watts > 0","messageExpression":"'watts ' + string(self.watts)"}],"properties":{"watts":{"type":"integer"}}`,
			`<root>.spec: rule "self.watts > 0": messageExpression: estimated messageExpression cost exceeds budget`},
		// Each rule is under the per-rule limit; together over the schema's.
		{`"properties":{` + manyMaps(60) + `}`, "x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of"},
	} {
		r := &Rules{Root: "dev.example.v1.Lamp", Schemas: schemas(tc.rules)}
		err := r.Compile()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("rules %s: error %v, want one containing %q", tc.rules, err, tc.want)
		}
	}
}

// shade's rules ask has() of a field Go holds as null and of an empty
// struct with omitempty.
type shade struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              shadeSpec `json:"spec"`
}

type shadeSpec struct {
	Glass *string    `json:"glass"`
	Frame shadeFrame `json:"frame,omitempty"`
}

type shadeFrame struct {
	Color string `json:"color,omitempty"`
}

func (s *shade) DeepCopyObject() runtime.Object { c := *s; return &c }

// plainShade is shade not registered as a custom resource.
type plainShade shade

func (s *plainShade) DeepCopyObject() runtime.Object { c := *s; return &c }

// TestRulesSeeCustomResource: the rules of a kind registered as a custom
// resource see the JSON it is written as, where kube's see a custom
// resource's: a null or an empty struct Go holds is absent.
func TestRulesSeeCustomResource(t *testing.T) {
	jsonencode.RegisterCustomResource(jsonencode.CustomResource{Type: reflect.TypeFor[shade]()})
	r := &Rules{Root: "dev.example.v1.Lamp", Schemas: schemas(`"x-kubernetes-validations":[
		{"rule":"!has(self.glass)","message":"glass is set"},
		{"rule":"!has(self.frame)","message":"frame is set"}],
		"properties":{"glass":{"type":"string"},"frame":{"type":"object","properties":{"color":{"type":"string"}}}}`)}
	if err := r.Compile(); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if errs := r.Validate(ctx, &shade{}, nil); len(errs) != 0 {
		t.Errorf("a custom resource without glass and frame: %v", errs)
	}
	glass := "clear"
	if errs := r.Validate(ctx, &shade{Spec: shadeSpec{Glass: &glass, Frame: shadeFrame{Color: "red"}}}, nil); len(errs) != 2 {
		t.Errorf("a custom resource with glass and frame: %v, want both rules broken", errs)
	}
	// Any other type is its unstructured conversion, where the empty
	// struct is there ({}); the validator takes a null for absent.
	if errs := r.Validate(ctx, &plainShade{}, nil); len(errs) != 1 || !strings.Contains(errs[0].Error(), "frame is set") {
		t.Errorf("an unregistered type: %v, want the frame rule broken", errs)
	}
}
