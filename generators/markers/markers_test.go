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
