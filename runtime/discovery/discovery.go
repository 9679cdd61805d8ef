// Package discovery serves the discovery documents kubectl, client-go and
// controller-runtime read before anything else:
//
//   - GET /api: APIVersions (legacy) or, when Accept asks for it, an
//     aggregated APIGroupDiscoveryList of the core group;
//   - GET /apis: APIGroupList (legacy) or an aggregated
//     APIGroupDiscoveryList (apidiscovery.k8s.io/v2 or v2beta1) of every
//     other group;
//   - GET /apis/<group>: APIGroup;
//   - GET /apis/<group>/<version> and /api/<version>: APIResourceList.
//
// Documents are computed once (the resource table is fixed at start-up),
// carry an ETag and Vary: Accept, and answer If-None-Match with 304. Content
// negotiation never fails: what cannot be matched gets the legacy JSON.
package discovery

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"slices"
	"sort"
	"strings"
	"sync/atomic"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/version"

	"github.com/kubeforge/kubeforge/runtime/resource"
)

// scaleKind is the kind of every scale subresource: autoscaling/v1 Scale,
// as kube-apiserver lists a CRD's <plural>/scale.
var scaleKind = metav1.GroupVersionKind{Group: "autoscaling", Version: "v1", Kind: "Scale"}

// Verbs of every served resource and of the status and scale subresources.
var (
	ResourceVerbs    = []string{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"}
	SubresourceVerbs = []string{"get", "patch", "update"}
)

// GroupVersion is one served group-version and its resources.
type GroupVersion struct {
	Group     string
	Version   string
	Resources []*resource.Info
	// SubresourceKinds are the subresources served with a kind of another
	// group besides scale, by "<plural>/<subresource>" (a ServiceAccount's
	// token: authentication.k8s.io/v1 TokenRequest, create only).
	SubresourceKinds map[string]SubresourceKind
}

// SubresourceKind is the kind and the verbs of a subresource served with a
// kind of another group.
type SubresourceKind struct {
	Kind  metav1.GroupVersionKind
	Verbs []string
}

// subresourceKind returns the kind and verbs of a subresource of r listed
// with a kind of another group: a scale, or one SubresourceKinds names.
func (gv GroupVersion) subresourceKind(r *resource.Info, sub string) (SubresourceKind, bool) {
	if sub == "scale" {
		return SubresourceKind{Kind: scaleKind, Verbs: SubresourceVerbs}, true
	}
	k, ok := gv.SubresourceKinds[r.Plural+"/"+sub]
	return k, ok
}

// subresourcesOf returns the subresources of r to list, sorted as
// kube-apiserver lists them: r's own, and those SubresourceKinds adds
// (a namespace's finalize, which has no generic route of its own).
func (gv GroupVersion) subresourcesOf(r *resource.Info) []string {
	subs := append([]string(nil), r.Subresources...)
	prefix := r.Plural + "/"
	for key := range gv.SubresourceKinds {
		if sub, ok := strings.CutPrefix(key, prefix); ok && !slices.Contains(subs, sub) {
			subs = append(subs, sub)
		}
	}
	sort.Strings(subs)
	return subs
}

type document struct {
	body []byte
	etag string
	ct   string
}

func newDocument(v any, contentType string) (*document, error) {
	body, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encode discovery document: %w", err)
	}
	sum := sha256.Sum256(body)
	return &document{body: append(body, '\n'), etag: `"` + hex.EncodeToString(sum[:16]) + `"`, ct: contentType}, nil
}

// Handler serves discovery.
type Handler struct {
	hasCore    bool
	coreVers   []string
	apis       *document            // legacy APIGroupList
	groups     map[string]*document // legacy APIGroup by name
	versions   map[string]*document // APIResourceList by "/apis/g/v" or "/api/v"
	aggAPIs    map[string]*document // aggregated /apis by discovery version (v2, v2beta1)
	aggCore    map[string]*document // aggregated /api
	legacyCore *metav1.APIVersions
	// apiVersions is the legacy /api document, set by SetServerAddress.
	apiVersions atomic.Pointer[document]
}

