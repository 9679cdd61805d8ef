package openapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"

	restful "github.com/emicklei/go-restful/v3"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubeforge/kubeforge/runtime/openapidefs"
	"github.com/kubeforge/kubeforge/runtime/request"
)

var pathParamRegexp = regexp.MustCompile(`\{([^}:]+):[^}]*\}`)

// openAPIPath drops go-restful's parameter patterns: {name:*} -> {name}.
func openAPIPath(p string) string { return pathParamRegexp.ReplaceAllString(p, "{$1}") }

// successCodes by x-kubernetes-action, as kube-apiserver declares them.
var successCodes = map[string][]string{
	"get":              {"200"},
	"list":             {"200"},
	"watch":            {"200"},
	"post":             {"200", "201", "202"},
	"put":              {"200", "201"},
	"patch":            {"200", "201"},
	"delete":           {"200", "202"},
	"deletecollection": {"200"},
}

var codeText = map[string]string{"200": "OK", "201": "Created", "202": "Accepted"}

func defaultAction(r *restful.Route) string { return request.LowerMethod(r.Method) }

func metaString(r *restful.Route, key string) string {
	if r.Metadata == nil {
		return ""
	}
	s, _ := r.Metadata[key].(string)
	return s
}

func metaGVK(r *restful.Route) (map[string]string, error) {
	if r.Metadata == nil {
		return nil, nil
	}
	switch v := r.Metadata[GroupVersionKindKey].(type) {
	case nil:
		return nil, nil
	case metav1.GroupVersionKind:
		return map[string]string{"group": v.Group, "version": v.Version, "kind": v.Kind}, nil
	case *metav1.GroupVersionKind:
		return map[string]string{"group": v.Group, "version": v.Version, "kind": v.Kind}, nil
	case schema.GroupVersionKind:
		return map[string]string{"group": v.Group, "version": v.Version, "kind": v.Kind}, nil
	case map[string]string:
		return map[string]string{"group": v["group"], "version": v["version"], "kind": v["kind"]}, nil
	case map[string]any:
		out := map[string]string{}
		for _, k := range []string{"group", "version", "kind"} {
			s, _ := v[k].(string)
			out[k] = s
		}
		return out, nil
	default:
		return nil, fmt.Errorf("route %s %s: metadata %s is %T, want map[string]string", r.Method, r.Path, GroupVersionKindKey, v)
	}
}

func ref(name string) map[string]any { return map[string]any{"$ref": openapidefs.Ref(name)} }

func paramSchema(d restful.ParameterData) map[string]any {
	t := d.DataType
	if t == "" {
		t = "string"
	}
	s := map[string]any{"type": t}
	if d.DataFormat != "" {
		s["format"] = d.DataFormat
	}
	if len(d.PossibleValues) > 0 {
		s["enum"] = d.PossibleValues
	}
	return s
}

func patchContentTypes(r *restful.Route) []string {
	var out []string
	for _, c := range r.Consumes {
		switch c {
		case JSONPatch, MergePatch, StrategicPatch, ApplyPatch:
			out = append(out, c)
		}
	}
	if len(out) == 0 {
		out = []string{JSONPatch, MergePatch, StrategicPatch, ApplyPatch}
	}
	return out
}

// operation builds the v3 operation of r; schemas collects the names it refers to.
func operation(r *restful.Route, schemas map[string]bool) (map[string]any, error) {
	action := metaString(r, ActionKey)
	if action == "" {
		action = defaultAction(r)
	}
	op := map[string]any{
		ActionKey: action,
	}
	if r.Operation != "" {
		op["operationId"] = r.Operation
	}
	if r.Doc != "" {
		op["description"] = r.Doc
	}
	if r.Deprecated {
		op["deprecated"] = true
	}
	gvk, err := metaGVK(r)
	if err != nil {
		return nil, err
	}
	if gvk != nil {
		op[GroupVersionKindKey] = gvk
	}
	if params := parameters(r); len(params) > 0 {
		op["parameters"] = params
	}
	if body := requestBody(r, schemas); body != nil {
		op["requestBody"] = body
	}
	op["responses"] = responses(r, action, schemas)
	return op, nil
}

