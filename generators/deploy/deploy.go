// Package deploy writes deploy/: kustomize-ready manifests that run
// cmd/apiserver behind an existing cluster as an aggregated API server,
// registered with one APIService per served group-version of the user's
// groups.
//
//	deploy/base/            Namespace, ServiceAccount and RBAC, the etcd
//	                        StatefulSet, the apiserver Deployment and
//	                        Service, the APIServices (no caBundle)
//	deploy/kustomization.yaml
//	                        the default: base plus the serving certificate
//	                        Secret made from deploy/certs/ (written by
//	                        `apiserver certs`), whose CA becomes every
//	                        APIService's caBundle
//	deploy/cert-manager/    base with a cert-manager Certificate instead,
//	                        and the CA injector's annotation
//	deploy/external-etcd/   a component: use an external etcd over TLS
//	                        instead of the StatefulSet
//
// Names come from the module's last path element ("kubeforge": namespace
// kubeforge-system, Service kubeforge-apiserver).
package deploy

import (
	"bytes"
	"fmt"
	"path"
	"strings"
	"text/template"

	"github.com/kubeforge/kubeforge/generators/genall"
	"github.com/kubeforge/kubeforge/generators/model"
)

// Dir is where the manifests are written, relative to the module root.
const Dir = "deploy"

// Generator writes deploy/.
type Generator struct{}

// Name implements genall.Generator.
func (Generator) Name() string { return "deploy" }

// Names are the names the manifests use, from the module path.
type Names struct {
	Namespace     string // kubeforge-system
	Service       string // kubeforge-apiserver (the Deployment and ServiceAccount too)
	Etcd          string // kubeforge-etcd
	Image         string // kubeforge-apiserver:dev
	ServingSecret string // kubeforge-apiserver-serving
	NamespaceRole string // kubeforge-apiserver:namespaces
}

// NamesFor returns the names for a module path.
func NamesFor(module string) Names {
	base := strings.ToLower(path.Base(module))
	base = strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' {
			return r
		}
		return '-'
	}, base)
	base = strings.Trim(base, "-")
	if base == "" {
		base = "apiserver"
	}
	return Names{
		Namespace:     base + "-system",
		Service:       base + "-apiserver",
		Etcd:          base + "-etcd",
		Image:         base + "-apiserver:dev",
		ServingSecret: base + "-apiserver-serving",
		NamespaceRole: base + "-apiserver:namespaces",
	}
}

// APIService is one group-version to register.
type APIService struct {
	Group, Version  string
	VersionPriority int
}

// Name is the APIService's name, "<version>.<group>".
func (a APIService) Name() string { return a.Version + "." + a.Group }

// APIServices are the served group-versions of the user's groups, in
// order; the preferred version of a group gets the highest priority.
func APIServices(api *model.API) []APIService {
	var out []APIService
	for _, g := range api.Owned().Groups {
		var served []*model.Version
		for _, v := range g.Versions {
			if len(v.ServedKinds()) > 0 {
				served = append(served, v)
			}
		}
		for i, v := range served {
			out = append(out, APIService{Group: g.Name, Version: v.Name, VersionPriority: 10 * (len(served) - i)})
		}
	}
	return out
}

// Generate implements genall.Generator.
func (Generator) Generate(api *model.API) ([]genall.File, error) {
	data := struct {
		Names
		APIServices []APIService
		Header      string
	}{NamesFor(api.Module), APIServices(api), genall.Header}
	if len(data.APIServices) == 0 {
		return nil, nil
	}
	var files []genall.File
	for _, f := range manifests {
		t, err := template.New(f.path).Option("missingkey=error").Parse(f.text)
		if err != nil {
			return nil, fmt.Errorf("deploy manifest %s: %w", f.path, err)
		}
		var b bytes.Buffer
		if err := t.Execute(&b, data); err != nil {
			return nil, fmt.Errorf("deploy manifest %s: %w", f.path, err)
		}
		files = append(files, genall.File{Path: Dir + "/" + f.path, Content: b.Bytes()})
	}
	return files, nil
}
