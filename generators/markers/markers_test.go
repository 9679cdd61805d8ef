package markers

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func TestBuiltinTables(t *testing.T) {
	if err := builtinError(); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{
		"groupName", "optional", "required", "default", "listType", "listMapKey", "mapType", "structType", "enum", "nullable",
		"kubebuilder:object:root", "kubebuilder:object:generate", "kubebuilder:resource", "kubebuilder:subresource:status",
		"kubebuilder:printcolumn", "kubebuilder:default", "kubebuilder:storageversion", "kubebuilder:unservedversion", "kubebuilder:skip",
		"kubebuilder:validation:Minimum", "kubebuilder:validation:Maximum", "kubebuilder:validation:ExclusiveMinimum",
		"kubebuilder:validation:ExclusiveMaximum", "kubebuilder:validation:MultipleOf", "kubebuilder:validation:MinLength",
		"kubebuilder:validation:MaxLength", "kubebuilder:validation:Pattern", "kubebuilder:validation:Enum",
		"kubebuilder:validation:MinItems", "kubebuilder:validation:MaxItems", "kubebuilder:validation:UniqueItems",
		"kubebuilder:validation:MinProperties", "kubebuilder:validation:MaxProperties", "kubebuilder:validation:Format",
		"kubebuilder:validation:Required", "kubebuilder:validation:Optional", "kubebuilder:validation:XValidation",
		"kubebuilder:validation:EmbeddedResource", "kubebuilder:validation:XIntOrString", "kubebuilder:validation:Type",
		"kubebuilder:validation:Schemaless", "kubebuilder:pruning:PreserveUnknownFields",
		"k8s:optional", "k8s:required", "k8s:minimum", "k8s:maximum", "k8s:minLength", "k8s:maxLength", "k8s:format",
		"k8s:enum", "k8s:listType", "k8s:listMapKey", "k8s:default",
		"genclient", "k8s:deepcopy-gen", "k8s:openapi-gen", "k8s:defaulter-gen", "k8s:conversion-gen", "kubebuilder:rbac",
	} {
		if Builtin().Lookup(name) == nil {
			t.Errorf("marker %q is not registered", name)
		}
	}
}

// TestControllerToolsMarkers: every marker controller-tools v0.23.0 accepts
// in a types package is registered, with help text, on (at least) the
// declarations controller-tools accepts it on.
func TestControllerToolsMarkers(t *testing.T) {
	validation := []string{
		"Maximum", "Minimum", "ExclusiveMaximum", "ExclusiveMinimum", "MultipleOf", "MinProperties", "MaxProperties",
		"MaxLength", "MinLength", "Pattern", "MaxItems", "MinItems", "UniqueItems", "Enum", "Format", "Type",
		"XPreserveUnknownFields", "XEmbeddedResource", "XIntOrString", "XValidation",
	}
	want := map[string]Target{}
	for _, n := range validation {
		want["kubebuilder:validation:"+n] = tf
		want["kubebuilder:validation:items:"+n] = tf
	}
	for n, target := range map[string]Target{
		"kubebuilder:validation:ExactlyOneOf": TypeTarget, "kubebuilder:validation:AtMostOneOf": TypeTarget,
		"kubebuilder:validation:AtLeastOneOf": TypeTarget, "k8s:enum": TypeTarget,
		"kubebuilder:validation:Required": pf, "kubebuilder:validation:Optional": pf, "required": FieldTarget, "optional": FieldTarget,
		"k8s:required": FieldTarget, "k8s:optional": FieldTarget, "nullable": FieldTarget, "kubebuilder:default": FieldTarget,
		"default": FieldTarget, "kubebuilder:example": FieldTarget, "kubebuilder:validation:EmbeddedResource": FieldTarget,
		"kubebuilder:validation:Schemaless": FieldTarget, "k8s:immutable": FieldTarget, "k8s:maxItems": FieldTarget,
		"k8s:minimum": FieldTarget, "k8s:maximum": FieldTarget, "kubebuilder:pruning:PreserveUnknownFields": tf,
		"kubebuilder:title": tf, "listMapKey": tf, "listType": tf, "mapType": tf, "structType": tf, "k8s:listType": tf,
		"k8s:listMapKey": tf, "kubebuilder:subresource:status": TypeTarget, "kubebuilder:subresource:scale": TypeTarget,
		"kubebuilder:printcolumn": TypeTarget, "kubebuilder:resource": TypeTarget, "kubebuilder:storageversion": TypeTarget,
		"kubebuilder:skipversion": TypeTarget, "kubebuilder:unservedversion": TypeTarget, "kubebuilder:deprecatedversion": TypeTarget,
		"kubebuilder:metadata": TypeTarget, "kubebuilder:selectablefield": TypeTarget, "kubebuilder:externalDocs": tf,
		"groupName": PackageTarget, "versionName": PackageTarget, "kubebuilder:skip": PackageTarget,
		"kubebuilder:object:generate": pt, "kubebuilder:object:root": TypeTarget, "k8s:deepcopy-gen": pt,
		"kubebuilder:rbac": PackageTarget, "kubebuilder:webhook": PackageTarget, "kubebuilder:webhookconfiguration": PackageTarget,
		"kubebuilder:ac:generate": pt, "kubebuilder:ac:output:package": PackageTarget,
	} {
		want[n] = target
	}
	for name, target := range want {
		d := Builtin().Lookup(name)
		if d == nil {
			d = Builtin().family(name)
		}
		switch {
		case d == nil:
			t.Errorf("controller-tools marker %q is not registered", name)
		case d.Target&target != target:
			t.Errorf("marker %q may stand on %s; controller-tools accepts it on %s", name, d.Target, target)
		case d.Help == "":
			t.Errorf("marker %q has no help text", name)
		}
	}
}