// New computes every document. Versions of a group are ordered by
// preference: the storage version of the group's resources first, then
// kube-aware version order (v2, v1, v1beta1, v1alpha1).
func New(gvs []GroupVersion) (*Handler, error) {
	h := &Handler{
		groups:   map[string]*document{},
		versions: map[string]*document{},
		aggAPIs:  map[string]*document{},
		aggCore:  map[string]*document{},
	}
	byGroup := map[string][]GroupVersion{}
	for _, gv := range gvs {
		byGroup[gv.Group] = append(byGroup[gv.Group], gv)
	}
	names := make([]string, 0, len(byGroup))
	for g := range byGroup {
		names = append(names, g)
	}
	sort.Strings(names)

	var groupList metav1.APIGroupList
	var aggGroups, aggCoreGroups []APIGroupDiscovery
	for _, g := range names {
		ordered := orderVersions(byGroup[g])
		var apiGroup metav1.APIGroup
		apiGroup.Name = g
		agg := APIGroupDiscovery{Metadata: GroupMeta{Name: g}}
		for _, gv := range ordered {
			gvStr := gv.Version
			if g != "" {
				gvStr = g + "/" + gv.Version
			}
			apiGroup.Versions = append(apiGroup.Versions, metav1.GroupVersionForDiscovery{GroupVersion: gvStr, Version: gv.Version})
			list := resourceList(gvStr, gv)
			doc, err := newDocument(list, "application/json")
			if err != nil {
				return nil, err
			}
			h.versions[versionPath(g, gv.Version)] = doc
			agg.Versions = append(agg.Versions, aggregatedVersion(gv))
		}
		apiGroup.PreferredVersion = apiGroup.Versions[0]
		if g == "" {
			h.hasCore = true
			for _, v := range apiGroup.Versions {
				h.coreVers = append(h.coreVers, v.Version)
			}
			aggCoreGroups = append(aggCoreGroups, agg)
			continue
		}
		groupList.Groups = append(groupList.Groups, apiGroup)
		apiGroup.TypeMeta = metav1.TypeMeta{Kind: "APIGroup", APIVersion: "v1"}
		doc, err := newDocument(apiGroup, "application/json")
		if err != nil {
			return nil, err
		}
		h.groups[g] = doc
		aggGroups = append(aggGroups, agg)
	}
	groupList.TypeMeta = metav1.TypeMeta{Kind: "APIGroupList", APIVersion: "v1"}
	if groupList.Groups == nil {
		groupList.Groups = []metav1.APIGroup{}
	}
	var err error
	if h.apis, err = newDocument(groupList, "application/json"); err != nil {
		return nil, err
	}
	for _, v := range []string{"v2", "v2beta1"} {
		if h.aggAPIs[v], err = newAggregated(v, aggGroups); err != nil {
			return nil, err
		}
		if h.aggCore[v], err = newAggregated(v, aggCoreGroups); err != nil {
			return nil, err
		}
	}
	return h, nil
}

func newAggregated(v string, groups []APIGroupDiscovery) (*document, error) {
	list := APIGroupDiscoveryList{
		TypeMeta: metav1.TypeMeta{Kind: "APIGroupDiscoveryList", APIVersion: GroupName + "/" + v},
		Items:    []APIGroupDiscovery{},
	}
	list.Items = append(list.Items, groups...)
	return newDocument(list, AggregatedContentType(v))
}

// AggregatedContentType is the Content-Type of an aggregated discovery
// response of discovery version v (v2 or v2beta1).
func AggregatedContentType(v string) string {
	return "application/json;g=" + GroupName + ";v=" + v + ";as=APIGroupDiscoveryList"
}

func versionPath(group, version string) string {
	if group == "" {
		return "/api/" + version
	}
	return "/apis/" + group + "/" + version
}