// parameters returns the path, query and header parameters of r, and the
// patch query parameters a PATCH route does not document itself.
func parameters(r *restful.Route) []map[string]any {
	var params []map[string]any
	seen := map[string]bool{}
	for _, p := range r.ParameterDocs {
		d := p.Data()
		var in string
		switch d.Kind {
		case restful.PathParameterKind:
			in = "path"
			d.Required = true
		case restful.QueryParameterKind:
			in = "query"
		case restful.HeaderParameterKind:
			in = "header"
		default:
			continue // body and form parameters: see requestBody
		}
		seen[in+"/"+d.Name] = true
		pm := map[string]any{"name": d.Name, "in": in, "schema": paramSchema(d)}
		if d.Description != "" {
			pm["description"] = d.Description
		}
		if d.Required {
			pm["required"] = true
		}
		if in == "query" {
			pm["uniqueItems"] = true
		}
		params = append(params, pm)
	}
	if r.Method == http.MethodPatch {
		for _, q := range PatchQueryParameters {
			if seen["query/"+q.Name] {
				continue
			}
			params = append(params, map[string]any{
				"name": q.Name, "in": "query", "description": q.Description,
				"schema": map[string]any{"type": q.Type}, "uniqueItems": true,
			})
		}
	}
	return params
}

// requestBody returns the request body of r (nil when it takes none), one
// content entry per type it consumes; schemas collects the name it refers to.
func requestBody(r *restful.Route, schemas map[string]bool) map[string]any {
	reqSchema := metaString(r, RequestSchemaKey)
	if r.Method == http.MethodPatch && reqSchema == "" {
		reqSchema = openapidefs.Patch
	}
	if reqSchema == "" {
		return nil
	}
	schemas[reqSchema] = true
	var types []string
	if r.Method == http.MethodPatch {
		types = patchContentTypes(r)
	} else {
		for _, c := range r.Consumes {
			if c != StrategicPatch {
				types = append(types, c)
			}
		}
		if len(types) == 0 {
			types = []string{"application/json"}
		}
	}
	content := map[string]any{}
	for _, t := range types {
		content[t] = map[string]any{"schema": ref(reqSchema)}
	}
	body := map[string]any{"content": content}
	if r.Method != http.MethodDelete {
		body["required"] = true
	}
	return body
}

// responses returns the success responses of action (with the response
// schema in every type r produces) and 401; schemas collects the name it
// refers to.
func responses(r *restful.Route, action string, schemas map[string]bool) map[string]any {
	respSchema := metaString(r, ResponseSchemaKey)
	if respSchema == "" && (action == "delete" || action == "deletecollection") {
		respSchema = openapidefs.Status
	}
	produces := r.Produces
	if len(produces) == 0 {
		produces = []string{"application/json"}
	}
	out := map[string]any{}
	codes := successCodes[action]
	if codes == nil {
		codes = []string{"200"}
	}
	for _, c := range codes {
		resp := map[string]any{"description": codeText[c]}
		if respSchema != "" {
			schemas[respSchema] = true
			content := map[string]any{}
			for _, t := range produces {
				content[t] = map[string]any{"schema": ref(respSchema)}
			}
			resp["content"] = content
		}
		out[c] = resp
	}
	out["401"] = map[string]any{"description": "Unauthorized"}
	return out
}

// buildV3 returns the OpenAPI 3.0 document of gv.
func buildV3(gv GroupVersion, known map[string]json.RawMessage, info Info) (map[string]any, error) {
	paths := map[string]map[string]any{}
	roots := map[string]bool{}
	if gv.WebService != nil {
		for _, r := range gv.WebService.Routes() {
			r := r
			if hidden, _ := r.Metadata[UndocumentedKey].(bool); hidden {
				continue
			}
			op, err := operation(&r, roots)
			if err != nil {
				return nil, err
			}
			p := openAPIPath(r.Path)
			item := paths[p]
			if item == nil {
				item = map[string]any{}
				paths[p] = item
			}
			m := strings.ToLower(r.Method)
			if _, dup := item[m]; dup {
				return nil, fmt.Errorf("two %s routes on %s", r.Method, p)
			}
			item[m] = op
		}
	}
	all := make(map[string]json.RawMessage, len(known)+len(gv.Schemas))
	for k, v := range known {
		all[k] = v
	}
	for k, v := range gv.Schemas {
		all[k] = v
		roots[k] = true
	}
	for k := range openapidefs.CommonSchemas() {
		roots[k] = true
	}
	components, err := openapidefs.Closure(all, sortedKeys(roots)...)
	if err != nil {
		return nil, err
	}
	return map[string]any{
		"openapi":    "3.0.0",
		"info":       info,
		"paths":      paths,
		"components": map[string]any{"schemas": components},
	}, nil
}

