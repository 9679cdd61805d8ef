package model

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/kubeforge/kubeforge/generators/markers"
)

// TestLoadSchemaMarkers: the schema markers of controller-tools v0.23.0 a
// kubebuilder project may carry are read into the model: items: markers
// (on fields and list types, merged field over type), the CEL rules of
// +k8s:immutable and the oneOf markers worded as controller-gen words them
// and ordered as it orders them, the X spellings, title, example,
// externalDocs, kubebuilder literals in defaults and +k8s: tag comments.
func TestLoadSchemaMarkers(t *testing.T) {
	t.Parallel()
	api := load(t, "testdata/schemamarkers")
	v := mustVersion(t, api, "gates.example.dev", "v1")

	names := mustField(t, v, "GateSpec", "Names")
	it := names.Validation.Items
	if it == nil || *it.MaxLength != 16 || it.Pattern != "^[a-z]+$" || len(it.XValidations) != 1 ||
		it.XValidations[0].Rule != "self != 'admin'" || it.XValidations[0].Pos.String() != "types/gates/v1/types.go:44:5" {
		t.Fatalf("Names items = %+v", it)
	}
	if *names.Validation.MaxItems != 8 || names.Validation.MaxLength != nil {
		t.Errorf("Names: MaxItems belongs to the list, MaxLength only to the items: %+v", names.Validation)
	}
	if names.SchemaDoc.Title != "Gate names" || string(names.SchemaDoc.Example) != `["north","south"]` {
		t.Errorf("Names doc = %+v (example %s)", names.SchemaDoc, names.SchemaDoc.Example)
	}

	ports := mustField(t, v, "GateSpec", "Ports")
	if pi := ports.Validation.Items; pi == nil || *pi.Minimum != 1 || *pi.Maximum != 65535 || *pi.MultipleOf != 2 {
		t.Errorf("Ports items (type's and field's merged) = %+v", pi)
	}
	if pt := v.Type("Ports"); pt.Validation.Items == nil || pt.Validation.Items.MultipleOf != nil || pt.SchemaDoc.Title != "Port list" {
		t.Errorf("Ports type = %+v %+v", pt.Validation.Items, pt.SchemaDoc)
	}
	if oi := mustField(t, v, "GateSpec", "Objects").Validation.Items; oi == nil || !oi.EmbeddedResource || !oi.PreserveUnknownFields {
		t.Errorf("Objects items = %+v", oi)
	}
	if raw := mustField(t, v, "GateSpec", "Raw"); !raw.EmbeddedResource || !raw.PreserveUnknownFields {
		t.Errorf("Raw: the X spellings are the same markers: embedded=%v preserve=%v", raw.EmbeddedResource, raw.PreserveUnknownFields)
	}

	rule := func(x XValidation) [2]string { return [2]string{x.Rule, x.Message} }
	rules := func(xs []XValidation) [][2]string {
		var out [][2]string
		for _, x := range xs {
			out = append(out, rule(x))
		}
		return out
	}
	serial := mustField(t, v, "GateSpec", "Serial")
	if got := rules(serial.Validation.XValidations); !reflect.DeepEqual(got, [][2]string{{"self == oldSelf", "field is immutable"}}) {
		t.Errorf("Serial rules = %v", got)
	}
	if string(serial.SchemaDoc.Example) != `"SN-1"` {
		t.Errorf("Serial example = %s", serial.SchemaDoc.Example)
	}
	if got := rules(mustField(t, v, "GateSpec", "Owner").Validation.XValidations); !reflect.DeepEqual(got, [][2]string{{"self == oldSelf", "field is immutable"}}) {
		t.Errorf("Owner rules = %v", got)
	}
	// The optional immutable field may not be cleared: a rule on the
	// struct; the required one needs none.
	if got := rules(v.Type("GateSpec").Validation.XValidations); !reflect.DeepEqual(got, [][2]string{
		{"!has(oldSelf.serial) || has(self.serial)", "field serial is immutable once set"},
	}) {
		t.Errorf("GateSpec rules = %v", got)
	}
	if d := v.Type("GateSpec").SchemaDoc.ExternalDocs; d == nil || d.URL != "https://example.com/gates" || d.Description != "Gate guide" {
		t.Errorf("GateSpec externalDocs = %+v", d)
	}

	// controller-gen's order: XValidation, AtMostOneOf, ExactlyOneOf,
	// AtLeastOneOf; its rules and messages, word for word.
	want := [][2]string{
		{"!has(self.socket) || size(self.socket) > 0", "socket must not be empty"},
		{"(has(self.grpc)?1:0)+(has(self.socket)?1:0) <= 1", "at most one of the fields in [grpc socket] may be set"},
		{"(has(self.http)?1:0)+(has(self.https)?1:0)+(has(self.grpc)?1:0) == 1", "exactly one of the fields in [http https grpc] must be set"},
		{"has(self.http)||has(self.socket)", "at least one of the fields in [http socket] must be set"},
	}
	proto := v.Type("Protocol")
	if got := rules(proto.Validation.XValidations); !reflect.DeepEqual(got, want) {
		t.Errorf("Protocol rules:\n got %q\nwant %q", got, want)
	}
	if p := proto.Validation.XValidations[2].Pos.String(); p != "types/gates/v1/types.go:22:4" {
		t.Errorf("ExactlyOneOf rule position = %s", p)
	}
	if k := v.Kind("Gate"); !k.HasRules() {
		t.Error("Gate has CEL rules (immutable, oneOf, items) but HasRules is false")
	}
	// An items: rule alone makes a kind compile rules.
	onlyItems := Validation{Items: &ItemsValidation{Validation: Validation{XValidations: []XValidation{{Rule: "self != ''"}}}}}
	if !onlyItems.HasRules() || (Validation{Items: &ItemsValidation{}}).HasRules() {
		t.Error("Validation.HasRules does not count the items' rules (or counts empty items)")
	}

	limits := mustField(t, v, "GateSpec", "Limits")
	if defJSON(limits) != `{"cpu":"1","memory":"1Gi"}` || string(limits.SchemaDoc.Example) != `{"cpu":"100m"}` ||
		limits.SchemaDoc.ExternalDocs == nil || limits.SchemaDoc.ExternalDocs.URL != "/docs/limits" {
		t.Errorf("Limits default %s example %s docs %+v", defJSON(limits), limits.SchemaDoc.Example, limits.SchemaDoc.ExternalDocs)
	}
	if l := mustField(t, v, "GateSpec", "Levels"); defJSON(l) != "[1,2]" || l.Default.Literal == nil || l.Default.Literal.Kind != ListLit {
		t.Errorf("Levels default = %s", defJSON(l))
	}
	if tags := mustField(t, v, "GateSpec", "Tags"); tags.Validation.MaxItems == nil || *tags.Validation.MaxItems != 4 || tags.Required {
		t.Errorf("Tags (+k8s:maxItems=4 # comment) = %+v", tags.Validation)
	}
}

