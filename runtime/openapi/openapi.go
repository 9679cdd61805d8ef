// Package openapi serves the OpenAPI documents of the server:
//
//   - GET /openapi/v3: the index, {"paths":{"apis/<g>/<v>":{"serverRelativeURL":"/openapi/v3/apis/<g>/<v>?hash=<hash>"}}};
//   - GET /openapi/v3/apis/<g>/<v> (/openapi/v3/api/<v> for the core group):
//     the OpenAPI 3.0 document of one group-version;
//   - GET /openapi/v2: one swagger 2.0 document of every group-version, in
//     JSON. client-go asks for v2 only as protobuf
//     (application/com.github.proto-openapi.spec.v2@v1.0+protobuf), which
//     is not served: such a request gets 406 and client-go (kubectl apply)
//     falls back to merge patch, which is what our resources use anyway.
//     kubectl explain and server-side validation use v3.
//
// Paths are built from the go-restful routes of each group-version's
// WebService: method, path, Operation (operationId), Doc, ParameterDocs
// (path, query and header parameters), Consumes and Produces, plus the route
// metadata below, which endpoints.InstallRoutes attaches to each route of a
// generated route table with RouteBuilder.Metadata; for the patch route of
// shipments:
//
//	Metadata(openapi.GroupVersionKindKey, metav1.GroupVersionKind{Group: "shipping.kubeforge.dev", Version: "v1", Kind: "Shipment"}).
//	Metadata(openapi.ActionKey, "patch").
//	Metadata(openapi.RequestSchemaKey, "io.k8s.apimachinery.pkg.apis.meta.v1.Patch").
//	Metadata(openapi.ResponseSchemaKey, "dev.kubeforge.shipping.v1.Shipment")
//
// Component schemas are the group-version's generated schemas plus the
// well-known apimachinery schemas (runtime/openapidefs) they, the common
// REST types and the routes refer to. Every $ref must resolve, or New fails.
//
// Documents are built once, cached, and served with an ETag; the v3 index
// names each document by its hash, and a request with that hash is served as
// immutable (a stale hash is redirected to the current one).
package openapi

import (
	"crypto/sha512"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"sync"

	restful "github.com/emicklei/go-restful/v3"
	openapi_v2 "github.com/google/gnostic-models/openapiv2"
	"github.com/munnerz/goautoneg"
	"google.golang.org/protobuf/proto"

	"github.com/kubeforge/kubeforge/runtime/compression"
	"github.com/kubeforge/kubeforge/runtime/openapidefs"
)

// Route metadata keys read when building paths.
const (
	// GroupVersionKindKey is the kind the operation serves, as a
	// metav1.GroupVersionKind (or *metav1.GroupVersionKind,
	// schema.GroupVersionKind, or map[string]string with keys group, version
	// and kind). It becomes the operation's x-kubernetes-group-version-kind
	// (an object).
	GroupVersionKindKey = "x-kubernetes-group-version-kind"
	// ActionKey is the operation's x-kubernetes-action: get, list, watch,
	// post, put, patch, delete or deletecollection (a string).
	ActionKey = "x-kubernetes-action"
	// RequestSchemaKey is the component name of the request body schema (a
	// string). PATCH routes default to meta.v1.Patch.
	RequestSchemaKey = "kubeforge.dev/request-schema"
	// ResponseSchemaKey is the component name of the success response
	// schema (a string). delete and deletecollection default to Status.
	ResponseSchemaKey = "kubeforge.dev/response-schema"
	// UndocumentedKey (true) leaves a route out of the documents: the
	// deprecated /watch/ paths, which a CRD's documents do not list.
	UndocumentedKey = "kubeforge.dev/undocumented"
)

// Patch content types. Listing strategic merge patch on a PATCH operation
// makes kubectl's client-side apply, edit, diff and default patch send it.
const (
	JSONPatch      = "application/json-patch+json"
	MergePatch     = "application/merge-patch+json"
	StrategicPatch = "application/strategic-merge-patch+json"
	ApplyPatch     = "application/apply-patch+yaml"
)

