package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	"github.com/kubeforge/kubeforge/internal/projectcopy"
	"github.com/kubeforge/kubeforge/runtime/etcd"
)

// celTypes are two kinds that differ only in three CEL rules on their spec
// (a comparison, a messageExpression and a list rule): -cel adds them to a
// copy of the project, generates, builds and serves it, and creates objects
// of both.
const celTypes = `package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Host is a DNS name.
// +kubebuilder:validation:MaxLength=253
type Host string

// PlainSpec has no rules.
type PlainSpec struct {
	MinSize int32  ` + "`json:\"minSize\"`" + `
	MaxSize int32  ` + "`json:\"maxSize\"`" + `
	Owner   string ` + "`json:\"owner,omitempty\"`" + `
	// +kubebuilder:validation:MaxItems=16
	Hosts []Host ` + "`json:\"hosts,omitempty\"`" + `
}

// RuledSpec is PlainSpec with three rules.
// +kubebuilder:validation:XValidation:rule="self.minSize <= self.maxSize",message="minSize must not exceed maxSize"
// +kubebuilder:validation:XValidation:rule="!has(self.owner) || self.owner.size() <= 20",messageExpression="'owner ' + self.owner + ' is too long'"
// +kubebuilder:validation:XValidation:rule="!has(self.hosts) || self.hosts.all(h, h == h.lowerAscii())",message="hosts are lower case"
type RuledSpec struct {
	MinSize int32  ` + "`json:\"minSize\"`" + `
	MaxSize int32  ` + "`json:\"maxSize\"`" + `
	Owner   string ` + "`json:\"owner,omitempty\"`" + `
	// +kubebuilder:validation:MaxItems=16
	Hosts []Host ` + "`json:\"hosts,omitempty\"`" + `
}

// Plain is the kind without rules.
// +kubebuilder:object:root=true
type Plain struct {
	metav1.TypeMeta   ` + "`json:\",inline\"`" + `
	metav1.ObjectMeta ` + "`json:\"metadata,omitempty\"`" + `
	Spec PlainSpec ` + "`json:\"spec\"`" + `
}

// Ruled is the kind with rules.
// +kubebuilder:object:root=true
type Ruled struct {
	metav1.TypeMeta   ` + "`json:\",inline\"`" + `
	metav1.ObjectMeta ` + "`json:\"metadata,omitempty\"`" + `
	Spec RuledSpec ` + "`json:\"spec\"`" + `
}
`

const celGroup = "celbench.kubeforge.dev"

