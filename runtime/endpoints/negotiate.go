package endpoints

import (
	"bytes"
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/kubeforge/kubeforge/runtime/compression"
	"github.com/kubeforge/kubeforge/runtime/jsonencode"
)

const (
	mediaJSON = "application/json"
	mediaYAML = "application/yaml"

	// MediaTypeJSONPatch, MediaTypeMergePatch, MediaTypeStrategicMergePatch
	// and MediaTypeApplyPatch (server-side apply) are the patch bodies
	// served. Strategic merge patch follows each field's
	// x-kubernetes-patch-strategy in the kind's OpenAPI schema (k8s.io/api's
	// struct tags for built-in kinds; markers and list types for the user's).
	MediaTypeJSONPatch           = "application/json-patch+json"
	MediaTypeMergePatch          = "application/merge-patch+json"
	MediaTypeStrategicMergePatch = "application/strategic-merge-patch+json"
	MediaTypeApplyPatch          = "application/apply-patch+yaml"

	metaGroup = "meta.k8s.io"
)

var (
	supportedOutputTypes = []string{mediaJSON, mediaYAML}
	supportedStreamTypes = []string{mediaJSON + ";stream=watch"}
	supportedInputTypes  = []string{mediaJSON, mediaYAML}
	supportedPatchTypes  = []string{MediaTypeJSONPatch, MediaTypeMergePatch, MediaTypeStrategicMergePatch, MediaTypeApplyPatch}
)

// Produces is what generated routes should declare with .Produces(...):
// go-restful rejects an Accept that matches none of these before the
// handler runs (the handler itself negotiates Table and YAML).
var Produces = []string{mediaJSON, mediaYAML, "application/json;stream=watch"}

// Consumes is what generated routes may declare with .Consumes(...) for
// POST and PUT. PATCH routes should declare no Consumes (or ConsumesPatch)
// so that unsupported patch types reach the handler and get a 415 Status.
var Consumes = []string{mediaJSON, mediaYAML}

// ConsumesPatch lists every patch type a client may send.
var ConsumesPatch = []string{MediaTypeJSONPatch, MediaTypeMergePatch, MediaTypeStrategicMergePatch, MediaTypeApplyPatch}

// conversion targets a client may ask for with as=;g=;v=.
const (
	asNone                      = ""
	asTable                     = "Table"
	asPartialObjectMetadata     = "PartialObjectMetadata"
	asPartialObjectMetadataList = "PartialObjectMetadataList"
)

// outputFormat is the negotiated response encoding.
type outputFormat struct {
	yaml   bool
	pretty bool
	// as is the conversion target ("" for the object itself) and
	// metaVersion the meta.k8s.io version it is served in.
	as          string
	metaVersion string
}

// Header values every response shares: Header.Set makes a one-element
// slice per call. Each slice's capacity is its length, so an Add to the
// key copies it rather than writing into the shared array, and the HTTP
// servers copy the header when it is written.
var (
	headerJSON    = []string{mediaJSON}
	headerYAML    = []string{mediaYAML}
	headerNoSniff = []string{"nosniff"}
)

// setContentType sets Content-Type to the shared ct and
// X-Content-Type-Options to nosniff, as every response body here has.
func setContentType(h http.Header, ct []string) {
	h["Content-Type"] = ct
	h["X-Content-Type-Options"] = headerNoSniff
}

// contentTypeHeader is the response's Content-Type, shared.
func (f outputFormat) contentTypeHeader() []string {
	if f.yaml {
		return headerYAML
	}
	return headerJSON
}

// plainJSON is compact JSON of the object itself.
func (f outputFormat) plainJSON() bool { return f.as == asNone && !f.yaml && !f.pretty }

func (f outputFormat) metaAPIVersion() string {
	return metaGroup + "/" + f.metaVersion
}

type acceptClause struct {
	typ, sub string
	params   map[string]string
	q        float64
	order    int
}

func parseAccept(header string) []acceptClause {
	var out []acceptClause
	for i, part := range strings.Split(header, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		mt, params, err := mime.ParseMediaType(part)
		if err != nil {
			continue
		}
		typ, sub, ok := strings.Cut(mt, "/")
		if !ok {
			continue
		}
		c := acceptClause{typ: typ, sub: sub, params: params, q: 1, order: i}
		if qs, ok := params["q"]; ok {
			q, err := strconv.ParseFloat(qs, 64)
			if err != nil {
				continue
			}
			c.q = q
			delete(params, "q")
		}
		if c.q <= 0 {
			continue
		}
		out = append(out, c)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].q != out[j].q {
			return out[i].q > out[j].q
		}
		return specificity(out[i]) > specificity(out[j])
	})
	return out
}

func specificity(c acceptClause) int {
	switch {
	case c.typ == "*":
		return 0
	case c.sub == "*":
		return 1
	default:
		return 2
	}
}

// negotiateOutput picks the response format from the Accept header the way
// kube-apiserver does: the first acceptable clause wins (no fall-through to
// later clauses once one matched), an empty header means JSON, and nothing
// acceptable is a 406. For a watch, only JSON can be streamed: a clause that
// selects YAML is a 406 as in kube-apiserver.
func negotiateOutput(req *http.Request, watch bool) (outputFormat, error) {
	header := req.Header.Get("Accept")
	f := outputFormat{pretty: prettyRequested(req)}
	if plainJSONAccept(header) {
		return f, nil
	}
	return negotiateClauses(header, f, watch)
}

