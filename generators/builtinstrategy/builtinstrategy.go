// Package builtinstrategy holds what kube-apiserver's create and update
// strategies of built-in kinds (k8s.io/api) decide beyond validation, as
// each kind's registry strategy in k8s.io/kubernetes/pkg/registry does:
// whether a PUT without metadata.resourceVersion is taken over the current
// object (AllowUnconditionalUpdate), whether a PUT of a missing object
// creates it (AllowCreateOnUpdate), and whether metadata.generation is
// tracked (set to 1 by PrepareForCreate and bumped by PrepareForUpdate on
// a spec change) or left alone (kept from the request on create and from
// the current object on update: a ConfigMap has none).
//
// Custom resources allow neither kind of PUT and track the generation
// (kube-apiserver's customresource strategy): that is the zero Strategy,
// which user kinds and external kinds outside k8s.io/api get. Most
// built-in kinds allow unconditional updates and do not track the
// generation: the exceptions are listed. Few allow create on update: those
// are listed.
//
// The register generator writes the answers into the kind's resource.Info
// (UnconditionalUpdate, CreateOnUpdate, UntrackedGeneration). The
// validation generator calls the kind's hand-written kube validation in
// runtime/builtin, where kube has some its OpenAPI markers do not express.
package builtinstrategy

import (
	"strings"

	"github.com/kubeforge/kubeforge/generators/model"
)

// apiPrefix is where kube-apiserver's built-in kinds are declared.
const apiPrefix = "k8s.io/api/"

// conditionalOnly lists the built-in kinds whose strategy refuses a PUT
// without a resourceVersion, by group directory under k8s.io/api and kind;
// "*" stands for every kind of the group.
var conditionalOnly = map[string]bool{
	"admissionregistration/*":            true,
	"coordination/Lease":                 true,
	"coordination/LeaseCandidate":        true,
	"policy/PodDisruptionBudget":         true,
	"storage/CSIDriver":                  true,
	"storage/CSINode":                    true,
	"storage/CSIStorageCapacity":         true,
	"storage/VolumeAttachment":           true,
	"node/RuntimeClass":                  true,
	"certificates/ClusterTrustBundle":    true,
	"certificates/PodCertificateRequest": true,
	"scheduling/Workload":                true,
	"scheduling/PodGroup":                true,
	"scheduling/CompositePodGroup":       true,
	"storagemigration/*":                 true,
	"apiserverinternal/*":                true,
	"resource/ResourcePoolStatusRequest": true,
}

// createsOnUpdate lists the built-in kinds whose strategy creates a missing
// object on PUT. events.k8s.io Events are core Events in storage, with
// the core strategy.
var createsOnUpdate = map[string]bool{
	"core/Event":                  true,
	"core/Endpoints":              true,
	"core/LimitRange":             true,
	"core/Service":                true,
	"events/Event":                true,
	"rbac/Role":                   true,
	"rbac/ClusterRole":            true,
	"rbac/RoleBinding":            true,
	"rbac/ClusterRoleBinding":     true,
	"coordination/Lease":          true,
	"coordination/LeaseCandidate": true,
	"node/RuntimeClass":           true,
}

// tracksGeneration lists the built-in kinds whose strategy sets
// metadata.generation to 1 on create and bumps it on spec changes.
var tracksGeneration = map[string]bool{
	"admissionregistration/*":             true,
	"apps/*":                              true,
	"autoscaling/HorizontalPodAutoscaler": true,
	"batch/*":                             true,
	"core/Pod":                            true,
	"core/PodTemplate":                    true,
	"core/ReplicationController":          true,
	"discovery/EndpointSlice":             true,
	"flowcontrol/*":                       true,
	"networking/Ingress":                  true,
	"networking/IngressClass":             true,
	"networking/NetworkPolicy":            true,
	"policy/PodDisruptionBudget":          true,
	"resource/DeviceClass":                true,
	"resource/DeviceTaintRule":            true,
	"resource/ResourceSlice":              true,
	"scheduling/PriorityClass":            true,
}