// runCEL measures creates of a kind with three CEL rules against the same
// kind without them, on one apiserver, in alternating rounds.
func runCEL(ctx context.Context, c config) error {
	dir, cleanup, err := benchDir(c, "kubeforge-bench-cel-")
	if err != nil {
		return err
	}
	defer cleanup()
	root, err := exec.CommandContext(ctx, "go", "list", "-m", "-f", "{{.Dir}}").Output()
	if err != nil {
		return fmt.Errorf("find the main module: %w", err)
	}
	proj := filepath.Join(dir, "project")
	if err := projectcopy.Copy(ctx, strings.TrimSpace(string(root)), proj, "e2e/"); err != nil {
		return err
	}
	pkg := filepath.Join(proj, "types", "celbench", "v1")
	if err := os.MkdirAll(pkg, 0o755); err != nil {
		return fmt.Errorf("write the bench types: %w", err)
	}
	doc := "// Package v1 holds the kinds of cmd/bench -cel.\n// +groupName=" + celGroup + "\npackage v1\n"
	if err := os.WriteFile(filepath.Join(pkg, "doc.go"), []byte(doc), 0o644); err != nil {
		return fmt.Errorf("write the bench types: %w", err)
	}
	if err := os.WriteFile(filepath.Join(pkg, "types.go"), []byte(celTypes), 0o644); err != nil {
		return fmt.Errorf("write the bench types: %w", err)
	}
	fmt.Printf("generating and building a copy of the project with two bench kinds ...\n")
	bin := filepath.Join(dir, "apiserver-bin")
	for _, args := range [][]string{{"generate", "./..."}, {"build", "-o", bin, "./cmd/apiserver"}} {
		cmd := exec.CommandContext(ctx, "go", args...)
		cmd.Dir = proj
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("go %s in the copy: %w\n%s", strings.Join(args, " "), err, out)
		}
	}

	e, err := etcd.StartEmbedded(ctx, filepath.Join(dir, "etcd"), etcd.WithLogLevel("fatal"), etcd.WithTLS(filepath.Join(dir, "etcd-pki")), etcd.WithClientSocket(filepath.Join(dir, "etcd.sock")))
	if err != nil {
		return fmt.Errorf("start etcd: %w", err)
	}
	defer e.Close()
	child, err := startAPIServer(ctx, bin, filepath.Join(dir, "apiserver"), e.Endpoints(), e.ClientTLS(), strings.Fields(c.extraArgs))
	if err != nil {
		return err
	}
	defer child.stop()
	h := newHTTPSide(child.url, child.tls, c)
	const ns = "celbench"
	nsBody := []byte(`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"` + ns + `"}}`)
	if err := h.do(ctx, "POST", h.base+"/api/v1/namespaces", nsBody, http.StatusCreated, nil); err != nil {
		return fmt.Errorf("create namespace: %w", err)
	}
	create := func(kind, plural string, round int) func(context.Context, int) error {
		url := h.base + "/apis/" + celGroup + "/v1/namespaces/" + ns + "/" + plural
		return func(ctx context.Context, i int) error {
			body, err := json.Marshal(map[string]any{
				"apiVersion": celGroup + "/v1",
				"kind":       kind,
				"metadata":   map[string]any{"name": fmt.Sprintf("r%d-%06d", round, i)},
				"spec": map[string]any{
					"minSize": 1, "maxSize": 10, "owner": "team-a",
					"hosts": []string{"a.example", "b.example", "c.example"},
				},
			})
			if err != nil {
				return err
			}
			return h.do(ctx, "POST", url, body, http.StatusCreated, nil)
		}
	}
	// A broken object proves the rules run: a 422 from the ruled kind only.
	bad := []byte(`{"apiVersion":"` + celGroup + `/v1","kind":"Ruled","metadata":{"name":"bad"},"spec":{"minSize":5,"maxSize":1}}`)
	if err := h.do(ctx, "POST", h.base+"/apis/"+celGroup+"/v1/namespaces/"+ns+"/ruleds", bad, http.StatusUnprocessableEntity, nil); err != nil {
		return fmt.Errorf("the CEL rules are not enforced: %w", err)
	}

	fmt.Printf("apiserver %s, concurrency %d, %d creates per kind and round, %d rounds\n\n", child.url, c.concurrency, c.objects, c.celRounds)
	fmt.Printf("%-6s | %-6s | %10s %10s %10s\n", "round", "kind", "ops/s", "p50", "p99")
	fmt.Println(strings.Repeat("-", 50))
	var plain, ruled []float64
	for r := 0; r < c.celRounds; r++ {
		// Alternate the order so that warm-up and etcd growth favour
		// neither kind.
		order := []string{"Plain", "Ruled"}
		if r%2 == 1 {
			order[0], order[1] = order[1], order[0]
		}
		for _, kind := range order {
			res, err := parallel(ctx, c.concurrency, c.objects, create(kind, strings.ToLower(kind)+"s", r))
			if err != nil {
				return fmt.Errorf("create %s: %w", kind, err)
			}
			fmt.Printf("%-6d | %-6s | %10.0f %10s %10s\n", r, kind, res.opsPerSec(), round(res.pct(0.5)), round(res.pct(0.99)))
			if kind == "Plain" {
				plain = append(plain, res.opsPerSec())
			} else {
				ruled = append(ruled, res.opsPerSec())
			}
		}
	}
	p, q := median(plain), median(ruled)
	cost := (p/q - 1) * 100
	fmt.Printf("\nmedian creates/s: without rules %.0f, with three CEL rules %.0f: the rules cost %.1f%% per create\n", p, q, cost)
	mark := "PASS"
	if cost >= 10 {
		mark = "MISS"
	}
	fmt.Printf("targets:\n  %s  three CEL rules cost < 10%% of create throughput: %.1f%%\n", mark, cost)
	return nil
}

func median(v []float64) float64 {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	if len(s) == 0 {
		return 0
	}
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
