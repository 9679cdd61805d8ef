package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/kubeforge/kubeforge/generators/genall"
	"github.com/kubeforge/kubeforge/generators/model"
	"github.com/kubeforge/kubeforge/generators/openapi"
	"github.com/kubeforge/kubeforge/internal/projectcopy"
	"github.com/kubeforge/kubeforge/runtime/openapidefs"
)

// TestClientsMatchCodeGenerator is the compatibility contract of the Go
// clients: in a copy of the project with the acceptance types added, our
// generators write generated/{clientset,listers,informers,applyconfiguration};
// then the types get the +genclient markers client-gen needs (derived from
// the model: scope, status, scale) and a register.go, and code-generator's
// kube_codegen.sh gen_client (client-gen, lister-gen, informer-gen,
// applyconfiguration-gen, at the version of our k8s.io modules) writes the
// same tree under codegen/. Both are type-checked and the exported API of
// every package, names and signatures, must be equal, import paths mapped
// codegen/ -> generated/. Needs bash and the Go module proxy (or its cache).
func TestClientsMatchCodeGenerator(t *testing.T) {
	if testing.Short() {
		t.Skip("builds code-generator and type-checks two client trees")
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("kube_codegen.sh needs bash")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	root, err := model.FindRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := projectcopy.Copy(ctx, root, dir); err != nil {
		t.Fatal(err)
	}
	acceptance := filepath.Join(root, "..", "shared", "acceptance", "types", "acceptance")
	if _, err := os.Stat(acceptance); err != nil {
		t.Logf("no %s, using the copy in generators/model/testdata: %v", acceptance, err)
		acceptance = filepath.Join(root, "generators", "model", "testdata", "acceptance", "types", "acceptance")
	}
	if err := os.CopyFS(filepath.Join(dir, "types", "acceptance"), os.DirFS(acceptance)); err != nil {
		t.Fatal(err)
	}
	api, err := model.Load(dir, model.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	files, err := genall.Run(api, Generators())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := genall.Write(dir, files, genall.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	schema := filepath.Join(dir, "codegen-openapi.json")
	if err := prepareForCodeGenerator(api, dir, schema); err != nil {
		t.Fatal(err)
	}
	runKubeCodegen(ctx, t, dir, api.Module, schema)

	ours, err := exportedAPI(ctx, dir, "./generated/clientset/...", "./generated/listers/...", "./generated/informers/...", "./generated/applyconfiguration/...")
	if err != nil {
		t.Fatal(err)
	}
	theirs, err := exportedAPI(ctx, dir, "./codegen/...")
	if err != nil {
		t.Fatal(err)
	}
	mod := api.Module + "/"
	norm := func(s string) string { return strings.ReplaceAll(s, mod+"codegen/", mod+"generated/") }
	want := map[string]bool{}
	for path, decls := range theirs {
		path = norm(path)
		want[path] = true
		got, ok := ours[path]
		if !ok {
			t.Errorf("package %s: code-generator writes it, we do not", path)
			continue
		}
		for name, decl := range decls {
			decl = norm(decl)
			if g, ok := got[name]; !ok {
				t.Errorf("%s: missing %s", path, decl)
			} else if g != decl {
				t.Errorf("%s.%s differs:\n ours:   %s\n theirs: %s", path, name, g, decl)
			}
		}
		for name, decl := range got {
			if _, ok := decls[name]; !ok {
				t.Errorf("%s: we export %s, code-generator does not", path, decl)
			}
		}
	}
	for path := range ours {
		if !want[path] {
			t.Errorf("package %s: we write it, code-generator does not", path)
		}
	}
	if t.Failed() {
		return
	}
	n := 0
	for _, decls := range ours {
		n += len(decls)
	}
	t.Logf("%d packages, %d exported declarations equal", len(ours), n)
}

var kindDecl = regexp.MustCompile(`(?m)^type (\w+) struct`)

// prepareForCodeGenerator adds to the copy what code-generator needs and
// kubeforge does not: +genclient markers on the kinds, a SchemeGroupVersion
// and AddToScheme in each types package (kubeforge generates them in
// generated/<group>/<version>), and the OpenAPI v2 document
// applyconfiguration-gen reads to write Extract functions.
func prepareForCodeGenerator(api *model.API, dir, schemaFile string) error {
	defs := openapidefs.KnownSchemas()
	rename := map[string]string{}
	for _, g := range api.Groups {
		for _, v := range g.Versions {
			if v.External || len(v.Kinds) == 0 {
				continue
			}
			if err := markKinds(dir, v); err != nil {
				return err
			}
			if !v.HasSchemeBuilder {
				if err := os.WriteFile(filepath.Join(dir, v.Dir, "zz_codegen_register.go"), []byte(registerSource(v)), 0o644); err != nil {
					return err
				}
			}
			schemas, err := openapi.Schemas(v)
			if err != nil {
				return err
			}
			for name, raw := range schemas {
				defs[name] = raw
			}
			for _, t := range v.Types {
				rename[openapidefs.LocalName(g.Name, v.Name, t.Name)] = openapidefs.Name(v.Package, t.Name)
			}
		}
	}
	out := map[string]json.RawMessage{}
	for name, raw := range defs {
		text := strings.ReplaceAll(string(raw), `"#/components/schemas/`, `"#/definitions/`)
		for from, to := range rename {
			text = strings.ReplaceAll(text, `"#/definitions/`+from+`"`, `"#/definitions/`+to+`"`)
		}
		if to, ok := rename[name]; ok {
			name = to
		}
		v2, err := toV2(text)
		if err != nil {
			return fmt.Errorf("schema %s: %w", name, err)
		}
		out[name] = v2
	}
	doc, err := json.Marshal(map[string]any{
		"swagger":     "2.0",
		"info":        map[string]string{"title": "kubeforge", "version": "v0"},
		"paths":       map[string]any{},
		"definitions": out,
	})
	if err != nil {
		return err
	}
	return os.WriteFile(schemaFile, doc, 0o644)
}

// toV2 drops what OpenAPI v2 lacks (anyOf, oneOf, nullable) from a v3
// schema: Quantity and IntOrString are anyOf integer/string in v3.
func toV2(schema string) (json.RawMessage, error) {
	var v any
	if err := json.Unmarshal([]byte(schema), &v); err != nil {
		return nil, err
	}
	var strip func(any)
	strip = func(x any) {
		switch x := x.(type) {
		case map[string]any:
			delete(x, "anyOf")
			delete(x, "oneOf")
			delete(x, "nullable")
			for _, e := range x {
				strip(e)
			}
		case []any:
			for _, e := range x {
				strip(e)
			}
		}
	}
	strip(v)
	return json.Marshal(v)
}

// markKinds puts client-gen's markers above each kind's declaration.
func markKinds(dir string, v *model.Version) error {
	kinds := map[string]*model.Kind{}
	for _, k := range v.Kinds {
		kinds[k.Name] = k
	}
	entries, err := os.ReadDir(filepath.Join(dir, v.Dir))
	if err != nil {
		return err
	}
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".go") || strings.HasPrefix(e.Name(), "zz_") {
			continue
		}
		p := filepath.Join(dir, v.Dir, e.Name())
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		out := kindDecl.ReplaceAllStringFunc(string(src), func(decl string) string {
			k := kinds[kindDecl.FindStringSubmatch(decl)[1]]
			if k == nil || !k.Served {
				return decl
			}
			m := []string{"+genclient"}
			if !k.Namespaced {
				m = append(m, "+genclient:nonNamespaced")
			}
			if !k.StatusSubresource && k.StatusField != nil {
				m = append(m, "+genclient:noStatus")
			}
			if k.Scale != nil {
				m = append(m,
					"+genclient:method=GetScale,verb=get,subresource=scale,result=k8s.io/api/autoscaling/v1.Scale",
					"+genclient:method=UpdateScale,verb=update,subresource=scale,input=k8s.io/api/autoscaling/v1.Scale,result=k8s.io/api/autoscaling/v1.Scale")
			}
			return "// " + strings.Join(m, "\n// ") + "\n" + decl
		})
		if out != string(src) {
			if err := os.WriteFile(p, []byte(out), 0o644); err != nil {
				return err
			}
		}
	}
	return nil
}

func registerSource(v *model.Version) string {
	return fmt.Sprintf(`package %s

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

var SchemeGroupVersion = schema.GroupVersion{Group: %q, Version: %q}

func Resource(resource string) schema.GroupResource {
	return SchemeGroupVersion.WithResource(resource).GroupResource()
}

var (
	SchemeBuilder = runtime.NewSchemeBuilder(func(s *runtime.Scheme) error {
		metav1.AddToGroupVersion(s, SchemeGroupVersion)
		return nil
	})
	AddToScheme = SchemeBuilder.AddToScheme
)
`, v.PackageName, v.Group.Name, v.Name)
}

// runKubeCodegen runs kube_codegen.sh gen_client of the code-generator
// release matching our k8s.io/apimachinery, writing into dir/codegen.
func runKubeCodegen(ctx context.Context, t *testing.T, dir, module, schema string) {
	t.Helper()
	out, err := exec.CommandContext(ctx, "go", "list", "-m", "-f", "{{.Version}}", "k8s.io/apimachinery").Output()
	if err != nil {
		t.Fatalf("version of k8s.io/apimachinery: %v", err)
	}
	version := strings.TrimSpace(string(out))
	dl := exec.CommandContext(ctx, "go", "mod", "download", "-json", "k8s.io/code-generator@"+version)
	dl.Dir = t.TempDir()
	out, err = dl.Output()
	if err != nil {
		t.Fatalf("download k8s.io/code-generator@%s: %v", version, err)
	}
	var mod struct{ Dir string }
	if err := json.Unmarshal(out, &mod); err != nil {
		t.Fatal(err)
	}
	boiler := filepath.Join(dir, "codegen-boilerplate.txt")
	if err := os.WriteFile(boiler, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	script := fmt.Sprintf(`set -e; source %q; kube::codegen::gen_client --with-watch --with-applyconfig --applyconfig-openapi-schema %q --output-dir codegen --output-pkg %q --boilerplate %q types`,
		filepath.Join(mod.Dir, "kube_codegen.sh"), schema, module+"/codegen", boiler)
	cmd := exec.CommandContext(ctx, "bash", "-c", script)
	cmd.Dir = dir
	// GOBIN keeps the four tools out of the user's bin directory; GOFLAGS
	// lets the install resolve code-generator's own dependencies.
	cmd.Env = append(os.Environ(), "GOBIN="+filepath.Join(dir, ".codegen-bin"), "GOFLAGS=-mod=mod")
	start := time.Now()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("kube_codegen.sh gen_client: %v\n%s", err, out)
	}
	t.Logf("kube_codegen.sh gen_client (%s) took %v", version, time.Since(start).Round(time.Millisecond))
}

// exportedAPI type-checks the packages matching patterns in dir and
// describes every exported declaration of each, by package path and name.
func exportedAPI(ctx context.Context, dir string, patterns ...string) (map[string]map[string]string, error) {
	pkgs, err := loadTyped(ctx, dir, patterns...)
	if err != nil {
		return nil, err
	}
	out := map[string]map[string]string{}
	for _, p := range pkgs {
		decls := map[string]string{}
		scope := p.Scope()
		for _, name := range scope.Names() {
			obj := scope.Lookup(name)
			if obj.Exported() {
				decls[name] = describe(obj)
			}
		}
		out[p.Path()] = decls
	}
	return out, nil
}