// TestLoadBadSchemaMarkers: each malformed or misplaced schema marker is
// reported, all together, sorted, at its file:line:col.
// TestK8sRequiredBounds: +k8s:required is +required with controller-gen's
// minimums where no marker sets one: minLength 1 on a string (through a
// pointer), minItems 1 on a list, minProperties 1 on a map or a struct;
// []byte and an explicit bound are left alone.
func TestK8sRequiredBounds(t *testing.T) {
	t.Parallel()
	api := load(t, "testdata/schemamarkers")
	v := mustVersion(t, api, "gates.example.dev", "v1")
	val := func(name string) Validation {
		f := mustField(t, v, "GateSpec", name)
		if !f.Required {
			t.Errorf("%s is not required", name)
		}
		return f.Validation
	}
	n := func(p *int64) int64 {
		if p == nil {
			return -1
		}
		return *p
	}
	if got := n(val("Keeper").MinLength); got != 1 {
		t.Errorf("Keeper minLength = %d, want 1", got)
	}
	if got := n(val("Code").MinLength); got != 3 {
		t.Errorf("Code minLength = %d, want its own 3", got)
	}
	if got := n(val("Lanes").MinItems); got != 1 {
		t.Errorf("Lanes minItems = %d, want 1", got)
	}
	if got := n(val("Owners").MinProperties); got != 1 {
		t.Errorf("Owners minProperties = %d, want 1", got)
	}
	if got := n(val("Guard").MinProperties); got != 1 {
		t.Errorf("Guard minProperties = %d, want 1", got)
	}
	if s := val("Seal"); s.MinItems != nil || s.MinLength != nil {
		t.Errorf("Seal got a bound: %+v", s)
	}
}

