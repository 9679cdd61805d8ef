package filters

import (
	"os/exec"
	"strings"
	"testing"
)

// TestImportsNoHandlers keeps the filter chain generic: it reads requests
// through runtime/request, and linking the handlers (and with them storage,
// the field manager, OpenAPI and CEL) for that is what this guards against.
func TestImportsNoHandlers(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		for _, banned := range []string{"endpoints", "storage", "fieldmanager", "openapi", "cel"} {
			if dep == "github.com/kubeforge/kubeforge/runtime/"+banned {
				t.Errorf("runtime/filters depends on %s", dep)
			}
		}
	}
}
