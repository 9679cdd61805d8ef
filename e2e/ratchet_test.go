package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// ratchetTypes is a kind whose marker validation and CEL rule the test
// tightens between two builds; {{MAX}} and {{LEN}} are the limits.
const ratchetTypes = `package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// QuotaSpec is what a Quota asks for.
type QuotaSpec struct {
	// +kubebuilder:validation:Maximum={{MAX}}
	Size int32 ` + "`json:\"size\"`" + `
	// +kubebuilder:validation:XValidation:rule="self.size() <= {{LEN}}",message="label is too long"
	Label string ` + "`json:\"label,omitempty\"`" + `
	Note  string ` + "`json:\"note,omitempty\"`" + `
}

// Quota is a kind whose validation tightens.
// +kubebuilder:object:root=true
type Quota struct {
	metav1.TypeMeta   ` + "`json:\",inline\"`" + `
	metav1.ObjectMeta ` + "`json:\"metadata,omitempty\"`" + `
	Spec QuotaSpec ` + "`json:\"spec\"`" + `
}
`

// TestRatchetingAcrossATighterBuild stores a Quota, tightens its Maximum
// and its CEL rule, regenerates, rebuilds and restarts on the same data,
// and updates the old object: a write that leaves the now invalid fields
// as they are succeeds (CRD validation ratcheting, as kube-apiserver does
// since 1.30), one that changes them to other invalid values is refused,
// and a new object with the old values is refused.
func TestRatchetingAcrossATighterBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("generates and builds a copy of the project twice")
	}
	root := t.TempDir()
	copyProject(t, root)
	pkg := filepath.Join(root, "types", "ratchet", "v1")
	if err := os.MkdirAll(pkg, 0o755); err != nil {
		t.Fatal(err)
	}
	doc := "// Package v1 tests validation ratcheting.\n// +groupName=ratchet.kubeforge.dev\npackage v1\n"
	if err := os.WriteFile(filepath.Join(pkg, "doc.go"), []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	build := func(max, length string) string {
		t.Helper()
		src := strings.NewReplacer("{{MAX}}", max, "{{LEN}}", length).Replace(ratchetTypes)
		if err := os.WriteFile(filepath.Join(pkg, "types.go"), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		bin := filepath.Join(root, "apiserver-"+max)
		for _, args := range [][]string{{"generate", "./..."}, {"build", "-o", bin, "./cmd/apiserver"}} {
			cmd := exec.Command("go", args...)
			cmd.Dir = root
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
			}
		}
		return bin
	}
	data := t.TempDir()
	loose, tight := build("100", "20"), build("50", "10")

	s, err := startServerBin(loose, data, 0)
	if err != nil {
		t.Fatal(err)
	}
	k := newKubectl(t, s)
	const quota = `apiVersion: ratchet.kubeforge.dev/v1
kind: Quota
metadata:
  name: %s
spec:
  size: 80
  label: sixteen-letters!
`
	k.ok(t, strings.Replace(quota, "%s", "old", 1), "create", "-f", "-")
	if err := s.stop(); err != nil {
		t.Fatal(err)
	}

	s, err = startServerBin(tight, data, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.stop() })
	k = newKubectl(t, s)
	// The tighter build refuses the old values on a new object.
	if r := k.run(t, strings.Replace(quota, "%s", "new", 1), "create", "-f", "-"); r.code == 0 ||
		!strings.Contains(r.stderr, "spec.size") || !strings.Contains(r.stderr, "label is too long") {
		t.Errorf("create with the old values under the tighter build: want a 422 naming both fields:\n%s", r)
	}
	// An update that leaves them alone ratchets: merge patch, apply and a
	// full replace.
	k.ok(t, "", "patch", "quota", "old", "--type=merge", "-p", `{"spec":{"note":"touched"}}`)
	k.ok(t, strings.Replace(quota, "%s", "old", 1)+"  note: applied\n", "apply", "--server-side", "--field-manager=ratchet", "--force-conflicts", "-f", "-")
	cur := k.ok(t, "", "get", "quota", "old", "-o", "yaml")
	k.ok(t, strings.Replace(cur, "note: applied", "note: replaced", 1), "replace", "-f", "-")
	// Changing an invalid value to another invalid one is refused; nothing
	// is stored.
	for _, bad := range []struct{ patch, msg string }{
		{`{"spec":{"size":90}}`, "spec.size: Invalid value: 90: spec.size in body should be less than or equal to 50"},
		{`{"spec":{"label":"seventeen-letters"}}`, "label is too long"},
	} {
		if r := k.run(t, "", "patch", "quota", "old", "--type=merge", "-p", bad.patch); r.code == 0 || !strings.Contains(r.stderr, bad.msg) {
			t.Errorf("patch %s: want a 422 with %q:\n%s", bad.patch, bad.msg, r)
		}
	}
	if got := k.ok(t, "", "get", "quota", "old", "-o", "jsonpath={.spec.size} {.spec.label} {.spec.note}"); got != "80 sixteen-letters! replaced" {
		t.Errorf("after the writes: %q", got)
	}
	// Fixing the values is of course allowed.
	k.ok(t, "", "patch", "quota", "old", "--type=merge", "-p", `{"spec":{"size":40,"label":"short"}}`)
}