func TestLoadBadSchemaMarkers(t *testing.T) {
	t.Parallel()
	_, err := Load("testdata/badschema", LoadOptions{})
	var list markers.ErrorList
	if !errors.As(err, &list) {
		t.Fatalf("error is not a markers.ErrorList: %v", err)
	}
	want := []string{
		`types/bad/v1/markers.go:4:4: type Scalar: +kubebuilder:validation:ExactlyOneOf on a type that is not a struct`,
		`types/bad/v1/markers.go:5:4: type Scalar: +kubebuilder:validation:items:MaxLength on a string, not a list`,
		`types/bad/v1/markers.go:9:4: type Either: +kubebuilder:validation:ExactlyOneOf cannot reference nested fields: b.c`,
		`types/bad/v1/markers.go:9:4: type Either: +kubebuilder:validation:ExactlyOneOf: "zz" is not a JSON field of Either: did you mean "a"?`,
		`types/bad/v1/markers.go:10:4: type Either: +kubebuilder:validation:AtMostOneOf lists "a" twice`,
		`types/bad/v1/markers.go:11:4: type Either: +kubebuilder:validation:AtLeastOneOf: field bare is part of a oneOf constraint and must have omitempty or omitzero tag (or +optional)`,
		`types/bad/v1/markers.go:11:4: type Either: +kubebuilder:validation:AtLeastOneOf: field req is part of a oneOf constraint and cannot be marked as required`,
		`types/bad/v1/markers.go:21:4: type Lists: +kubebuilder:metadata: annotation item "nokey" is not key=value`,
		`types/bad/v1/markers.go:21:4: type Lists: +kubebuilder:metadata: label item "=x" is not key=value`,
		`types/bad/v1/markers.go:22:4: type Lists: +kubebuilder:externalDocs: invalid url "docs/relative": parse "docs/relative": invalid URI for request`,
		`types/bad/v1/markers.go:24:5: field Lists.NotAList: +kubebuilder:validation:items:MaxLength on a string, not a list`,
		`types/bad/v1/markers.go:28:5: field Lists.Numbers: +kubebuilder:validation:items:MaxLength applies to strings; each list item is an integer`,
		`types/bad/v1/markers.go:29:5: field Lists.Numbers: +kubebuilder:validation:items:Minimum=1.5 is not an integer; each list item is an integer`,
		`types/bad/v1/markers.go:30:5: field Lists.Numbers: +kubebuilder:validation:items:MaxItems applies to lists; each list item is an integer`,
		`types/bad/v1/markers.go:34:5: field Lists.Strings: items format "emial" is unknown (known: email, uri, url, uuid, date-time, date, hostname, ipv4, ipv6, cidr, byte, duration, ...)`,
		"types/bad/v1/markers.go:35:5: field Lists.Strings: items pattern \"[a-\" does not compile: error parsing regexp: missing closing ]: `[a-`",
		`types/bad/v1/markers.go:36:5: field Lists.Strings: +kubebuilder:validation:items:MultipleOf applies to numbers; each list item is a string`,
		`types/bad/v1/markers.go:36:5: field Lists.Strings: items multipleOf -1 must be greater than 0`,
		`types/bad/v1/markers.go:40:5: field Lists.Blob: +kubebuilder:validation:items:MinProperties on a string, not a list`,
		`types/bad/v1/markers.go:44:5: field Lists.Item: +k8s:immutable on a field that is not a JSON property (inline or json:"-"); mark the fields it holds`,
		`types/bad/v1/markers.go:47:5: field Lists.Count: invalid example abc: not JSON: invalid character 'a' looking for beginning of value`,
		`types/bad/v1/markers.go:51:5: field Lists.Counts: invalid example {1,x}: item 1: want an integer, got string "x"`,
		`types/bad/v1/markers.go:52:5: marker "kubebuilder:title": want a string, got 42 (write "42" for the text)`,
	}
	var got []string
	for _, e := range list {
		got = append(got, e.Error())
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("errors:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
