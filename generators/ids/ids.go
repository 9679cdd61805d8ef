// Package ids holds every identifier one generator writes and another
// refers to, so that they agree by construction rather than by string
// concatenation in two places. Generators import the model, this package
// and nothing of each other for names.
package ids

import "github.com/kubeforge/kubeforge/generators/model"

// OpenAPISchemas is the function of a version's package returning its
// OpenAPI component schemas (generators/openapi).
const OpenAPISchemas = "OpenAPISchemas"

// Info is the resource.Info variable of kind k (generators/register).
func Info(k *model.Kind) string { return k.Name + "Info" }

// Strategy is the resource.Strategy variable of kind k (generators/storage).
func Strategy(k *model.Kind) string { return k.Name + "Strategy" }

// Store is the function the storage version of kind k exposes to build
// the kind's one store (generators/storage).
func Store(k *model.Kind) string { return "New" + k.Name + "Store" }

// InstallWebhooks sets the in-process webhooks of kind k (storage
// version) on its store (generators/webhooks, called by install).
func InstallWebhooks(k *model.Kind) string { return "Install" + k.Name + "Webhooks" }

// Rules is the compiled CEL rules variable of kind k (generators/storage).
func Rules(k *model.Kind) string { return k.Name + "Rules" }

// ToHub and FromHub are the conversions of the type named typeName (a
// kind, its list or a type they reach) to and from its hub (storage)
// version (generators/conversion).
func ToHub(typeName string) string   { return typeName + "ToHub" }
func FromHub(typeName string) string { return typeName + "FromHub" }