// negotiateClauses is negotiateOutput's choice among the clauses of a
// non-empty Accept header, f the format it starts from.
func negotiateClauses(header string, f outputFormat, watch bool) (outputFormat, error) {
	for _, c := range parseAccept(header) {
		var isYAML bool
		switch {
		case c.typ == "application" && c.sub == "json",
			c.typ == "application" && c.sub == "*",
			c.typ == "*" && c.sub == "*":
			isYAML = false
		case c.typ == "application" && c.sub == "yaml":
			isYAML = true
		default:
			continue
		}
		g, hasG := c.params["g"]
		v, hasV := c.params["v"]
		as, hasAs := c.params["as"]
		if stream, ok := c.params["stream"]; ok && stream != "" && (stream != "watch" || isYAML) {
			continue
		}
		cf := f
		cf.yaml = isYAML
		if p, ok := c.params["pretty"]; ok && p == "1" {
			cf.pretty = true
		}
		if hasG || hasV || hasAs {
			if g != metaGroup || (v != "v1" && v != "v1beta1") {
				continue
			}
			switch as {
			case asTable, asPartialObjectMetadata, asPartialObjectMetadataList:
			default:
				continue
			}
			cf.as, cf.metaVersion = as, v
		}
		if watch && cf.yaml {
			return f, notAcceptable(supportedStreamTypes)
		}
		return cf, nil
	}
	if watch {
		return f, notAcceptable(supportedStreamTypes)
	}
	return f, notAcceptable(supportedOutputTypes)
}

// plainJSONAccept reports whether an Accept header selects plain JSON
// (or is empty) in a form clients send on every request, without parsing
// it (a split, a parameter map per clause, a sort): "application/json"
// (cmd/bench, most clients) or client-go's "application/json, */*".
func plainJSONAccept(header string) bool {
	switch header {
	case "", mediaJSON, mediaJSON + ", */*":
		return true
	}
	return strings.TrimSpace(header) == ""
}

// statusFormat is the encoding of an error body: YAML when the client asks
// for YAML first, JSON otherwise (a Status is never converted).
func statusFormat(req *http.Request) outputFormat {
	f := outputFormat{pretty: prettyRequested(req)}
	for _, c := range parseAccept(req.Header.Get("Accept")) {
		if c.typ == "application" && c.sub == "yaml" {
			f.yaml = true
			return f
		}
		if (c.typ == "application" && (c.sub == "json" || c.sub == "*")) || c.typ == "*" {
			return f
		}
	}
	return f
}

func prettyRequested(req *http.Request) bool {
	if req.URL == nil || !strings.Contains(req.URL.RawQuery, "pretty") {
		return false
	}
	p, _ := strconv.ParseBool(req.URL.Query().Get("pretty"))
	return p
}

// encode writes v as JSON, indented when pretty, or as YAML. YAML and
// indented JSON are made from the compact JSON (as sigs.k8s.io/yaml and
// json.MarshalIndent make them from encoding/json's), so a user's kind
// reads the same in every format (jsonencode.CustomResource).
func encode(f outputFormat, v any) ([]byte, error) {
	out, err := jsonencode.Marshal(v) // with room for the newline
	if err != nil {
		return nil, fmt.Errorf("encode response as json: %w", err)
	}
	if f.yaml {
		y, err := yaml.JSONToYAML(out)
		if err != nil {
			return nil, fmt.Errorf("encode response as yaml: %w", err)
		}
		return y, nil
	}
	if f.pretty {
		var b bytes.Buffer
		if err := json.Indent(&b, out, "", "  "); err != nil {
			return nil, fmt.Errorf("encode response as json: %w", err)
		}
		out = b.Bytes()
	}
	return append(out, '\n'), nil
}

// respBufs holds the buffers writeEncoded encodes JSON into, as *[]byte;
// one grown past respBufMax (a huge object) is not kept.
var respBufs = sync.Pool{New: func() any {
	b := make([]byte, 0, 4096)
	return &b
}}

const respBufMax = 1 << 20

// writeEncoded encodes v and writes it with code. An encoding failure is
// itself reported as a 500 Status (never a half-written body).
func writeEncoded(w http.ResponseWriter, req *http.Request, code int, f outputFormat, v any) {
	if !f.yaml && !f.pretty {
		// Encoded into a reused buffer: the body is copied by the write.
		bp := respBufs.Get().(*[]byte)
		out, err := jsonencode.AppendMarshal((*bp)[:0], v)
		if err == nil {
			out = append(out, '\n')
			setContentType(w.Header(), f.contentTypeHeader())
			compression.WriteBody(w, req, code, out)
		}
		if cap(out) <= respBufMax {
			*bp = out[:0]
			respBufs.Put(bp)
		}
		if err == nil {
			return
		}
		// An encoding error (rare): encode reports it as before.
	}
	out, err := encode(f, v)
	if err != nil {
		if _, isStatus := v.(*metav1.Status); isStatus {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		WriteError(w, req, err)
		return
	}
	setContentType(w.Header(), f.contentTypeHeader())
	compression.WriteBody(w, req, code, out)
}
