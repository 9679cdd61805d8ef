package deploy

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"sigs.k8s.io/yaml"

	"github.com/kubeforge/kubeforge/generators/genall"
	"github.com/kubeforge/kubeforge/generators/internal/gentest"
)

func TestGolden(t *testing.T) {
	files, err := Generator{}.Generate(gentest.Load(t, "../apidocs/testdata"))
	if err != nil {
		t.Fatal(err)
	}
	gentest.Golden(t, files, "testdata/golden")
	again, err := Generator{}.Generate(gentest.Load(t, "../apidocs/testdata"))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(files, again) {
		t.Error("output is not deterministic")
	}
}

// TestManifestsDecode decodes every manifest of the built-in kinds strictly
// into its k8s.io/api type (an unknown or misspelt field fails) and checks
// the APIServices, which kube-aggregator's types would need another module
// for, field by field.
func TestManifestsDecode(t *testing.T) {
	files, err := Generator{}.Generate(gentest.Load(t, "../apidocs/testdata"))
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]int{}
	var apiservices []map[string]any
	for _, f := range files {
		if !strings.HasSuffix(f.Path, ".yaml") {
			continue
		}
		if !bytes.HasPrefix(f.Content, []byte("# "+genall.Header)) {
			t.Errorf("%s does not start with the generated header", f.Path)
		}
		for _, doc := range strings.Split(string(f.Content), "\n---\n") {
			var meta struct{ APIVersion, Kind string }
			if err := yaml.Unmarshal([]byte(doc), &meta); err != nil {
				t.Fatalf("%s: %v\n%s", f.Path, err, doc)
			}
			kinds[meta.Kind]++
			var into any
			switch meta.Kind {
			case "Namespace":
				into = &corev1.Namespace{}
			case "ServiceAccount":
				into = &corev1.ServiceAccount{}
			case "Service":
				into = &corev1.Service{}
			case "Deployment":
				into = &appsv1.Deployment{}
			case "StatefulSet":
				into = &appsv1.StatefulSet{}
			case "NetworkPolicy":
				into = &networkingv1.NetworkPolicy{}
			case "ClusterRole":
				into = &rbacv1.ClusterRole{}
			case "ClusterRoleBinding":
				into = &rbacv1.ClusterRoleBinding{}
			case "RoleBinding":
				into = &rbacv1.RoleBinding{}
			case "APIService":
				var m map[string]any
				if err := yaml.UnmarshalStrict([]byte(doc), &m); err != nil {
					t.Fatalf("%s: %v", f.Path, err)
				}
				apiservices = append(apiservices, m)
				continue
			default:
				continue // kustomizations, cert-manager kinds: checked by kubectl kustomize in e2e
			}
			if err := yaml.UnmarshalStrict([]byte(doc), into); err != nil {
				t.Errorf("%s: %s: %v", f.Path, meta.Kind, err)
			}
		}
	}
	for _, k := range []string{"Namespace", "ServiceAccount", "Service", "Deployment", "StatefulSet", "ClusterRoleBinding", "RoleBinding", "APIService"} {
		if kinds[k] == 0 {
			t.Errorf("no %s in deploy/", k)
		}
	}
	var names []string
	for _, a := range apiservices {
		md, _ := a["metadata"].(map[string]any)
		spec, _ := a["spec"].(map[string]any)
		names = append(names, md["name"].(string))
		svc, _ := spec["service"].(map[string]any)
		if svc["name"] != "testdata-apiserver" || svc["namespace"] != "testdata-system" {
			t.Errorf("APIService %v: service %v", md["name"], svc)
		}
	}
	// docs.example.dev serves v1 and v1beta1: v1 is preferred.
	if got := strings.Join(names, " "); got != "v1.docs.example.dev v1beta1.docs.example.dev" {
		t.Errorf("APIServices %s", got)
	}
	if p := APIServices(gentest.Load(t, "../apidocs/testdata")); p[0].VersionPriority <= p[1].VersionPriority {
		t.Errorf("the preferred version does not have the highest priority: %v", p)
	}
}

func TestNamesFor(t *testing.T) {
	for module, ns := range map[string]string{
		"github.com/kubeforge/kubeforge": "kubeforge-system",
		"example.com/Acme_API":           "acme-api-system",
		"x":                              "x-system",
	} {
		if got := NamesFor(module).Namespace; got != ns {
			t.Errorf("NamesFor(%q).Namespace = %q, want %q", module, got, ns)
		}
	}
}