// PatchQueryParameters are declared on every PATCH operation, whatever the
// route says: kubectl validates on the server (fieldValidation=Strict) only
// when the v3 PATCH operation of the kind lists fieldValidation.
var PatchQueryParameters = []struct{ Name, Type, Description string }{
	{"dryRun", "string", "When present, indicates that modifications should not be persisted. The only valid value is All."},
	{"fieldManager", "string", "fieldManager is a name associated with the actor or entity that is making these changes."},
	{"fieldValidation", "string", "fieldValidation instructs the server on how to handle objects in the request containing unknown or duplicate fields: Ignore, Warn (default) or Strict."},
	{"force", "boolean", "Force is going to \"force\" Apply requests. It must be unset for non-apply patch requests."},
}

// GroupVersion is one served group-version.
type GroupVersion struct {
	Group      string
	Version    string
	WebService *restful.WebService
	// Schemas are the generated component schemas (refs "#/components/schemas/<name>").
	Schemas map[string]json.RawMessage
}

func (gv GroupVersion) key() string {
	if gv.Group == "" {
		return "api/" + gv.Version
	}
	return "apis/" + gv.Group + "/" + gv.Version
}

type document struct {
	body []byte
	hash string
	// contentType is "application/json" when empty.
	contentType string

	gzOnce sync.Once
	gz     []byte // body compressed, made on first use
}

// gzipped is the body compressed, made once.
func (d *document) gzipped() []byte {
	d.gzOnce.Do(func() { d.gz = compression.Gzip(d.body) })
	return d.gz
}

func newDocument(v any) (*document, error) {
	body, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encode openapi document: %w", err)
	}
	return &document{body: body, hash: fmt.Sprintf("%X", sha512.Sum512(body))}, nil
}

// Handler serves the documents.
type Handler struct {
	index *document
	v3    map[string]*document // by "apis/<g>/<v>"
	v2    *document
	// v2proto is v2 as a gnostic openapi_v2.Document in protobuf, what
	// kubectl before 1.27 asks for.
	v2proto *document
}

// Media types of /openapi/v2, as kube-apiserver (kube-openapi) serves them:
// the protobuf document under the current name and the deprecated one
// (both answered with the current name), and JSON.
const (
	MediaTypeV2Protobuf           = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf"
	mediaTypeV2ProtobufDeprecated = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf"
)

// Info is the info object of every document.
type Info struct {
	Title   string `json:"title"`
	Version string `json:"version"`
}

// New builds every document. version is the server's gitVersion.
func New(gvs []GroupVersion, version string) (*Handler, error) {
	h := &Handler{v3: map[string]*document{}}
	known := openapidefs.KnownSchemas()
	info := Info{Title: "Kubernetes", Version: version}
	type indexEntry struct {
		ServerRelativeURL string `json:"serverRelativeURL"`
	}
	index := struct {
		Paths map[string]indexEntry `json:"paths"`
	}{Paths: map[string]indexEntry{}}
	v2Paths := map[string]map[string]any{}
	v2Defs := map[string]json.RawMessage{}
	for _, gv := range gvs {
		doc, err := buildV3(gv, known, info)
		if err != nil {
			return nil, fmt.Errorf("build openapi v3 of %s: %w", gv.key(), err)
		}
		d, err := newDocument(doc)
		if err != nil {
			return nil, err
		}
		h.v3[gv.key()] = d
		index.Paths[gv.key()] = indexEntry{ServerRelativeURL: "/openapi/v3/" + gv.key() + "?hash=" + d.hash}
		if err := addV2(doc, v2Paths, v2Defs); err != nil {
			return nil, fmt.Errorf("build openapi v2 of %s: %w", gv.key(), err)
		}
	}
	var err error
	if h.index, err = newDocument(index); err != nil {
		return nil, err
	}
	if h.v2, err = newDocument(map[string]any{
		"swagger":     "2.0",
		"info":        info,
		"paths":       v2Paths,
		"definitions": v2Defs,
	}); err != nil {
		return nil, err
	}
	pb, err := openapi_v2.ParseDocument(h.v2.body)
	if err != nil {
		return nil, fmt.Errorf("build openapi v2 protobuf: %w", err)
	}
	body, err := proto.Marshal(pb)
	if err != nil {
		return nil, fmt.Errorf("build openapi v2 protobuf: %w", err)
	}
	h.v2proto = &document{body: body, hash: fmt.Sprintf("%X", sha512.Sum512(body)), contentType: MediaTypeV2Protobuf}
	return h, nil
}

