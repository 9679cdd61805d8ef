package validation_test

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	markersv1 "github.com/kubeforge/kubeforge/generators/validation/testdata/generated/markers/v1"
	v1 "github.com/kubeforge/kubeforge/generators/validation/testdata/types/markers/v1"
	"github.com/kubeforge/kubeforge/runtime/presence"
)

// valid returns a Widget that passes every check; each case breaks one thing.
func valid() *v1.Widget {
	return &v1.Widget{
		ObjectMeta: metav1.ObjectMeta{Name: "w1", Namespace: "default"},
		Spec: v1.WidgetSpec{
			Owner:  "alice",
			Weight: resource.MustParse("1k"),
		},
	}
}

func ptr[T any](v T) *T { return &v }

// TestGeneratedValidation runs the generated ValidateWidget (from the
// committed golden output, kept fresh by TestGolden) for every marker with a
// passing and a failing value.
func TestGeneratedValidation(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(w *v1.Widget)
		want   []string // "<path>: <message>" as field.Error.Error() prints it; empty: valid
	}{
		{"valid", func(w *v1.Widget) {}, nil},

		{"metadata name must be a DNS subdomain", func(w *v1.Widget) { w.Name = "Bad_Name" },
			[]string{`metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain must consist of`}},
		{"metadata name required", func(w *v1.Widget) { w.Name = "" },
			[]string{`metadata.name: Required value: name or generateName is required`}},
		{"namespaced kind needs a namespace", func(w *v1.Widget) { w.Namespace = "" },
			[]string{`metadata.namespace: Required value`}},
		{"metadata labels", func(w *v1.Widget) { w.Labels = map[string]string{"a b": "x"} },
			[]string{`metadata.labels: Invalid value: "a b": name part must consist of`}},
		{"metadata annotations", func(w *v1.Widget) { w.Annotations = map[string]string{"-": "x"} },
			[]string{`metadata.annotations: Invalid value: "-": name part must consist of`}},
		{"metadata finalizers", func(w *v1.Widget) { w.Finalizers = []string{"a/b/c"} },
			[]string{`metadata.finalizers: Invalid value: "a/b/c": a valid label key`}},

		{"struct properties: absent", func(w *v1.Widget) { w.Spec.Limits = nil }, nil},
		{"struct properties: within", func(w *v1.Widget) { w.Spec.Limits = &v1.Limits{CPU: "1", Disk: v1.Disk{Disk: []string{"a"}}} }, nil},
		{"struct properties: too few", func(w *v1.Widget) { w.Spec.Limits = &v1.Limits{Disk: v1.Disk{Disk: []string{}}} },
			[]string{`spec.limits: Invalid value: 0: spec.limits in body should have at least 1 properties`}},
		{"struct properties: too many, inline counted", func(w *v1.Widget) {
			w.Spec.Limits = &v1.Limits{CPU: "1", Memory: ptr(int64(0)), Disk: v1.Disk{Disk: []string{"a"}}}
		}, []string{`spec.limits: Too many: 3: must have at most 2 items`}},

		{"enum passes", func(w *v1.Widget) { w.Spec.Size = "large" }, nil},
		{"enum fails", func(w *v1.Widget) { w.Spec.Size = "enormous" },
			[]string{`spec.size: Unsupported value: "enormous": supported values: "small", "medium", "large"`}},
		{"integer enum fails", func(w *v1.Widget) { w.Spec.Level = 4 },
			[]string{`spec.level: Unsupported value: 4: supported values: "1", "2", "3"`}},
		{"enum on slice items", func(w *v1.Widget) { w.Spec.Sizes = []v1.Size{"small", "huge"} },
			[]string{`spec.sizes[1]: Unsupported value: "huge": supported values: "small", "medium", "large"`}},

		{"maximum passes at the bound", func(w *v1.Widget) { w.Spec.Replicas = ptr(int32(100)) }, nil},
		{"maximum fails", func(w *v1.Widget) { w.Spec.Replicas = ptr(int32(1000)) },
			[]string{`spec.replicas: Invalid value: 1000: spec.replicas in body should be less than or equal to 100`}},
		{"minimum passes at the bound", func(w *v1.Widget) { w.Spec.Replicas = ptr(int32(0)) }, nil},
		{"minimum fails", func(w *v1.Widget) { w.Spec.Replicas = ptr(int32(-1)) },
			[]string{`spec.replicas: Invalid value: -1: spec.replicas in body should be greater than or equal to 0`}},
		{"exclusive bounds pass inside", func(w *v1.Widget) { w.Spec.Ratio = 0.5 }, nil},
		{"exclusive maximum fails at the bound", func(w *v1.Widget) { w.Spec.Ratio = 1 },
			[]string{`spec.ratio: Invalid value: 1: spec.ratio in body should be less than 1`}},
		{"exclusive minimum fails", func(w *v1.Widget) { w.Spec.Ratio = -0.5 },
			[]string{`spec.ratio: Invalid value: -0.5: spec.ratio in body should be greater than 0`}},
		{"multipleOf passes", func(w *v1.Widget) { w.Spec.Interval = 15 }, nil},
		{"multipleOf fails", func(w *v1.Widget) { w.Spec.Interval = 7 },
			[]string{`spec.interval: Invalid value: 7: spec.interval in body should be a multiple of 5`}},

		{"maxLength counts runes", func(w *v1.Widget) { w.Spec.Code = "äöüßé" }, nil},
		{"maxLength fails", func(w *v1.Widget) { w.Spec.Code = "abcdef" },
			[]string{`spec.code: Too long: may not be more than 5 bytes`}},
		{"minLength fails", func(w *v1.Widget) { w.Spec.Code = "a" },
			[]string{`spec.code: Invalid value: "a": spec.code in body should be at least 2 chars long`}},
		{"pattern passes", func(w *v1.Widget) { w.Spec.Parts = []v1.Part{{Name: "ok-1"}} }, nil},
		{"pattern fails with the index path", func(w *v1.Widget) { w.Spec.Parts = []v1.Part{{Name: "a"}, {Name: "Bad"}} },
			[]string{`spec.parts[1].name: Invalid value: "Bad": spec.parts[1].name in body should match '^[a-z][a-z0-9-]*$'`}},
		{"minimum in a slice item", func(w *v1.Widget) { w.Spec.Parts = []v1.Part{{Name: "a", Count: -2}} },
			[]string{`spec.parts[0].count: Invalid value: -2: spec.parts[0].count in body should be greater than or equal to 1`}},

		{"required string", func(w *v1.Widget) { w.Spec.Owner = "" },
			[]string{`spec.owner: Required value`}},
		{"required quantity", func(w *v1.Widget) { w.Spec.Weight = resource.Quantity{} },
			[]string{`spec.weight: Required value`}},
		{"required in a slice item", func(w *v1.Widget) { w.Spec.Parts = []v1.Part{{Name: ""}} },
			[]string{`spec.parts[0].name: Required value`}},

		{"maxItems fails", func(w *v1.Widget) {
			w.Spec.Parts = []v1.Part{{Name: "a"}, {Name: "b"}, {Name: "c"}, {Name: "d"}}
		}, []string{`spec.parts: Too many: 4: must have at most 3 items`}},
		{"listType=map duplicate key", func(w *v1.Widget) { w.Spec.Parts = []v1.Part{{Name: "a"}, {Name: "a"}} },
			[]string{`spec.parts[1]: Duplicate value: {"name":"a"}`}}, // kube's words for a custom resource
		{"listType=map two keys pass when one differs", func(w *v1.Widget) {
			w.Spec.Ports = []v1.Port{{Name: "http", Port: 80}, {Name: "http", Port: 8080}}
		}, nil},
		{"listType=map two keys duplicate", func(w *v1.Widget) {
			w.Spec.Ports = []v1.Port{{Name: "http", Port: 80}, {Name: "http", Port: 80}}
		}, []string{`spec.ports[1]: Duplicate value: {"name":"http","port":80}`}},
		{"listType=set passes", func(w *v1.Widget) { w.Spec.Tags = []string{"a", "b"} }, nil},
		{"listType=set duplicate", func(w *v1.Widget) { w.Spec.Tags = []string{"a", "b", "a"} },
			[]string{`spec.tags[2]: Duplicate value: "a"`}},
		{"uniqueItems duplicate", func(w *v1.Widget) { w.Spec.Numbers = []int32{1, 1} },
			[]string{`spec.numbers[1]: Duplicate value: 1`}},

		{"maxProperties fails", func(w *v1.Widget) { w.Spec.Labels = map[string]string{"a": "", "b": "", "c": ""} },
			[]string{`spec.labels: Too many: 3: must have at most 2 items`}},
		{"maxProperties passes", func(w *v1.Widget) { w.Spec.Labels = map[string]string{"a": "", "b": ""} }, nil},
		{"map values with key paths, sorted", func(w *v1.Widget) {
			w.Spec.OpeningHours = map[string]v1.Hours{"tue": {Open: "25:00"}, "mon": {Open: "9am"}, "wed": {Open: "08:00"}}
		}, []string{
			`spec.openingHours.mon.open: Invalid value: "9am": spec.openingHours.mon.open in body should match`,
			`spec.openingHours.tue.open: Invalid value: "25:00": spec.openingHours.tue.open in body should match`,
		}},
		{"pointer to struct", func(w *v1.Widget) { w.Spec.Backup = &v1.Part{} },
			[]string{`spec.backup.name: Required value`}},
		{"inline struct flattens into the parent path", func(w *v1.Widget) { w.Spec.Email = "not-an-email" },
			[]string{`spec.email: Invalid value: "not-an-email": spec.email in body must be of type email: "not-an-email"`}},
		{"email passes", func(w *v1.Widget) { w.Spec.Email = "a@example.com" }, nil},

		// +kubebuilder:validation:items:* apply to each item, at its index.
		{"items markers pass", func(w *v1.Widget) {
			w.Spec.Gates = []string{"ab", "abcde"}
			w.Spec.ListenPorts = v1.Ports{2, 65534}
			w.Spec.Grades = &[]int32{1, 3}
			w.Spec.Weights = []float64{0.5}
			w.Spec.Emails = []string{"a@example.com"}
			w.Spec.Matrix = [][]int32{{1}, {1, 2}}
			w.Spec.Settings = []map[string]string{{"a": "b"}, {}}
		}, nil},
		{"items maxLength at the item's index", func(w *v1.Widget) { w.Spec.Gates = []string{"ab", "abcdef"} },
			[]string{`spec.gates[1]: Too long: may not be more than 5 bytes`}},
		{"items minLength and pattern", func(w *v1.Widget) { w.Spec.Gates = []string{"a", "ab", "A1"} },
			[]string{`spec.gates[0]: Invalid value: "a": spec.gates[0] in body should be at least 2 chars long`, `spec.gates[2]: Invalid value: "A1": spec.gates[2] in body should match '^[a-z]+$'`}},
		{"maxItems still on the list", func(w *v1.Widget) { w.Spec.Gates = []string{"ab", "ab", "ab", "ab", "ab"} },
			[]string{`spec.gates: Too many: 5: must have at most 4 items`}},
		{"items bounds from the list type", func(w *v1.Widget) { w.Spec.ListenPorts = v1.Ports{2, 0, 65536} },
			[]string{`spec.listenPorts[1]: Invalid value: 0: spec.listenPorts[1] in body should be greater than or equal to 1`, `spec.listenPorts[2]: Invalid value: 65536: spec.listenPorts[2] in body should be less than or equal to 65535`}},
		{"items multipleOf from the field beside the type's", func(w *v1.Widget) { w.Spec.ListenPorts = v1.Ports{2, 3} },
			[]string{`spec.listenPorts[1]: Invalid value: 3: spec.listenPorts[1] in body should be a multiple of 2`}},
		{"items enum behind a pointer", func(w *v1.Widget) { w.Spec.Grades = &[]int32{1, 4} },
			[]string{`spec.grades[1]: Unsupported value: 4: supported values: "1", "2", "3"`}},
		{"items exclusive minimum", func(w *v1.Widget) { w.Spec.Weights = []float64{1, 0} },
			[]string{`spec.weights[1]: Invalid value: 0: spec.weights[1] in body should be greater than 0`}},
		{"items format", func(w *v1.Widget) { w.Spec.Emails = []string{"a@example.com", "nope"} },
			[]string{`spec.emails[1]: Invalid value: "nope": spec.emails[1] in body must be of type email: "nope"`}},
		{"items maxItems and minItems on a list of lists", func(w *v1.Widget) { w.Spec.Matrix = [][]int32{{1, 2, 3}, {}} },
			[]string{`spec.matrix[0]: Too many: 3: must have at most 2 items`, `spec.matrix[1]: Invalid value: 0: spec.matrix[1] in body should have at least 1 items`}},
		{"items maxProperties on a list of maps", func(w *v1.Widget) { w.Spec.Settings = []map[string]string{{"a": "1", "b": "2"}} },
			[]string{`spec.settings[0]: Too many: 2: must have at most 1 item`}},

		{"hook on the kind gets the root path", func(w *v1.Widget) { w.Spec.Owner = "nobody" },
			[]string{`spec.owner: Forbidden: nobody may not own a widget`}},
		{"hook on every Part after its markers", func(w *v1.Widget) { w.Spec.Parts = []v1.Part{{Name: "ok"}, {Name: "forbidden"}} },
			[]string{`spec.parts[1].name: Forbidden: reserved`}},
		{"marker errors before hook errors", func(w *v1.Widget) { w.Spec.Owner = "nobody"; w.Spec.Size = "x" },
			[]string{`spec.size: Unsupported value`, `spec.owner: Forbidden`}},
	}
	formats := []struct {
		field     string
		set       func(f *v1.Formats, s string)
		good, bad string
		format    string
	}{
		{"uri", func(f *v1.Formats, s string) { f.URI = s }, "https://example.com/x", "not a uri", "uri"},
		{"url", func(f *v1.Formats, s string) { f.URL = s }, "http://example.com", "::", "url"},
		{"uuid", func(f *v1.Formats, s string) { f.UUID = s }, "123e4567-e89b-12d3-a456-426614174000", "123", "uuid"},
		{"dateTime", func(f *v1.Formats, s string) { f.DateTime = s }, "2024-01-02T03:04:05Z", "yesterday", "date-time"},
		{"date", func(f *v1.Formats, s string) { f.Date = s }, "2024-01-02", "2024-13-45", "date"},
		{"hostname", func(f *v1.Formats, s string) { f.Hostname = s }, "example.com", "-bad-.com", "hostname"},
		{"ipv4", func(f *v1.Formats, s string) { f.IPv4 = s }, "10.0.0.1", "10.0.0.256", "ipv4"},
		{"ipv6", func(f *v1.Formats, s string) { f.IPv6 = s }, "::1", "10.0.0.1", "ipv6"},
		{"cidr", func(f *v1.Formats, s string) { f.CIDR = s }, "10.0.0.0/8", "10.0.0.0", "cidr"},
		{"byte", func(f *v1.Formats, s string) { f.Byte = s }, "aGVsbG8=", "!!", "byte"},
		{"duration", func(f *v1.Formats, s string) { f.Duration = s }, "1h30m", "soon", "duration"},
	}
	for _, f := range formats {
		tests = append(tests,
			struct {
				name   string
				mutate func(w *v1.Widget)
				want   []string
			}{"format " + f.format + " passes", func(w *v1.Widget) { f.set(&w.Spec.Formats, f.good) }, nil},
			struct {
				name   string
				mutate func(w *v1.Widget)
				want   []string
			}{"format " + f.format + " fails", func(w *v1.Widget) { f.set(&w.Spec.Formats, f.bad) },
				[]string{`spec.formats.` + f.field + `: Invalid value: "` + f.bad + `": spec.formats.` + f.field + ` in body must be of type ` + f.format}},
		)
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := valid()
			tt.mutate(w)
			errs := markersv1.ValidateWidget(w)
			if len(errs) != len(tt.want) {
				t.Fatalf("got %d errors, want %d:\n%s", len(errs), len(tt.want), errs.ToAggregate())
			}
			for i, want := range tt.want {
				if got := errs[i].Error(); !strings.HasPrefix(got, want) {
					t.Errorf("error %d:\n got %s\nwant %s...", i, got, want)
				}
			}
		})
	}
}

