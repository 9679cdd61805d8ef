package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubeforge/kubeforge/internal/projectcopy"
)

// TestKubernetesStructsAsFields adds testdata/corpus (a kind whose spec
// holds PodTemplateSpec, PodSpec, DeploymentSpec, JobTemplateSpec,
// ResourceRequirements, Volumes, IngressSpec, ObjectReference,
// LabelSelector, IntOrString and Quantity fields) to a copy of the project
// as a kubebuilder user would, generates, builds and serves it, and drives
// it with kubectl: k8s.io/api's own markers never fail generation, and the
// defaults and schema are the ones a controller-gen CRD of the same types
// carries on kube-apiserver (protocol: TCP on a container port, the field
// docs in explain).
func TestKubernetesStructsAsFields(t *testing.T) {
	if testing.Short() {
		t.Skip("generates and builds a copy of the project")
	}
	root := t.TempDir()
	copyProject(t, root)
	dst := filepath.Join(root, "types", "corpus", "v1")
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"doc.go", "types.go"} {
		src, err := os.ReadFile(filepath.Join("testdata", "corpus", "v1", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, f), src, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	gen := exec.Command("go", "generate", "./...")
	gen.Dir = root
	out, err := gen.CombinedOutput()
	if err != nil {
		t.Fatalf("go generate with the corpus: %v\n%s", err, out)
	}
	if n := strings.Count(string(out), "\n"); n > 1 {
		t.Errorf("go generate printed more than one summary line:\n%s", out)
	}
	bin := filepath.Join(root, "apiserver")
	build := exec.Command("go", "build", "-o", bin, "./cmd/apiserver")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build with the corpus: %v\n%s", err, out)
	}
	s, err := startServerBin(bin, t.TempDir(), 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.stop() })
	k := newKubectl(t, s)
	manifest, err := filepath.Abs(filepath.Join("testdata", "corpus", "workload.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	wantOut(t, k.ok(t, "", "create", "-f", manifest), "workload.corpus.kubeforge.dev/w1 created\n")
	var w struct {
		Spec struct {
			Template struct {
				Spec struct {
					Containers []struct {
						Ports []struct {
							ContainerPort int    `json:"containerPort"`
							Protocol      string `json:"protocol"`
						} `json:"ports"`
						Resources struct {
							Limits map[string]string `json:"limits"`
						} `json:"resources"`
					} `json:"containers"`
				} `json:"spec"`
			} `json:"template"`
			MaxSurge any    `json:"maxSurge"`
			Memory   string `json:"memory"`
			Selector struct {
				MatchExpressions []struct {
					Operator string `json:"operator"`
				} `json:"matchExpressions"`
			} `json:"selector"`
		} `json:"spec"`
	}
	if err := json.Unmarshal([]byte(k.ok(t, "", "get", "workload", "w1", "-o", "json")), &w); err != nil {
		t.Fatal(err)
	}
	c := w.Spec.Template.Spec.Containers
	if len(c) != 1 || len(c[0].Ports) != 1 || c[0].Ports[0].Protocol != "TCP" || c[0].Ports[0].ContainerPort != 80 {
		t.Errorf("container ports = %+v, want port 80 defaulted to protocol TCP", c)
	}
	if len(c) == 1 && c[0].Resources.Limits["memory"] != "128Mi" {
		t.Errorf("limits = %v", c[0].Resources.Limits)
	}
	if w.Spec.MaxSurge != "25%" || w.Spec.Memory != "1Gi" || len(w.Spec.Selector.MatchExpressions) != 1 {
		t.Errorf("spec = %+v", w.Spec)
	}
	explain := k.ok(t, "", "explain", "workloads.spec.template.spec.containers.ports.protocol")
	for _, want := range []string{"FIELD: protocol <string>", `Defaults to "TCP"`} {
		if !strings.Contains(explain, want) {
			t.Errorf("explain lacks %q:\n%s", want, explain)
		}
	}
	k.ok(t, "", "apply", "--server-side", "--field-manager=corpus", "-f", manifest)

	// CEL rules, as kube-apiserver enforces them for the CRD: type-level,
	// messageExpression, a transition rule and a list rule, with kube's
	// messages; nothing is stored.
	for _, bad := range []struct{ patch, msg string }{
		{`{"spec":{"replicas":0}}`, "a surge needs replicas"},
		{`{"spec":{"owner":"someone-with-a-very-long-name"}}`, "owner someone-with-a-very-long-name is too long"},
		{`{"spec":{"hosts":["a.example","B.example"]}}`, "spec.hosts: Forbidden: hosts are lower case"},
	} {
		r := k.run(t, "", "patch", "workload", "w1", "--type=merge", "-p", bad.patch)
		if r.code == 0 || !strings.Contains(r.stderr, bad.msg) {
			t.Errorf("patch %s: want a 422 saying %q:\n%s", bad.patch, bad.msg, r)
		}
	}
	// Past an error that blocks them (too many items, a wrong type: the
	// schema's), kube-apiserver runs no rule and says so.
	hosts := `"h0"` + strings.Repeat(`,"h"`, 16)
	for _, bad := range []struct{ patch, msg string }{
		{`{"spec":{"owner":"someone-with-a-very-long-name","hosts":[` + hosts + `]}}`, "spec.hosts: Too many: 17: must have at most 16 items"},
		{`{"spec":{"owner":"someone-with-a-very-long-name","replicas":"many"}}`, `spec.replicas in body must be of type integer: "string"`},
	} {
		r := k.run(t, "", "patch", "workload", "w1", "--type=merge", "-p", bad.patch)
		if r.code == 0 || !strings.Contains(r.stderr, bad.msg) || !strings.Contains(r.stderr, "<nil>: Invalid value: null: some validation rules were not checked because the object was invalid") ||
			strings.Contains(r.stderr, "is too long") {
			t.Errorf("patch %s: want %q and kube's note that the rules were not checked, and no rule's error:\n%s", bad.patch, bad.msg, r)
		}
	}
	k.ok(t, "", "patch", "workload", "w1", "--type=merge", "-p", `{"spec":{"owner":"ops","hosts":["a.example"]}}`)
	if r := k.run(t, "", "patch", "workload", "w1", "--type=merge", "-p", `{"spec":{"owner":"dev"}}`); r.code == 0 || !strings.Contains(r.stderr, "owner is immutable") {
		t.Errorf("changing the owner: want the transition rule's 422:\n%s", r)
	}
	if got := k.ok(t, "", "get", "workload", "w1", "-o", "jsonpath={.spec.owner}"); got != "ops" {
		t.Errorf("after the refused writes: owner %q, want ops", got)
	}

	// The scale subresource, as kube-apiserver serves a CRD's.
	if out := k.ok(t, "", "api-resources", "--api-group=corpus.kubeforge.dev", "-o", "wide"); !strings.Contains(out, "workloads") {
		t.Errorf("api-resources: %s", out)
	}
	raw := k.ok(t, "", "get", "--raw", "/apis/corpus.kubeforge.dev/v1")
	if !strings.Contains(raw, `"name":"workloads/scale"`) || !strings.Contains(raw, `"group":"autoscaling","version":"v1","kind":"Scale"`) {
		t.Errorf("discovery lacks workloads/scale as an autoscaling/v1 Scale: %s", raw)
	}
	wantOut(t, k.ok(t, "", "scale", "workload", "w1", "--replicas=3"), "workload.corpus.kubeforge.dev/w1 scaled\n")
	if got := k.ok(t, "", "get", "workload", "w1", "-o", "jsonpath={.spec.replicas}"); got != "3" {
		t.Errorf("after kubectl scale: spec.replicas = %q, want 3", got)
	}
	k.ok(t, "", "patch", "workload", "w1", "--subresource=status", "--type=merge", "-p", `{"status":{"replicas":3,"selector":"app=w"}}`)
	scale := k.ok(t, "", "get", "--raw", "/apis/corpus.kubeforge.dev/v1/namespaces/default/workloads/w1/scale")
	for _, want := range []string{`"kind":"Scale"`, `"apiVersion":"autoscaling/v1"`, `"spec":{"replicas":3}`, `"replicas":3,"selector":"app=w"`} {
		if !strings.Contains(scale, want) {
			t.Errorf("GET /scale lacks %s: %s", want, scale)
		}
	}
	// With a stale resourceVersion kubectl scale is refused (409); with the
	// current one it goes through.
	if r := k.run(t, "", "scale", "workload", "w1", "--replicas=4", "--resource-version=1"); r.code == 0 || !strings.Contains(r.stderr, "resource version") {
		t.Errorf("scale with a stale resourceVersion: want a conflict:\n%s", r)
	}
	rv := k.ok(t, "", "get", "workload", "w1", "-o", "jsonpath={.metadata.resourceVersion}")
	k.ok(t, "", "scale", "workload", "w1", "--replicas=5", "--resource-version="+rv)
	// The object's own validation applies to a write through /scale
	// (replicas at most 50), and a negative count is the Scale's 422;
	// nothing is stored.
	for _, bad := range []struct{ body, msg string }{
		{`{"spec":{"replicas":60}}`, "spec.replicas"},
		{`{"spec":{"replicas":-1}}`, "must be greater than or equal to 0"},
	} {
		r := k.run(t, "", "patch", "workload", "w1", "--subresource=scale", "--type=merge", "-p", bad.body)
		if r.code == 0 || !strings.Contains(r.stderr, bad.msg) {
			t.Errorf("scale patch %s: want a 422 naming %q:\n%s", bad.body, bad.msg, r)
		}
	}
	if got := k.ok(t, "", "get", "workload", "w1", "-o", "jsonpath={.spec.replicas} {.status.replicas}"); got != "5 3" {
		t.Errorf("after the refused scale writes: %q, want 5 3", got)
	}
	scaleApply(t, s)
	// A bad value inside a Kubernetes struct is refused as kube-apiserver
	// refuses it for the CRD: the enum of the protocol.
	bad := strings.Replace(mustRead(t, manifest), "- containerPort: 80", "- containerPort: 80\n          protocol: QUIC", 1)
	bad = strings.Replace(bad, "name: w1", "name: w2", 1)
	if r := k.run(t, bad, "create", "-f", "-"); r.code == 0 || !strings.Contains(r.stderr, "protocol") {
		t.Errorf("create with protocol QUIC: want a 422 naming the field:\n%s", r)
	}
	typedScale(t, root, s)
}

// typedScaleProgram uses the generated clients of the copy: GetScale and
// UpdateScale of the typed Workload client, a lister over the shared
// informer, and an apply configuration of a kind full of k8s.io/api types.
const typedScaleProgram = `package main

import (
	"context"
	"fmt"
	"os"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"

	applyv1 "MODULE/generated/applyconfiguration/corpus/v1"
	"MODULE/generated/clientset/versioned"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func run() error {
	ctx := context.Background()
	config, err := clientcmd.BuildConfigFromFlags("", os.Args[1])
	if err != nil {
		return err
	}
	workloads := versioned.NewForConfigOrDie(config).CorpusV1().Workloads("default")
	scale, err := workloads.GetScale(ctx, "w1", metav1.GetOptions{})
	if err != nil {
		return fmt.Errorf("get scale: %w", err)
	}
	before := scale.Spec.Replicas
	scale.Spec.Replicas = before + 2
	updated, err := workloads.UpdateScale(ctx, "w1", scale, metav1.UpdateOptions{FieldManager: "typed"})
	if err != nil {
		return fmt.Errorf("update scale: %w", err)
	}
	w, err := workloads.Get(ctx, "w1", metav1.GetOptions{})
	if err != nil {
		return err
	}
	if updated.Spec.Replicas != before+2 || w.Spec.Replicas == nil || *w.Spec.Replicas != before+2 {
		return fmt.Errorf("replicas %d -> scale %d, object %v", before, updated.Spec.Replicas, w.Spec.Replicas)
	}
	// Apply replicas with an apply configuration (the server merges it
	// into the object full of k8s.io/api structs), then extract it back.
	ac := applyv1.Workload("w1", "default").WithSpec(applyv1.WorkloadSpec().WithReplicas(before + 3))
	applied, err := workloads.Apply(ctx, ac, metav1.ApplyOptions{FieldManager: "typed", Force: true})
	if err != nil {
		return fmt.Errorf("apply: %w", err)
	}
	owned, err := applyv1.ExtractWorkload(applied, "typed")
	if err != nil {
		return fmt.Errorf("extract: %w", err)
	}
	if owned.Spec == nil || owned.Spec.Replicas == nil || *owned.Spec.Replicas != before+3 || owned.Spec.Template != nil {
		return fmt.Errorf("extracted %+v", owned.Spec)
	}
	fmt.Printf("scale %d -> %d, applied and extracted replicas %d\n", before, updated.Spec.Replicas, *owned.Spec.Replicas)
	return nil
}
`

// typedScale builds and runs typedScaleProgram in the copy against s: the
// scale subresource through the generated typed client.
func typedScale(t *testing.T, root string, s *apiserver) {
	t.Helper()
	dir := filepath.Join(root, "cmd", "typedscale")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	src := strings.ReplaceAll(typedScaleProgram, "MODULE", "github.com/kubeforge/kubeforge")
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	run := exec.Command("go", "run", "./cmd/typedscale", filepath.Join(s.dataDir, "admin.kubeconfig"))
	run.Dir = root
	out, err := run.CombinedOutput()
	if err != nil {
		t.Fatalf("typed scale client: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "applied and extracted replicas") {
		t.Errorf("typed scale client: %s", out)
	}
}

func mustRead(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// copyProject copies the main module's tracked files (git ls-files) to dst.
func copyProject(t *testing.T, dst string) {
	t.Helper()
	if err := projectcopy.Copy(context.Background(), "..", dst, "e2e/"); err != nil {
		t.Fatal(err)
	}
}

// scaleApply applies replicas through /scale (server-side apply of an
// autoscaling/v1 Scale), as an HPA-like controller does: the manager owns
// the object's spec.replicas (subresource "scale"), another manager's
// apply of replicas conflicts with it, and the rest of the object is kept.
func scaleApply(t *testing.T, s *apiserver) {
	t.Helper()
	workloads := s.dynamic(t).Resource(schema.GroupVersionResource{Group: "corpus.kubeforge.dev", Version: "v1", Resource: "workloads"}).Namespace("default")
	c := ctx(t, 30*time.Second)
	apply := func(manager string, replicas int, force bool) (*unstructured.Unstructured, error) {
		body := fmt.Sprintf(`{"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":"w1"},"spec":{"replicas":%d}}`, replicas)
		return workloads.Patch(c, "w1", types.ApplyPatchType, []byte(body), metav1.PatchOptions{FieldManager: manager, Force: &force}, "scale")
	}
	sc, err := apply("autoscaler", 7, true)
	if err != nil {
		t.Fatalf("apply through /scale: %v", err)
	}
	if got, _, _ := unstructured.NestedInt64(sc.Object, "spec", "replicas"); got != 7 || sc.GetKind() != "Scale" {
		t.Errorf("apply through /scale returned %v", sc.Object)
	}
	obj, err := workloads.Get(c, "w1", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got, _, _ := unstructured.NestedInt64(obj.Object, "spec", "replicas"); got != 7 {
		t.Errorf("spec.replicas after the scale apply = %d, want 7", got)
	}
	if owner, _, _ := unstructured.NestedString(obj.Object, "spec", "owner"); owner != "ops" {
		t.Errorf("the scale apply changed spec.owner to %q", owner)
	}
	var found bool
	for _, e := range obj.GetManagedFields() {
		if e.Manager != "autoscaler" {
			continue
		}
		found = true
		if e.Operation != metav1.ManagedFieldsOperationApply || e.Subresource != "scale" || e.APIVersion != "corpus.kubeforge.dev/v1" ||
			e.FieldsV1 == nil || string(e.FieldsV1.Raw) != `{"f:spec":{"f:replicas":{}}}` {
			t.Errorf("managedFields entry of the scale apply = %+v (%s)", e, e.FieldsV1)
		}
	}
	if !found {
		t.Errorf("no managedFields entry for the scale apply: %+v", obj.GetManagedFields())
	}
	// Another manager applying replicas conflicts; nothing is stored.
	if _, err := apply("someone-else", 9, false); !apierrors.IsConflict(err) || !strings.Contains(err.Error(), `conflict with "autoscaler"`) {
		t.Errorf("a second manager's scale apply: want a 409 naming autoscaler, got %v", err)
	}
	// The wrong kind in the apply configuration is a 400.
	bad := `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"w1"},"spec":{"replicas":2}}`
	if _, err := workloads.Patch(c, "w1", types.ApplyPatchType, []byte(bad), metav1.PatchOptions{FieldManager: "x"}, "scale"); !apierrors.IsBadRequest(err) {
		t.Errorf("apply of a Pod through /scale: want a 400, got %v", err)
	}
	obj, err = workloads.Get(c, "w1", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got, _, _ := unstructured.NestedInt64(obj.Object, "spec", "replicas"); got != 7 {
		t.Errorf("spec.replicas after the refused applies = %d, want 7", got)
	}
	// A negative count applied through /scale is the Scale's 422.
	if _, err := apply("autoscaler", -2, true); !apierrors.IsInvalid(err) {
		t.Errorf("apply of replicas -2 through /scale: want a 422, got %v", err)
	}
	// Back to 5 for the checks that follow.
	if _, err := apply("autoscaler", 5, true); err != nil {
		t.Fatal(err)
	}
}
