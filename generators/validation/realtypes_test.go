package validation

import (
	"testing"

	"github.com/kubeforge/kubeforge/generators/defaults"
	"github.com/kubeforge/kubeforge/generators/model"
)

// TestRealTypes generates for the project's own types/ (shipping, infra):
// every marker there must be supported.
func TestRealTypes(t *testing.T) {
	api, err := model.Load("../..", model.LoadOptions{})
	if err != nil {
		t.Skipf("load ../../types: %v", err)
	}
	if _, err := New().Generate(api); err != nil {
		t.Fatalf("validation: %v", err)
	}
	if _, err := defaults.New().Generate(api); err != nil {
		t.Fatalf("defaults: %v", err)
	}
}
