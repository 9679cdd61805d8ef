package validate

import (
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// TestRawObject: a RawExtension holds an object, as the CRD's schema says;
// an embedded resource names its apiVersion and kind.
func TestRawObject(t *testing.T) {
	p := field.NewPath("spec", "extra")
	for _, tc := range []struct {
		raw      string
		embedded bool
		want     string
	}{
		{``, false, ``},
		{` null `, true, ``},
		{`{"a":1}`, false, ``},
		{`5`, false, `spec.extra: Invalid value: "integer": spec.extra in body must be of type object: "integer"`},
		{`5.5`, false, `spec.extra: Invalid value: "number": spec.extra in body must be of type object: "number"`},
		{`"x"`, true, `spec.extra: Invalid value: "string": spec.extra in body must be of type object: "string"`},
		{` [1]`, false, `spec.extra: Invalid value: "array": spec.extra in body must be of type object: "array"`},
		{`true`, false, `spec.extra: Invalid value: "boolean": spec.extra in body must be of type object: "boolean"`},
		{`{"metadata":{"name":"c"}}`, false, ``},
		{`{"metadata":{"name":"c"}}`, true, `[spec.extra.apiVersion: Required value, spec.extra.kind: Required value]`},
		{`{"apiVersion":"v1","kind":""}`, true, `spec.extra.kind: Required value`},
		{`{"apiVersion":"v1","kind":"ConfigMap"}`, true, ``},
	} {
		got := ""
		if errs := RawObject(p, []byte(tc.raw), tc.embedded); len(errs) > 0 {
			got = errs.ToAggregate().Error()
		}
		if got != tc.want {
			t.Errorf("RawObject(%s, embedded %v) = %q, want %q", tc.raw, tc.embedded, got, tc.want)
		}
	}
}