// addV2 adds the paths and schemas of a v3 document to a swagger 2.0 one.
func addV2(doc map[string]any, paths map[string]map[string]any, defs map[string]json.RawMessage) error {
	comps := doc["components"].(map[string]any)["schemas"].(map[string]json.RawMessage)
	for name, s := range comps {
		d, err := v2Schema(s)
		if err != nil {
			return fmt.Errorf("definition %s: %w", name, err)
		}
		defs[name] = d
	}
	for p, item := range doc["paths"].(map[string]map[string]any) {
		out := map[string]any{}
		for m, o := range item {
			v2, err := v2Operation(o.(map[string]any))
			if err != nil {
				return fmt.Errorf("%s %s: %w", m, p, err)
			}
			out[m] = v2
		}
		paths[p] = out
	}
	return nil
}

// v2Schema turns a v3 component schema into a Swagger 2.0 definition:
// refs point into #/definitions/, and the v3-only keywords go. A value
// that is an integer or a string (anyOf, as IntOrString and Quantity are
// written in v3) is a string in v2, with format int-or-string where the
// schema says x-kubernetes-int-or-string, as kube-apiserver publishes them.
func v2Schema(raw json.RawMessage) (json.RawMessage, error) {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, err
	}
	return json.Marshal(v2Walk(v))
}

// v2Walk converts one schema in place (see v2Schema).
func v2Walk(v any) any {
	t, ok := v.(map[string]any)
	if !ok {
		return v
	}
	for _, k := range []string{"anyOf", "oneOf"} {
		if _, ok := t[k]; ok {
			delete(t, k)
			if _, typed := t["type"]; !typed {
				t["type"] = "string"
			}
			if t["x-kubernetes-int-or-string"] == true {
				if _, ok := t["format"]; !ok {
					t["format"] = "int-or-string"
				}
			}
		}
	}
	delete(t, "nullable")
	// v3 describes a reference as allOf: [{$ref}] beside a description;
	// Swagger 2.0 readers (kubectl before 1.27) follow only a $ref there,
	// so v2 has the $ref beside the description, as kube-apiserver writes it.
	if all, ok := t["allOf"].([]any); ok && len(all) == 1 {
		if only, ok := all[0].(map[string]any); ok && len(only) == 1 && only["$ref"] != nil {
			delete(t, "allOf")
			t["$ref"] = only["$ref"]
		}
	}
	if r, ok := t["$ref"].(string); ok {
		t["$ref"] = "#/definitions/" + strings.TrimPrefix(r, openapidefs.RefPrefix)
	}
	for _, k := range []string{"items", "additionalProperties", "not"} {
		if c, ok := t[k]; ok {
			t[k] = v2Walk(c)
		}
	}
	if all, ok := t["allOf"].([]any); ok {
		for i, c := range all {
			all[i] = v2Walk(c)
		}
	}
	if props, ok := t["properties"].(map[string]any); ok {
		for name, c := range props {
			props[name] = v2Walk(c)
		}
	}
	return t
}

func v2Ref(v any) any {
	m, ok := v.(map[string]any)
	if !ok {
		return v
	}
	if r, ok := m["$ref"].(string); ok {
		return map[string]any{"$ref": "#/definitions/" + strings.TrimPrefix(r, openapidefs.RefPrefix)}
	}
	return m
}

func v2Operation(op map[string]any) (map[string]any, error) {
	out := map[string]any{}
	for k, v := range op {
		switch k {
		case "parameters", "requestBody", "responses":
		default:
			out[k] = v
		}
	}
	var params []map[string]any
	if ps, ok := op["parameters"].([]map[string]any); ok {
		for _, p := range ps {
			q := map[string]any{}
			for k, v := range p {
				if k == "schema" {
					for sk, sv := range v.(map[string]any) {
						q[sk] = sv
					}
					continue
				}
				q[k] = v
			}
			params = append(params, q)
		}
	}
	if rb, ok := op["requestBody"].(map[string]any); ok {
		content := rb["content"].(map[string]any)
		types := sortedKeys(content)
		out["consumes"] = types
		var schema any
		if len(types) > 0 {
			schema = v2Ref(content[types[0]].(map[string]any)["schema"])
		}
		req, _ := rb["required"].(bool)
		params = append(params, map[string]any{"name": "body", "in": "body", "required": req, "schema": schema})
	}
	if len(params) > 0 {
		out["parameters"] = params
	}
	produces := map[string]bool{}
	responses := map[string]any{}
	for code, r := range op["responses"].(map[string]any) {
		rm := r.(map[string]any)
		resp := map[string]any{"description": rm["description"]}
		if content, ok := rm["content"].(map[string]any); ok {
			for _, t := range sortedKeys(content) {
				produces[t] = true
				resp["schema"] = v2Ref(content[t].(map[string]any)["schema"])
			}
		}
		responses[code] = resp
	}
	out["responses"] = responses
	if len(produces) > 0 {
		out["produces"] = sortedKeys(produces)
	}
	return out, nil
}