// Serve answers /openapi/v2 and /openapi/v3[/...] and reports whether req
// was one of them. notAcceptable and notFound write the error Statuses.
func (h *Handler) Serve(w http.ResponseWriter, req *http.Request, notAcceptable, notFound func(http.ResponseWriter, *http.Request)) bool {
	p := req.URL.Path
	if !strings.HasPrefix(p, "/openapi/") {
		return false
	}
	if req.Method != http.MethodGet && req.Method != http.MethodHead {
		return false
	}
	switch {
	case p == "/openapi/v2":
		d := h.negotiateV2(req.Header.Get("Accept"))
		if d == nil {
			notAcceptable(w, req)
			return true
		}
		// kube-openapi serves v2 through a gzip handler (v3 it does not).
		serveV2(w, req, d)
	case p == "/openapi/v3" || p == "/openapi/v3/":
		serve(w, req, h.index, false)
	case strings.HasPrefix(p, "/openapi/v3/"):
		key := strings.TrimSuffix(strings.TrimPrefix(p, "/openapi/v3/"), "/")
		d, ok := h.v3[key]
		if !ok {
			notFound(w, req)
			return true
		}
		if hash := req.URL.Query().Get("hash"); hash != "" {
			if hash != d.hash {
				w.Header().Set("Cache-Control", "no-cache")
				http.Redirect(w, req, "/openapi/v3/"+key+"?hash="+d.hash, http.StatusMovedPermanently)
				return true
			}
			serve(w, req, d, true)
			return true
		}
		serve(w, req, d, false)
	default:
		notFound(w, req)
	}
	return true
}

// negotiateV2 picks the /openapi/v2 document the Accept header prefers
// (q-values honoured, JSON for an empty header or a wildcard), or nil.
func (h *Handler) negotiateV2(accept string) *document {
	if strings.TrimSpace(accept) == "" {
		return h.v2
	}
	for _, c := range goautoneg.ParseAccept(accept) {
		if c.Q <= 0 {
			continue
		}
		switch c.Type + "/" + c.SubType {
		case "application/json", "*/*", "application/*":
			return h.v2
		case MediaTypeV2Protobuf, mediaTypeV2ProtobufDeprecated:
			return h.v2proto
		}
	}
	return nil
}

// serveV2 serves a /openapi/v2 document, compressed for a client that
// accepts gzip, as kube-openapi's gzip handler does (its minimum size,
// 1,400 bytes, every document here exceeds).
func serveV2(w http.ResponseWriter, req *http.Request, d *document) {
	serveBody(w, req, d, false, compression.AcceptsWeighted(req))
}

func serve(w http.ResponseWriter, req *http.Request, d *document, immutable bool) {
	serveBody(w, req, d, immutable, false)
}

// serveBody serves d, compressed when gz is set.
func serveBody(w http.ResponseWriter, req *http.Request, d *document, immutable, gz bool) {
	etag := `"` + d.hash + `"`
	hdr := w.Header()
	ct := d.contentType
	if ct == "" {
		ct = "application/json"
	}
	hdr.Set("Content-Type", ct)
	hdr.Set("ETag", etag)
	hdr.Set("Vary", "Accept")
	if gz {
		hdr.Add("Vary", "Accept-Encoding")
	}
	hdr.Set("X-Content-Type-Options", "nosniff")
	if immutable {
		hdr.Set("Cache-Control", "public, immutable")
		hdr.Set("Expires", "Thu, 01 Jan 2099 00:00:00 GMT")
	} else {
		hdr.Set("Cache-Control", "no-cache, private")
	}
	if req.Header.Get("If-None-Match") == etag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	if req.Method == http.MethodHead {
		return
	}
	if gz {
		hdr.Set("Content-Encoding", "gzip")
		_, _ = w.Write(d.gzipped())
		return
	}
	_, _ = w.Write(d.body)
}

// sortedKeys returns the keys of m in order.
func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
