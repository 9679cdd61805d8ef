package model

import (
	"errors"
	"strings"
	"testing"

	"github.com/kubeforge/kubeforge/generators/markers"
)

// TestConvertibleErrors: controller-runtime conversion methods with a wrong
// signature, a spoke with one of the two methods, and a Convertible spoke
// whose hub has no Hub() are errors at their positions, the last naming
// both kinds.
func TestConvertibleErrors(t *testing.T) {
	t.Parallel()
	_, err := Load("testdata/convbad", LoadOptions{})
	var list markers.ErrorList
	if !errors.As(err, &list) {
		t.Fatalf("want a markers.ErrorList, got %v", err)
	}
	want := []string{
		`types/conv/v2/types.go:13:6: kind Thing: conv.example.dev/v2 converts by ConvertTo/ConvertFrom (conversion.Convertible), but its hub conv.example.dev/v1 Thing (types/conv/v1/types.go:11:6) has no Hub() method: write func (*Thing) Hub() {} in types/conv/v1`,
		`types/conv/v3/types.go:26:15: kind Thing: method ConvertTo has signature func ConvertTo(dst *v1.Thing) error; controller-runtime's conversion.Convertible needs func (*Thing) ConvertTo(dst conversion.Hub) error, conversion being "sigs.k8s.io/controller-runtime/pkg/conversion"`,
		`types/conv/v4/types.go:24:15: kind Thing: ConvertTo without ConvertFrom; conversion.Convertible needs both: write func (*Thing) ConvertFrom(src conversion.Hub) error`,
		`types/conv/v4/types.go:34:14: kind Other: method Hub has signature func Hub(x int); controller-runtime's conversion.Hub needs func (*Other) Hub()`,
	}
	var got []string
	for _, e := range list {
		got = append(got, e.Error())
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("errors:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