// orderVersions puts the preferred version first: the storage version most
// resources name (when served), then kube-aware order.
func orderVersions(gvs []GroupVersion) []GroupVersion {
	out := append([]GroupVersion(nil), gvs...)
	sort.SliceStable(out, func(i, j int) bool {
		return version.CompareKubeAwareVersionStrings(out[i].Version, out[j].Version) > 0
	})
	votes := map[string]int{}
	for _, gv := range gvs {
		for _, r := range gv.Resources {
			if r.StorageVersion != "" {
				votes[r.StorageVersion]++
			}
		}
	}
	best, bestVotes := "", 0
	for _, gv := range out {
		if votes[gv.Version] > bestVotes {
			best, bestVotes = gv.Version, votes[gv.Version]
		}
	}
	if best != "" {
		sort.SliceStable(out, func(i, j int) bool { return out[i].Version == best && out[j].Version != best })
	}
	return out
}

func sortedResources(rs []*resource.Info) []*resource.Info {
	out := append([]*resource.Info(nil), rs...)
	sort.Slice(out, func(i, j int) bool { return out[i].Plural < out[j].Plural })
	return out
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func verbsOf(r *resource.Info) []string {
	if r.Verbs != nil {
		return r.Verbs
	}
	return ResourceVerbs
}

func resourceList(gvStr string, gv GroupVersion) *metav1.APIResourceList {
	list := &metav1.APIResourceList{
		TypeMeta:     metav1.TypeMeta{Kind: "APIResourceList", APIVersion: "v1"},
		GroupVersion: gvStr,
		APIResources: []metav1.APIResource{},
	}
	for _, r := range sortedResources(gv.Resources) {
		list.APIResources = append(list.APIResources, metav1.APIResource{
			Name:               r.Plural,
			SingularName:       r.Singular,
			Namespaced:         r.Namespaced,
			Kind:               r.Kind,
			Verbs:              verbsOf(r),
			ShortNames:         r.ShortNames,
			Categories:         r.Categories,
			StorageVersionHash: r.StorageVersionHash,
		})
		for _, sub := range gv.subresourcesOf(r) {
			ar := metav1.APIResource{
				Name:       r.Plural + "/" + sub,
				Namespaced: r.Namespaced,
				Kind:       r.Kind,
				Verbs:      SubresourceVerbs,
			}
			if k, ok := gv.subresourceKind(r, sub); ok {
				ar.Kind, ar.Verbs = k.Kind.Kind, k.Verbs
				if k.Kind.Group != gv.Group || k.Kind.Version != gv.Version {
					// Only a kind of another group-version is named.
					ar.Group, ar.Version = k.Kind.Group, k.Kind.Version
				}
			}
			list.APIResources = append(list.APIResources, ar)
		}
	}
	return list
}

func aggregatedVersion(gv GroupVersion) APIVersionDiscovery {
	v := APIVersionDiscovery{Version: gv.Version, Freshness: "Current", Resources: []APIResourceDiscovery{}}
	for _, r := range sortedResources(gv.Resources) {
		scope := ScopeCluster
		if r.Namespaced {
			scope = ScopeNamespace
		}
		kind := &metav1.GroupVersionKind{Group: gv.Group, Version: gv.Version, Kind: r.Kind}
		rd := APIResourceDiscovery{
			Resource:         r.Plural,
			ResponseKind:     kind,
			Scope:            scope,
			SingularResource: r.Singular,
			Verbs:            verbsOf(r),
			ShortNames:       r.ShortNames,
			Categories:       r.Categories,
		}
		for _, sub := range gv.subresourcesOf(r) {
			rk, verbs := kind, SubresourceVerbs
			if k, ok := gv.subresourceKind(r, sub); ok {
				kk := k.Kind
				rk, verbs = &kk, k.Verbs
			}
			rd.Subresources = append(rd.Subresources, APISubresourceDiscovery{
				Subresource:  sub,
				ResponseKind: rk,
				Verbs:        verbs,
			})
		}
		v.Resources = append(v.Resources, rd)
	}
	return v
}

// aggregatedVersionAccepted returns the discovery version (v2 or v2beta1)
// of the first Accept entry asking for aggregated discovery in JSON, or "".
func aggregatedVersionAccepted(accept string) string {
	for _, part := range strings.Split(accept, ",") {
		mt, params, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil || mt != "application/json" {
			continue
		}
		if params["g"] != GroupName || params["as"] != "APIGroupDiscoveryList" {
			continue
		}
		if p, ok := params["profile"]; ok && p != "nopeer" {
			continue
		}
		switch params["v"] {
		case "v2", "v2beta1":
			return params["v"]
		}
	}
	return ""
}

// Serve answers the discovery paths and reports whether req was one.
// Unknown groups and versions under /apis get a 404 Status from notFound.
func (h *Handler) Serve(w http.ResponseWriter, req *http.Request, notFound func(w http.ResponseWriter, req *http.Request)) bool {
	if req.Method != http.MethodGet && req.Method != http.MethodHead {
		return false
	}
	p := strings.TrimSuffix(req.URL.Path, "/")
	// Discovery paths have at most three parts: a fourth (holding the
	// rest) is enough to tell a resource path, split on every request.
	parts := strings.SplitN(strings.TrimPrefix(p, "/"), "/", 4)
	switch {
	case p == "/api":
		if v := aggregatedVersionAccepted(req.Header.Get("Accept")); v != "" {
			serve(w, req, h.aggCore[v])
			return true
		}
		h.serveAPIVersions(w, req)
		return true
	case p == "/apis":
		if v := aggregatedVersionAccepted(req.Header.Get("Accept")); v != "" {
			serve(w, req, h.aggAPIs[v])
			return true
		}
		serve(w, req, h.apis)
		return true
	case len(parts) == 2 && parts[0] == "apis":
		doc, ok := h.groups[parts[1]]
		if !ok {
			notFound(w, req)
			return true
		}
		serve(w, req, doc)
		return true
	case (len(parts) == 3 && parts[0] == "apis") || (len(parts) == 2 && parts[0] == "api"):
		doc, ok := h.versions[p]
		if !ok {
			notFound(w, req)
			return true
		}
		serve(w, req, doc)
		return true
	}
	return false
}

// SetServerAddress sets the address /api reports in
// serverAddressByClientCIDRs (for every client, 0.0.0.0/0): the server's
// advertised host:port, as kube-apiserver reports its external address,
// never the request's Host header (a client could make the server echo any
// address it likes). Call it before serving.
func (h *Handler) SetServerAddress(hostPort string) error {
	v := metav1.APIVersions{
		TypeMeta: metav1.TypeMeta{Kind: "APIVersions"},
		Versions: orEmpty(h.coreVers),
		ServerAddressByClientCIDRs: []metav1.ServerAddressByClientCIDR{
			{ClientCIDR: "0.0.0.0/0", ServerAddress: hostPort},
		},
	}
	doc, err := newDocument(v, "application/json")
	if err != nil {
		return err
	}
	h.apiVersions.Store(doc)
	return nil
}

func (h *Handler) serveAPIVersions(w http.ResponseWriter, req *http.Request) {
	doc := h.apiVersions.Load()
	if doc == nil {
		// Not told its address (a handler built for tests): no CIDRs
		// rather than an address taken from the request.
		var err error
		doc, err = newDocument(metav1.APIVersions{
			TypeMeta:                   metav1.TypeMeta{Kind: "APIVersions"},
			Versions:                   orEmpty(h.coreVers),
			ServerAddressByClientCIDRs: []metav1.ServerAddressByClientCIDR{},
		}, "application/json")
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
	}
	serve(w, req, doc)
}

func serve(w http.ResponseWriter, req *http.Request, doc *document) {
	hdr := w.Header()
	hdr.Set("Content-Type", doc.ct)
	hdr.Set("ETag", doc.etag)
	hdr.Set("Vary", "Accept")
	hdr.Set("Cache-Control", "public")
	hdr.Set("X-Content-Type-Options", "nosniff")
	if match := req.Header.Get("If-None-Match"); match != "" && match == doc.etag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	if req.Method == http.MethodHead {
		w.WriteHeader(http.StatusOK)
		return
	}
	_, _ = w.Write(doc.body)
}