func TestParseLiteral(t *testing.T) {
	for _, tt := range []struct {
		in, want string // want: JSON, or "error: <substring>"
	}{
		{`{8080,8443}`, `[8080,8443]`},
		{`80;443`, `[80,443]`},
		{`{cpu: "100m", memory: "128Mi"}`, `{"cpu":"100m","memory":"128Mi"}`},
		{`{policy: delete, nested: {a: {1,2}}}`, `{"nested":{"a":[1,2]},"policy":"delete"}`},
		{`{}`, `{}`},
		{`{"a,b", c}`, `["a,b","c"]`},
		{"{`x;y`,true,1.5}", `["x;y",true,1.5]`},
		{`plain text`, `"plain text"`},
		{`{a: 1, a: 2}`, `error: given twice`},
		{`{a: 1, b}`, `error: not key: value`},
		{`{a,,b}`, `error: empty item`},
		{`{a`, `error: unterminated`},
		{``, `error: empty value`},
	} {
		v, err := ParseLiteral(tt.in)
		if strings.HasPrefix(tt.want, "error: ") {
			if err == nil || !strings.Contains(err.Error(), strings.TrimPrefix(tt.want, "error: ")) {
				t.Errorf("ParseLiteral(%s) = %v, %v; want an error containing %q", tt.in, v, err, strings.TrimPrefix(tt.want, "error: "))
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseLiteral(%s): %v", tt.in, err)
			continue
		}
		if got, _ := json.Marshal(v); string(got) != tt.want {
			t.Errorf("ParseLiteral(%s) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

func line(text string) Line {
	return Line{Text: text, Pos: Position{File: "a/types.go", Line: 7, Column: 2}}
}

func TestParseLine(t *testing.T) {
	r := Builtin()
	tests := []struct {
		text   string
		target Target
		name   string // canonical name; "" for not-a-marker
		value  any
		err    string
	}{
		{"// +optional", FieldTarget, "optional", nil, ""},
		{"//+optional", FieldTarget, "optional", nil, ""},
		{"// +kubebuilder:validation:Minimum=1", FieldTarget, "kubebuilder:validation:Minimum", 1.0, ""},
		{"// +kubebuilder:validation:Minimum=-2.5", TypeTarget, "kubebuilder:validation:Minimum", -2.5, ""},
		{"// +kubebuilder:validation:MaxLength=63", FieldTarget, "kubebuilder:validation:MaxLength", int64(63), ""},
		{"// +kubebuilder:validation:Pattern=`^[a-z]+,x;y$`", FieldTarget, "kubebuilder:validation:Pattern", "^[a-z]+,x;y$", ""},
		{"// +kubebuilder:validation:Pattern:=`^[a-z]+$`", FieldTarget, "kubebuilder:validation:Pattern", "^[a-z]+$", ""},
		{"// +kubebuilder:validation:MaxLength:=8", FieldTarget, "kubebuilder:validation:MaxLength", int64(8), ""},
		{"// +kubebuilder:default:=medium", FieldTarget, "kubebuilder:default", "medium", ""},
		{"// +kubebuilder:validation:Enum=small;medium;large", FieldTarget, "kubebuilder:validation:Enum", []any{"small", "medium", "large"}, ""},
		{"// +kubebuilder:validation:Enum={1,\"two\",true}", FieldTarget, "kubebuilder:validation:Enum", []any{json.Number("1"), "two", true}, ""},
		{"// +kubebuilder:validation:UniqueItems=true", FieldTarget, "kubebuilder:validation:UniqueItems", true, ""},
		{"// +kubebuilder:object:root", TypeTarget, "kubebuilder:object:root", true, ""},
		{"// +kubebuilder:default=medium", FieldTarget, "kubebuilder:default", "medium", ""},
		{`// +default={"a":1}`, FieldTarget, "default", `{"a":1}`, ""},
		{"// +listType=map", FieldTarget, "listType", "map", ""},
		{"// +groupName=shipping.kubeforge.dev", PackageTarget, "groupName", "shipping.kubeforge.dev", ""},
		{"// +k8s:minimum=3", FieldTarget, "kubebuilder:validation:Minimum", 3.0, ""},
		{"// +k8s:optional", FieldTarget, "optional", nil, ""},
		{"// +kubebuilder:resource:path=gizmos,scope=Cluster,shortName=gz;gzm,categories={all,toys}", TypeTarget, "kubebuilder:resource",
			map[string]any{"path": "gizmos", "scope": "Cluster", "shortName": []string{"gz", "gzm"}, "categories": []string{"all", "toys"}}, ""},
		{"// +kubebuilder:printcolumn:name=\"Age\",type=date,JSONPath=`.metadata.creationTimestamp`,priority=1", TypeTarget, "kubebuilder:printcolumn",
			map[string]any{"name": "Age", "type": "date", "JSONPath": ".metadata.creationTimestamp", "priority": int64(1)}, ""},
		{`// +kubebuilder:validation:XValidation:rule="self.a > 0, or not",message="a, positive"`, FieldTarget, "kubebuilder:validation:XValidation",
			map[string]any{"rule": "self.a > 0, or not", "message": "a, positive"}, ""},
		// controller-tools v0.23.0 markers: items:, oneOf, immutable, docs, metadata.
		{"// +kubebuilder:validation:items:MaxLength=5", FieldTarget, "kubebuilder:validation:items:MaxLength", int64(5), ""},
		{"// +kubebuilder:validation:items:Minimum=-1.5", TypeTarget, "kubebuilder:validation:items:Minimum", -1.5, ""},
		{"// +kubebuilder:validation:items:Pattern=`^[a-z]+$`", FieldTarget, "kubebuilder:validation:items:Pattern", "^[a-z]+$", ""},
		{"// +kubebuilder:validation:items:Enum=a;b", FieldTarget, "kubebuilder:validation:items:Enum", []any{"a", "b"}, ""},
		{"// +kubebuilder:validation:items:UniqueItems", FieldTarget, "kubebuilder:validation:items:UniqueItems", true, ""},
		{"// +kubebuilder:validation:items:XEmbeddedResource", FieldTarget, "kubebuilder:validation:items:XEmbeddedResource", nil, ""},
		{`// +kubebuilder:validation:items:XValidation:rule="self != 'x'",message="not x"`, FieldTarget, "kubebuilder:validation:items:XValidation",
			map[string]any{"rule": "self != 'x'", "message": "not x"}, ""},
		{"// +kubebuilder:validation:XPreserveUnknownFields", FieldTarget, "kubebuilder:pruning:PreserveUnknownFields", nil, ""},
		{"// +kubebuilder:validation:XEmbeddedResource", TypeTarget, "kubebuilder:validation:EmbeddedResource", nil, ""},
		{"// +kubebuilder:validation:ExactlyOneOf=http;https", TypeTarget, "kubebuilder:validation:ExactlyOneOf", []string{"http", "https"}, ""},
		{"// +kubebuilder:validation:AtMostOneOf={a,b}", TypeTarget, "kubebuilder:validation:AtMostOneOf", []string{"a", "b"}, ""},
		{"// +kubebuilder:validation:AtLeastOneOf=a;b", TypeTarget, "kubebuilder:validation:AtLeastOneOf", []string{"a", "b"}, ""},
		{"// +k8s:immutable", FieldTarget, "k8s:immutable", nil, ""},
		{`// +kubebuilder:title="Replica Count"`, FieldTarget, "kubebuilder:title", "Replica Count", ""},
		{"// +kubebuilder:title=Replica Count", TypeTarget, "kubebuilder:title", "Replica Count", ""},
		{`// +kubebuilder:title="42"`, FieldTarget, "kubebuilder:title", "42", ""},
		{"// +kubebuilder:example={8080,8443}", FieldTarget, "kubebuilder:example", "{8080,8443}", ""},
		{`// +kubebuilder:example="my-service"`, FieldTarget, "kubebuilder:example", `"my-service"`, ""},
		{`// +kubebuilder:externalDocs:url=https://example.com/x,description="The guide"`, TypeTarget, "kubebuilder:externalDocs",
			map[string]any{"url": "https://example.com/x", "description": "The guide"}, ""},
		{`// +kubebuilder:metadata:annotations="a=b";"c=d",labels=team=x`, TypeTarget, "kubebuilder:metadata",
			map[string]any{"annotations": []string{"a=b", "c=d"}, "labels": []string{"team=x"}}, ""},
		{"// +kubebuilder:webhookconfiguration:mutating=true,name=my-config", PackageTarget, "kubebuilder:webhookconfiguration",
			map[string]any{"mutating": true, "name": "my-config"}, ""},
		{"// +kubebuilder:default={80,443}", FieldTarget, "kubebuilder:default", "{80,443}", ""},
		{`// +kubebuilder:webhook:mutating=true,name=m.example.dev,groups=g,resources=r,versions=v1,verbs=create,patch="{}"`, PackageTarget, "kubebuilder:webhook",
			map[string]any{"mutating": true, "name": "m.example.dev", "groups": []string{"g"}, "resources": []string{"r"}, "versions": []string{"v1"}, "verbs": []string{"create"}, "patch": "{}"}, ""},
		// +k8s: tags may end in a comment, as gengo and controller-tools read them.
		{"// +k8s:maxItems=16 # keeps CEL cost bounded", FieldTarget, "kubebuilder:validation:MaxItems", int64(16), ""},
		{"// +k8s:minimum=0#no negatives", FieldTarget, "kubebuilder:validation:Minimum", 0.0, ""},
		{"// +k8s:optional # why", FieldTarget, "optional", nil, ""},
		{"// +k8s:immutable  # set once", FieldTarget, "k8s:immutable", nil, ""},
		// Tolerated markers of other tools.
		{"// +genclient", TypeTarget, "genclient", nil, ""},
		{"// +genclient:nonNamespaced", TypeTarget, "genclient:nonNamespaced", nil, ""},
		{"// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object", TypeTarget, "k8s:deepcopy-gen:interfaces", "k8s.io/apimachinery/pkg/runtime.Object", ""},
		{"// +kubebuilder:rbac:groups=apps,resources=deployments,verbs=get;list", PackageTarget, "kubebuilder:rbac:groups", "apps,resources=deployments,verbs=get;list", ""},
		// Not markers.
		{"// +1 for this", FieldTarget, "", nil, ""},
		{"// +some-tool:foo=bar", FieldTarget, "", nil, ""},
		{"// +build linux", PackageTarget, "", nil, ""},
		{"// plain text + more", FieldTarget, "", nil, ""},
		{"/* +optional */", FieldTarget, "", nil, ""},
		{"// +foo", FieldTarget, "", nil, ""},
		// Errors: unknown under an accepted prefix, with a suggestion.
		{"// +kubebuilder:validation:Minimun=1", FieldTarget, "", nil, `a/types.go:7:5: unknown marker "kubebuilder:validation:Minimun": did you mean "kubebuilder:validation:Minimum"?`},
		{"//+kubebuilder:validation:maxlength=3", FieldTarget, "", nil, `a/types.go:7:4: unknown marker "kubebuilder:validation:maxlength": did you mean "kubebuilder:validation:MaxLength"?`},
		{"// +optinal", FieldTarget, "", nil, `a/types.go:7:5: unknown marker "optinal": did you mean "optional"?`},
		{"// +listtype=set", FieldTarget, "", nil, `a/types.go:7:5: unknown marker "listtype": did you mean "listType"?`},
		{"// +kubeforge:nothing", FieldTarget, "", nil, `a/types.go:7:5: unknown marker "kubeforge:nothing": did you mean "kubeforge:external"?`},
		{"// +kubeforge:zzzzzzzzzzzzzzzzzz", FieldTarget, "", nil, `a/types.go:7:5: unknown marker "kubeforge:zzzzzzzzzzzzzzzzzz" (see: go run ./cmd/gen markers)`},
		// Malformed arguments.
		{"// +kubebuilder:validation:Minimum=abc", FieldTarget, "", nil, `a/types.go:7:5: marker "kubebuilder:validation:Minimum": invalid number "abc"`},
		{"// +kubebuilder:validation:MaxLength", FieldTarget, "", nil, `a/types.go:7:5: marker "kubebuilder:validation:MaxLength" needs a value: +kubebuilder:validation:MaxLength=<integer>`},
		{"// +listType=list", FieldTarget, "", nil, `a/types.go:7:5: marker "listType": invalid value "list", want one of atomic|set|map`},
		{"// +optional=true", FieldTarget, "", nil, `a/types.go:7:5: marker "optional" takes no value, got "+optional=true"`},
		{"// +kubebuilder:resource:scope=Clster", TypeTarget, "", nil, `a/types.go:7:5: marker "kubebuilder:resource": argument "scope": invalid value "Clster", want one of Namespaced|Cluster`},
		{"// +kubebuilder:resource:shortname=x", TypeTarget, "", nil, `a/types.go:7:5: marker "kubebuilder:resource": unknown argument "shortname": did you mean "shortName"?`},
		{"// +kubebuilder:printcolumn:name=X,type=string", TypeTarget, "", nil, `a/types.go:7:5: marker "kubebuilder:printcolumn": missing required argument "JSONPath"`},
		{"// +kubebuilder:validation:Pattern=`^[a-z]", FieldTarget, "", nil, "a/types.go:7:5: marker \"kubebuilder:validation:Pattern\": unterminated raw string `^[a-z]"},
		{"// +kubebuilder:validation:Minimun:=5", FieldTarget, "", nil, `a/types.go:7:5: unknown marker "kubebuilder:validation:Minimun": did you mean "kubebuilder:validation:Minimum"?`},
		{"// +kubebuilder:validation:Minimum:=abc", FieldTarget, "", nil, `a/types.go:7:5: marker "kubebuilder:validation:Minimum": invalid number "abc"`},
		{"// +kubebuilder:validation:Minimum 5", FieldTarget, "", nil, `a/types.go:7:5: malformed marker "+kubebuilder:validation:Minimum 5": unexpected "5" after the name (write +kubebuilder:validation:Minimum=value)`},
		// Malformed new markers.
		{"// +kubebuilder:validation:items:MaxLength=five", FieldTarget, "", nil, `a/types.go:7:5: marker "kubebuilder:validation:items:MaxLength": invalid integer "five"`},
		{"// +kubebuilder:validation:items:MaxLenght=5", FieldTarget, "", nil, `a/types.go:7:5: unknown marker "kubebuilder:validation:items:MaxLenght": did you mean "kubebuilder:validation:items:MaxLength"?`},
		{"// +kubebuilder:validation:items:XPreserveUnknownFields=true", FieldTarget, "", nil, `a/types.go:7:5: marker "kubebuilder:validation:items:XPreserveUnknownFields" takes no value, got "+kubebuilder:validation:items:XPreserveUnknownFields=true"`},
		{`// +kubebuilder:validation:items:XValidation:message="m"`, FieldTarget, "", nil, `a/types.go:7:5: marker "kubebuilder:validation:items:XValidation": missing required argument "rule"`},
		{"// +kubebuilder:validation:ExactlyOneOf", TypeTarget, "", nil, `a/types.go:7:5: marker "kubebuilder:validation:ExactlyOneOf" needs a value: +kubebuilder:validation:ExactlyOneOf=<list of strings (a;b or {a,b})>`},
		{"// +kubebuilder:validation:ExactlyOneOf=a;;b", TypeTarget, "", nil, `a/types.go:7:5: marker "kubebuilder:validation:ExactlyOneOf": empty item in list "a;;b"`},
		{"// +kubebuilder:validation:ExactlyOneOf=a;b", FieldTarget, "", nil, `a/types.go:7:5: marker "kubebuilder:validation:ExactlyOneOf" may stand on type, not on a field`},
		{"// +k8s:immutable=true", FieldTarget, "", nil, `a/types.go:7:5: marker "k8s:immutable" takes no value, got "+k8s:immutable=true"`},
		{"// +k8s:immutable", TypeTarget, "", nil, `a/types.go:7:5: marker "k8s:immutable" may stand on field, not on a type`},
		{"// +kubebuilder:title=5", FieldTarget, "", nil, `a/types.go:7:5: marker "kubebuilder:title": want a string, got 5 (write "5" for the text)`},
		{"// +kubebuilder:title=true", FieldTarget, "", nil, `a/types.go:7:5: marker "kubebuilder:title": want a string, got true (write "true" for the text)`},
		{"// +kubebuilder:title={a,b}", FieldTarget, "", nil, `a/types.go:7:5: marker "kubebuilder:title": want a string, got the list or map {a,b} (quote it for the text)`},
		{"// +kubebuilder:title", FieldTarget, "", nil, `a/types.go:7:5: marker "kubebuilder:title" needs a value: +kubebuilder:title=<string>`},
		{"// +kubebuilder:example", FieldTarget, "", nil, `a/types.go:7:5: marker "kubebuilder:example" needs a value: +kubebuilder:example=<JSON value, a bare string for string fields, or a kubebuilder literal ({a,b}, {key: value})>`},
		{"// +kubebuilder:example=1", TypeTarget, "", nil, `a/types.go:7:5: marker "kubebuilder:example" may stand on field, not on a type`},
		{"// +kubebuilder:externalDocs:description=x", FieldTarget, "", nil, `a/types.go:7:5: marker "kubebuilder:externalDocs": missing required argument "url"`},
		{"// +kubebuilder:externalDocs:URL=https://x", FieldTarget, "", nil, `a/types.go:7:5: marker "kubebuilder:externalDocs": unknown argument "URL": did you mean "url"?`},
		{"// +kubebuilder:metadata:label=a=b", TypeTarget, "", nil, `a/types.go:7:5: marker "kubebuilder:metadata": unknown argument "label": did you mean "labels"?`},
		{"// +kubebuilder:metadata:labels=a=b", FieldTarget, "", nil, `a/types.go:7:5: marker "kubebuilder:metadata" may stand on type, not on a field`},
		{"// +kubebuilder:webhookconfiguration:name=x", PackageTarget, "", nil, `a/types.go:7:5: marker "kubebuilder:webhookconfiguration": missing required argument "mutating"`},
		{"// +k8s:maxItems=x # y", FieldTarget, "", nil, `a/types.go:7:5: marker "k8s:maxItems": invalid integer "x"`},
		// Wrong target.
		{"// +kubebuilder:subresource:status", FieldTarget, "", nil, `a/types.go:7:5: marker "kubebuilder:subresource:status" may stand on type, not on a field`},
		{"// +groupName=x.dev", TypeTarget, "", nil, `a/types.go:7:5: marker "groupName" may stand on package, not on a type`},
		{"// +optional", TypeTarget, "", nil, `a/types.go:7:5: marker "optional" may stand on field, not on a type`},
	}
	for _, tt := range tests {
		m, err := r.ParseLine(line(tt.text), tt.target)
		switch {
		case tt.err != "":
			if err == nil || err.Error() != tt.err {
				t.Errorf("%s:\n got error %v\nwant error %s", tt.text, err, tt.err)
			}
		case err != nil:
			t.Errorf("%s: unexpected error %v", tt.text, err)
		case tt.name == "":
			if m != nil {
				t.Errorf("%s: parsed as marker %q, want no marker", tt.text, m.Name)
			}
		case m == nil:
			t.Errorf("%s: no marker", tt.text)
		default:
			if m.Name != tt.name || !reflect.DeepEqual(m.Value, tt.value) {
				t.Errorf("%s: got %s=%#v, want %s=%#v", tt.text, m.Name, m.Value, tt.name, tt.value)
			}
		}
	}
}

func TestParseBlockCollectsAllErrorsSorted(t *testing.T) {
	lines := []Line{
		{Text: "// +kubebuilder:validation:Maximun=2", Pos: Position{File: "b.go", Line: 9, Column: 2}},
		{Text: "// +optional", Pos: Position{File: "b.go", Line: 10, Column: 2}},
		{Text: "// +optional", Pos: Position{File: "b.go", Line: 11, Column: 2}},
		{Text: "// +kubebuilder:validation:Minimum=x", Pos: Position{File: "a.go", Line: 3, Column: 2}},
		{Text: "// +listMapKey=a", Pos: Position{File: "b.go", Line: 12, Column: 2}},
		{Text: "// +listMapKey=b", Pos: Position{File: "b.go", Line: 13, Column: 2}},
	}
	ms, errs := Builtin().ParseBlock(lines, FieldTarget)
	if len(ms) != 3 {
		t.Errorf("markers = %d, want 3 (optional once, listMapKey twice)", len(ms))
	}
	err := errs.Err()
	want := `a.go:3:5: marker "kubebuilder:validation:Minimum": invalid number "x"
b.go:9:5: unknown marker "kubebuilder:validation:Maximun": did you mean "kubebuilder:validation:Maximum"?
b.go:11:5: marker "optional" repeated; it may occur once`
	if err == nil || err.Error() != want {
		t.Errorf("errors:\n%v\nwant:\n%s", err, want)
	}
}

func TestMarkdown(t *testing.T) {
	md := string(Builtin().Markdown())
	for _, want := range []string{
		"# Markers\n",
		"## +kubebuilder:resource\n",
		"- spelling: `+kubebuilder:resource:path=<string>,scope=<string>,shortName=<list of strings (a;b or {a,b})>",
		"  - `scope` (string, optional, one of Namespaced|Cluster): Namespaced (default) or Cluster\n",
		"## +kubebuilder:validation:Minimum\n\n- spelling: `+kubebuilder:validation:Minimum=<number>`\n- on: type or field\n",
		"## +k8s:minimum\n",
		"- same as: `+kubebuilder:validation:Minimum`",
		"## +groupName\n",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q", want)
		}
	}
	if md != string(Builtin().Markdown()) {
		t.Error("markdown is not deterministic")
	}
	if n := strings.Count(md, "\n## +"); n != len(Builtin().Names()) {
		t.Errorf("%d sections for %d markers", n, len(Builtin().Names()))
	}
}

func TestClosest(t *testing.T) {
	names := []string{"spec.carrier", "spec.origin.city", "status.phase"}
	for _, tt := range []struct{ in, want string }{
		{"spec.carier", "spec.carrier"}, {"Status.Phase", "status.phase"}, {"metadata.uid", ""}, {"", ""},
	} {
		if got := Closest(tt.in, names); got != tt.want {
			t.Errorf("Closest(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestLevenshtein(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		d    int
	}{{"", "abc", 3}, {"kitten", "sitting", 3}, {"optional", "optinal", 1}, {"same", "same", 0}} {
		if got := levenshtein(tt.a, tt.b); got != tt.d {
			t.Errorf("levenshtein(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.d)
		}
	}
}