// validators names, per built-in kind, the runtime/builtin function that
// holds kube's hand-written validation the markers do not express: core
// and RBAC kinds check finalizer names (kube's core ObjectMeta
// validation); RBAC kinds their rules, role references and subjects; a
// Secret its type's keys; a Namespace its spec finalizers;
// a Lease its spec; an Event kube's legacy checks, and through
// events.k8s.io/v1 its strict ones.
var validators = map[string]string{
	"core/ConfigMap":          "KubeFinalizerNames",
	"core/Namespace":          "ValidateNamespace",
	"core/Secret":             "ValidateSecret",
	"core/ServiceAccount":     "KubeFinalizerNames",
	"rbac/Role":               "ValidateRole",
	"rbac/ClusterRole":        "ValidateClusterRole",
	"rbac/RoleBinding":        "ValidateRoleBinding",
	"rbac/ClusterRoleBinding": "ValidateClusterRoleBinding",
	"coordination/Lease":      "ValidateLease",
	"core/Event":              "ValidateCoreEvent",
	"events/Event":            "ValidateEventsEvent",
}

// updateValidators names, per built-in kind, the runtime/builtin function
// (func(obj, old *Kind) field.ErrorList) that replaces Validate's on
// update, where kube validates an update differently from a create.
var updateValidators = map[string]string{
	"events/Event": "ValidateEventsEventUpdate",
}

// versionedValidation lists the kinds whose hand-written validation
// depends on the version written through (kube's ValidateEventCreate):
// an object written through another version is not checked again by
// the storage version's.
var versionedValidation = map[string]bool{
	"core/Event":   true,
	"events/Event": true,
}

// Strategy is what a kind's strategy answers.
type Strategy struct {
	// UnconditionalUpdate: a PUT without a resourceVersion updates the
	// current object instead of failing with 422.
	UnconditionalUpdate bool
	// CreateOnUpdate: a PUT of a missing object creates it (201).
	CreateOnUpdate bool
	// UntrackedGeneration: metadata.generation is the request's on
	// create and the current object's on update, never set or bumped.
	UntrackedGeneration bool
	// Validate names the runtime/builtin function (func(*Kind)
	// field.ErrorList) with kube's hand-written validation of the kind,
	// "" when its markers say it all.
	Validate string
	// ValidateOwnVersionOnly: Validate checks writes through the kind's
	// own version only, not objects written through another served
	// version and stored as this one (Validate<Kind>Hooks leaves it out).
	ValidateOwnVersionOnly bool
	// ValidateUpdate names the runtime/builtin function that validates an
	// update (new and current object) in Validate's place, "" when an
	// update is validated as a create.
	ValidateUpdate string
	// NoDeleteCollection: kube-apiserver's registry of the kind has no
	// DeleteCollection (a Namespace's: DELETE /api/v1/namespaces is a
	// 405), so neither the route nor the verb is served.
	NoDeleteCollection bool
}

// noDeleteCollection are the kinds whose kube-apiserver registry serves
// no deletecollection.
var noDeleteCollection = map[string]bool{"core/Namespace": true}

// For returns k's strategy: kube-apiserver's for a built-in kind, a custom
// resource's (neither) for any other.
func For(k *model.Kind) Strategy {
	if k.Version == nil || !k.Version.External {
		return Strategy{}
	}
	group, ok := groupDir(k.Version.Package)
	if !ok {
		return Strategy{}
	}
	return Strategy{
		UnconditionalUpdate: !conditionalOnly[group+"/*"] && !conditionalOnly[group+"/"+k.Name],
		CreateOnUpdate:      createsOnUpdate[group+"/"+k.Name],
		UntrackedGeneration: !tracksGeneration[group+"/*"] && !tracksGeneration[group+"/"+k.Name],
		Validate:            validators[group+"/"+k.Name],

		ValidateOwnVersionOnly: versionedValidation[group+"/"+k.Name],
		ValidateUpdate:         updateValidators[group+"/"+k.Name],
		NoDeleteCollection:     noDeleteCollection[group+"/"+k.Name],
	}
}

// groupDir returns the group directory of a k8s.io/api package path
// ("k8s.io/api/rbac/v1" → "rbac"); false for other packages.
func groupDir(pkg string) (string, bool) {
	rest, ok := strings.CutPrefix(pkg, apiPrefix)
	if !ok {
		return "", false
	}
	group, _, ok := strings.Cut(rest, "/")
	return group, ok && group != ""
}
