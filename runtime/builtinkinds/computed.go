package builtinkinds

import (
	"slices"
	"sort"
	"strings"

	restful "github.com/emicklei/go-restful/v3"
	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubeforge/kubeforge/runtime/discovery"
	"github.com/kubeforge/kubeforge/runtime/endpoints"
	"github.com/kubeforge/kubeforge/runtime/resource"
)

// Handlers serve what the table computes; the server implements them. A
// method returns nil when the server does not serve that resource (no
// token issuer, no authentication): its route and discovery entry are
// then left out.
type Handlers interface {
	ServiceAccountToken(Target) restful.RouteFunction
	SelfSubjectReview(Target) restful.RouteFunction
	TokenReview(Target) restful.RouteFunction
	SelfSubjectAccessReview(Target) restful.RouteFunction
	SubjectAccessReview(Target) restful.RouteFunction
	LocalSubjectAccessReview(Target) restful.RouteFunction
	SelfSubjectRulesReview(Target) restful.RouteFunction
}

// Target is what a handler serves, from its table row: the resource and
// subresource ("" for a resource) requests are counted under, and the
// kind of the request and response objects.
type Target struct {
	Resource, Subresource string
	GVK                   schema.GroupVersionKind
}

// Computed is a create-only resource or subresource that is computed, not
// stored, described as a generated route table row is (endpoints.Route;
// its To comes from Serve).
type Computed struct {
	// Info is a computed resource's discovery row (nil for a subresource:
	// discovery lists it under its resource).
	Info *resource.Info
	// Kind and Route describe the route as the generated route tables do.
	Kind  endpoints.RouteKind
	Route endpoints.Route
	// Serve picks the route function from the server's Handlers.
	Serve func(Handlers, Target) restful.RouteFunction
}

// Subresource is a subresource the runtime serves beside a kind's
// generated ones.
type Subresource struct {
	// Name is how discovery lists it: "<plural>/<name>".
	Name string
	Computed
}

// createOnly are the verbs discovery lists for a computed resource.
var createOnly = []string{"create"}

// serviceAccountToken is TokenRequest: POST
// .../serviceaccounts/{name}/token issues a ServiceAccount token.
var serviceAccountToken = Subresource{Name: "token", Computed: Computed{
	Kind: endpoints.RouteKind{GVK: metav1.GroupVersionKind(authenticationv1.SchemeGroupVersion.WithKind("TokenRequest"))},
	Route: endpoints.Route{Method: "POST", Path: "/namespaces/{namespace}/serviceaccounts/{name}/token", Action: "post",
		Operation: "createCoreV1NamespacedServiceAccountToken", Doc: "create token of a ServiceAccount"},
	Serve: Handlers.ServiceAccountToken,
}}

// review is the row of a review: a create-only resource of group (v1),
// served by serve.
func review(group, kind string, namespaced bool, serve func(Handlers, Target) restful.RouteFunction) Kind {
	plural := strings.ToLower(kind) + "s"
	path, operation := "/"+plural, "create"+groupTitle(group)+"V1"+kind
	if namespaced {
		path, operation = "/namespaces/{namespace}/"+plural, "create"+groupTitle(group)+"V1Namespaced"+kind
	}
	return Kind{Computed: &Computed{
		Info: &resource.Info{Group: group, Version: "v1", Kind: kind, Plural: plural, Singular: strings.ToLower(kind),
			Namespaced: namespaced, Verbs: createOnly},
		Kind:  endpoints.RouteKind{GVK: metav1.GroupVersionKind{Group: group, Version: "v1", Kind: kind}},
		Route: endpoints.Route{Method: "POST", Path: path, Action: "post", Operation: operation, Doc: "create a " + kind},
		Serve: serve,
	}}
}

// groupTitle is the operation ID's name of a group: "Authentication" for
// authentication.k8s.io.
func groupTitle(group string) string {
	first, _, _ := strings.Cut(group, ".")
	return strings.ToUpper(first[:1]) + first[1:]
}

// install registers c's route on ws, served by what h serves for resource
// and subresource; false when h serves nothing.
func (c *Computed) install(ws *restful.WebService, h Handlers, resource, subresource string) bool {
	fn := c.Serve(h, Target{Resource: resource, Subresource: subresource, GVK: schema.GroupVersionKind(c.Kind.GVK)})
	if fn == nil {
		return false
	}
	r := c.Route
	r.To = fn
	endpoints.InstallRoutes(ws, c.Kind, []endpoints.Route{r})
	return true
}

// GroupVersion is a group-version made only of computed resources.
type GroupVersion struct {
	Group, Version string
	// Resources are the discovery rows of the resources h serves, sorted
	// by plural; their routes are on WebService.
	Resources  []*resource.Info
	WebService *restful.WebService
}

// ComputedGroups returns the group-versions of the computed resources h
// serves, sorted by group, each on a WebService newWebService builds with
// their routes; a group-version h serves nothing of is left out.
func ComputedGroups(h Handlers, newWebService func(group, version string) *restful.WebService) []GroupVersion {
	var grs []schema.GroupResource
	for gr, k := range kinds {
		if k.Computed != nil {
			grs = append(grs, gr)
		}
	}
	sort.Slice(grs, func(i, j int) bool {
		if grs[i].Group != grs[j].Group {
			return grs[i].Group < grs[j].Group
		}
		return grs[i].Resource < grs[j].Resource
	})
	var out []GroupVersion
	for _, gr := range grs {
		c := kinds[gr].Computed
		if n := len(out); n == 0 || out[n-1].Group != c.Info.Group || out[n-1].Version != c.Info.Version {
			out = append(out, GroupVersion{Group: c.Info.Group, Version: c.Info.Version, WebService: newWebService(c.Info.Group, c.Info.Version)})
		}
		gv := &out[len(out)-1]
		if c.install(gv.WebService, h, c.Info.Plural, "") {
			gv.Resources = append(gv.Resources, c.Info)
		}
	}
	return slices.DeleteFunc(out, func(gv GroupVersion) bool { return len(gv.Resources) == 0 })
}

// AddSubresources registers on ws the routes of the extra subresources h
// serves of resources (one group-version's table) and returns the table
// with each such resource's Info replaced by a copy that lists them: the
// generated Info is left as it is.
func AddSubresources(ws *restful.WebService, resources []*resource.Info, h Handlers) []*resource.Info {
	out := slices.Clone(resources)
	for i, info := range resources {
		k, ok := kinds[info.GroupResource()]
		if !ok {
			continue
		}
		var served []string
		for _, sub := range k.Subresources {
			if !slices.Contains(info.Subresources, sub.Name) && sub.install(ws, h, info.Plural, sub.Name) {
				served = append(served, sub.Name)
			}
		}
		if len(served) > 0 {
			cp := *info
			cp.Subresources = append(slices.Clone(info.Subresources), served...)
			out[i] = &cp
		}
	}
	return out
}

// SubresourceKinds returns, for discovery, the kinds of the extra
// subresources resources list, by "<plural>/<name>": computed, so create
// only.
func SubresourceKinds(resources []*resource.Info) map[string]discovery.SubresourceKind {
	var out map[string]discovery.SubresourceKind
	for _, info := range resources {
		for _, sub := range kinds[info.GroupResource()].Subresources {
			if !slices.Contains(info.Subresources, sub.Name) {
				continue
			}
			if out == nil {
				out = map[string]discovery.SubresourceKind{}
			}
			out[info.Plural+"/"+sub.Name] = discovery.SubresourceKind{Kind: sub.Kind.GVK, Verbs: createOnly}
		}
	}
	return out
}
