package main

import (
	"github.com/kubeforge/kubeforge/generators/apidocs"
	"github.com/kubeforge/kubeforge/generators/applyconfig"
	"github.com/kubeforge/kubeforge/generators/celcheck"
	"github.com/kubeforge/kubeforge/generators/clientset"
	"github.com/kubeforge/kubeforge/generators/conversion"
	"github.com/kubeforge/kubeforge/generators/deepcopy"
	"github.com/kubeforge/kubeforge/generators/defaults"
	"github.com/kubeforge/kubeforge/generators/deploy"
	"github.com/kubeforge/kubeforge/generators/genall"
	"github.com/kubeforge/kubeforge/generators/informers"
	"github.com/kubeforge/kubeforge/generators/install"
	"github.com/kubeforge/kubeforge/generators/listers"
	"github.com/kubeforge/kubeforge/generators/lists"
	"github.com/kubeforge/kubeforge/generators/markers"
	"github.com/kubeforge/kubeforge/generators/model"
	"github.com/kubeforge/kubeforge/generators/openapi"
	"github.com/kubeforge/kubeforge/generators/register"
	"github.com/kubeforge/kubeforge/generators/routes"
	"github.com/kubeforge/kubeforge/generators/storage"
	"github.com/kubeforge/kubeforge/generators/validation"
	"github.com/kubeforge/kubeforge/generators/webhooks"
)

// Generators is THE list of generators cmd/gen runs, in order. Add a new
// generator here (and nowhere else): go generate, hack/update-codegen.sh,
// -verify, the generate-twice test and BenchmarkGenerate all use it.
func Generators() []genall.Generator {
	return []genall.Generator{
		deepcopy.Generator{},
		lists.Generator{},
		defaults.New(),
		validation.New(),
		conversion.New(),
		register.Generator{},
		openapi.Generator{},
		storage.New(),
		routes.New(),
		webhooks.Generator{},
		install.New(),
		markersDoc,
		apidocs.Generator{},
		deploy.Generator{},
		celcheck.Generator{},
		clientset.Generator{},
		listers.Generator{},
		informers.Generator{},
		applyconfig.Generator{},
	}
}

// MarkersDocPath is the generated marker reference.
const MarkersDocPath = "docs/markers.md"

// markersDoc writes docs/markers.md from the registry.
var markersDoc = genall.Func{GenName: "markers-doc", Fn: func(*model.API) ([]genall.File, error) {
	return []genall.File{{Path: MarkersDocPath, Content: markers.Builtin().Markdown()}}, nil
}}