// TestGeneratedValidationTypes checks the error types, not only the text.
func TestGeneratedValidationTypes(t *testing.T) {
	w := valid()
	w.Spec.Owner = ""
	w.Spec.Size = "x"
	w.Spec.Tags = []string{"a", "a"}
	w.Spec.Code = "toolong"
	got := map[string]field.ErrorType{}
	for _, e := range markersv1.ValidateWidget(w) {
		got[e.Field] = e.Type
	}
	want := map[string]field.ErrorType{
		"spec.owner":   field.ErrorTypeRequired,
		"spec.size":    field.ErrorTypeNotSupported,
		"spec.tags[1]": field.ErrorTypeDuplicate,
		"spec.code":    field.ErrorTypeTooLong,
	}
	for path, typ := range want {
		if got[path] != typ {
			t.Errorf("%s: got type %q, want %q (all: %v)", path, got[path], typ, got)
		}
	}
}

// TestClusterScopedKind rejects a namespace on a cluster-scoped kind.
func TestClusterScopedKind(t *testing.T) {
	g := &v1.Gizmo{ObjectMeta: metav1.ObjectMeta{Name: "g", Namespace: "default"}}
	errs := markersv1.ValidateGizmo(g)
	if len(errs) != 1 || errs[0].Field != "metadata.namespace" || errs[0].Type != field.ErrorTypeForbidden {
		t.Fatalf("got %v, want metadata.namespace Forbidden", errs)
	}
	g.Namespace = ""
	if errs := markersv1.ValidateGizmo(g); len(errs) != 0 {
		t.Fatalf("got %v, want no errors", errs)
	}
}

// TestAbsentObjectIsNotChecked: kube-apiserver checks an object's fields
// only where the JSON holds the object. A Widget without spec has no
// spec.owner to require; `spec: {}` sent explicitly has.
func TestAbsentObjectIsNotChecked(t *testing.T) {
	w := &v1.Widget{ObjectMeta: metav1.ObjectMeta{Name: "w1", Namespace: "default"}}
	for _, tc := range []struct {
		body string
		want int
	}{
		{`{"metadata":{"name":"w1"}}`, 0},
		{`{"metadata":{"name":"w1"},"spec":null}`, 0},
		{`{"metadata":{"name":"w1"},"spec":{}}`, 2}, // owner Required, weight's minimum
	} {
		errs := markersv1.ValidateWidgetFrom(w, presence.JSON([]byte(tc.body)))
		t.Logf("%s: %v", tc.body, errs)
		if len(errs) != tc.want {
			t.Errorf("%s: %d errors, want %d: %v", tc.body, len(errs), tc.want, errs)
		}
	}
	if errs := markersv1.ValidateWidget(w); len(errs) != 0 {
		t.Errorf("zero spec, JSON unknown: %v, want no errors", errs)
	}
}
