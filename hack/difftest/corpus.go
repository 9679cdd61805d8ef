package main

import (
	"fmt"
	"strings"
)

const (
	cmGroup  = "/api/v1/namespaces/default/configmaps"
	shpGroup = "/apis/shipping.kubeforge.dev/v1/namespaces/default/shipments"
	alpha    = "/apis/shipping.kubeforge.dev/v1alpha1/namespaces/default/shipments"
	whGroup  = "/apis/infra.kubeforge.dev/v1/warehouses"
	nsPath   = "/api/v1/namespaces"
	crPath   = "/apis/rbac.authorization.k8s.io/v1/clusterroles"
)

func cmBody(name string) string {
	return fmt.Sprintf(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":%q,"labels":{"a":"b"}},"data":{"k":"v"}}`, name)
}

func shpBody(name string) string {
	return fmt.Sprintf(`{"apiVersion":"shipping.kubeforge.dev/v1","kind":"Shipment","metadata":{"name":%q},"spec":{"origin":{"street":"Hauptstr. 1","city":"Berlin"},"destination":{"street":"High St 2","city":"London"},"parcels":[{"name":"box"}]}}`, name)
}

func whBody(name string) string {
	return fmt.Sprintf(`{"apiVersion":"infra.kubeforge.dev/v1","kind":"Warehouse","metadata":{"name":%q},"spec":{"region":"eu"}}`, name)
}

func nsBody(name string) string {
	return fmt.Sprintf(`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":%q}}`, name)
}

// resource is a kind the corpus exercises: its collection, the fixture
// item's name and a body for it.
type resource struct {
	coll string
	name string
	body func(string) string
}

var resources = []resource{
	{cmGroup, "cm1", cmBody},
	{shpGroup, "s1", shpBody},
	{whGroup, "w1", whBody},
	{nsPath, "ns1", nsBody},
}

// fixtures (re)creates the fixture items: the same requests on both
// servers, compared like the rest.
func fixtures() []req {
	var rs []req
	for _, r := range resources {
		rs = append(rs, req{method: "POST", path: r.coll, user: "admin", ct: "application/json", body: r.body(r.name), note: "fixture"})
	}
	return rs
}

// buildCorpus is the corpus in the order it runs: a part may rely on the
// state the ones before it leave (fixtures made again, items deleted).
func buildCorpus() []req {
	var rs []req
	for _, part := range [][]req{fixtures(), discoveryReqs(), resourcePathReqs(), spellingReqs(), queryReqs(),
		writeReqs(), deleteReqs(), largeObjectReqs(), requestLineReqs()} {
		rs = append(rs, part...)
	}
	return rs
}

// accepts are the Accept headers each discovery and resource path is
// read with (the first, none, is sent by every user).
var accepts = []string{"", "application/json", "application/json, */*", "*/*", "application/yaml", "text/html",
	"application/vnd.kubernetes.protobuf", "application/json;as=Table;v=v1;g=meta.k8s.io",
	"application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json",
	"application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList",
	"application/com.github.proto-openapi.spec.v2@v1.0+protobuf", "text/plain", "garbage", "application/json;q=0",
	"text/html;q=0.9, application/yaml;q=0.8", ";;;", "application/*"}

// discoveryReqs reads discovery and the server's own paths.
func discoveryReqs() []req {
	var rs []req
	add := func(r ...req) { rs = append(rs, r...) }
	disc := []string{"/", "/api", "/api/v1", "/apis", "/apis/shipping.kubeforge.dev", "/apis/shipping.kubeforge.dev/v1",
		"/apis/shipping.kubeforge.dev/v1alpha1", "/apis/infra.kubeforge.dev", "/apis/infra.kubeforge.dev/v1",
		"/apis/rbac.authorization.k8s.io/v1", "/apis/authorization.k8s.io/v1", "/apis/nosuch.group", "/apis/nosuch.group/v1",
		"/apis/shipping.kubeforge.dev/v9", "/api/v2",
		"/openapi/v2", "/openapi/v3", "/openapi/v3/apis/shipping.kubeforge.dev/v1", "/openapi/v3/api/v1", "/openapi/v3/nosuch",
		"/version", "/healthz", "/livez", "/readyz", "/healthz/verbose", "/livez/verbose", "/readyz/verbose",
		"/healthz?verbose", "/readyz?verbose=1", "/readyz?exclude=etcd", "/livez?exclude=etcd&verbose", "/readyz?exclude=nosuch",
		"/healthz/etcd", "/readyz/etcd", "/livez/ping", "/healthz/nosuch", "/metrics", "/nosuch", "/api/", "/apis/",
		"/version/", "/openapi/v2/", "/healthz/", "/metrics/", "/.well-known/openid-configuration", "/openid/v1/jwks"}
	for _, p := range disc {
		for _, u := range []string{"admin", "anon", "sa"} {
			add(req{method: "GET", path: p, user: u})
		}
		for _, a := range accepts[1:] {
			add(req{method: "GET", path: p, user: "admin", accept: a})
		}
		for _, m := range []string{"HEAD", "POST", "PUT", "DELETE", "OPTIONS", "TRACE", "FOO"} {
			add(req{method: m, path: p, user: "admin"})
		}
	}
	return rs
}

// resourcePathReqs reads resource paths: collections, items, subresources.
func resourcePathReqs() []req {
	var rs []req
	add := func(r ...req) { rs = append(rs, r...) }
	var paths []string
	for _, r := range resources {
		item := r.coll + "/" + r.name
		paths = append(paths, r.coll, item, item+"/status", item+"/scale", item+"/nosuch", item+"/status/nosuch")
	}
	paths = append(paths,
		"/apis/shipping.kubeforge.dev/v1/shipments", alpha, alpha+"/s1", alpha+"/s1/status",
		"/api/v1/configmaps", "/api/v1/namespaces/nosuch/configmaps", "/api/v1/namespaces/nosuch/configmaps/cm1",
		"/api/v1/namespaces/default/nosuch", "/api/v1/namespaces/default/nosuch/x", "/apis/nosuch.group/v1/things",
		"/apis/shipping.kubeforge.dev/v1/namespaces/default/warehouses", "/apis/infra.kubeforge.dev/v1/namespaces/default/warehouses",
		"/apis/infra.kubeforge.dev/v1/namespaces/default/warehouses/w1",
		"/api/v1/namespaces/default/serviceaccounts/x/token", "/api/v1/namespaces/default/serviceaccounts/x",
		"/apis/rbac.authorization.k8s.io/v1/clusterroles/admin", crPath,
		"/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", "/apis/authentication.k8s.io/v1/selfsubjectreviews",
		"/api/v1/watch/namespaces/default/configmaps?timeoutSeconds=1", "/api/v1/namespaces/default/configmaps/cm1/a/b/c/d")
	for _, p := range paths {
		for _, u := range []string{"admin", "anon", "sa"} {
			add(req{method: "GET", path: p, user: u})
		}
		for _, a := range accepts[1:] {
			add(req{method: "GET", path: p, user: "admin", accept: a})
		}
		for _, m := range []string{"HEAD", "OPTIONS", "TRACE", "FOO", "CONNECT"} {
			add(req{method: m, path: p, user: "admin"})
		}
		// Writes without a body, and with the wrong Content-Type: all fail
		// before they change anything.
		for _, m := range []string{"POST", "PUT", "PATCH"} {
			add(req{method: m, path: p, user: "admin"})
			add(req{method: m, path: p, user: "admin", ct: "garbage", body: "{}"})
			add(req{method: m, path: p, user: "sa", ct: "application/json", body: "{}"})
			add(req{method: m, path: p, user: "anon", ct: "application/json", body: "{}"})
		}
		add(req{method: "DELETE", path: p, user: "sa"}, req{method: "DELETE", path: p, user: "anon"})
	}
	return rs
}

// spellingReqs reaches paths by unusual spellings.
func spellingReqs() []req {
	var rs []req
	add := func(r ...req) { rs = append(rs, r...) }
	spell := func(p string) []string {
		i := strings.LastIndex(p, "/")
		dir, last := p[:i], p[i+1:]
		return []string{
			p + "/", p + "//", strings.Replace(p, "/", "//", 2), "/" + p, dir + "/./" + last, dir + "/x/../" + last,
			dir + "/%2e/" + last, dir + "/" + last + "%2Fx", dir + "/" + strings.ToUpper(last), strings.ToUpper(p),
			dir + "/" + last + "%00", dir + "/" + last + "%zz", dir + "/" + last + "%", dir + "/" + strings.Repeat("a", 300),
			dir + "/" + "ünïcödé", dir + "/%C3%BCn%C3%AF", dir + "/" + last + "?", dir + "/" + last + "#frag",
			dir + "/" + last + ";x=y", dir + "/%63" + last[1:], dir + "/.." + "/" + last, dir + "/" + last + "/..",
			dir + "/" + last + "/.", dir + "/" + last + "/%2e%2e",
		}
	}
	var spelled []string
	for _, r := range resources {
		spelled = append(spelled, spell(r.coll+"/"+r.name)...)
		spelled = append(spelled, spell(r.coll)...)
		spelled = append(spelled, spell(r.coll+"/"+r.name+"/status")...)
	}
	spelled = append(spelled, spell("/apis/shipping.kubeforge.dev/v1")...)
	spelled = append(spelled, spell("/api/v1")...)
	spelled = append(spelled, "/api//v1", "//api/v1", "/apis//shipping.kubeforge.dev/v1", "/./api", "/../api", "/api/v1/../v1",
		"/healthz/./", "/readyz//", "/%61pi/v1", "/api/v1/namespaces/default/configmaps/cm%2F1",
		"/api/v1/namespaces/default/configmaps/%2e%2e", "/api/v1/namespaces/default/configmaps/..",
		"/api/v1/namespaces/default/configmaps/.", "/api/v1/namespaces/%2e/configmaps")
	for _, p := range spelled {
		for _, m := range []string{"GET", "HEAD", "OPTIONS"} {
			add(req{method: m, path: p, user: "admin"})
		}
		add(req{method: "GET", path: p, user: "admin", accept: "application/json;as=Table;v=v1;g=meta.k8s.io"})
		add(req{method: "GET", path: p, user: "sa"})
		add(req{method: "PATCH", path: p, user: "admin", ct: "application/merge-patch+json", body: `{"metadata":{"labels":{"spelled":"x"}}}`})
	}
	return rs
}

// queryReqs reads with query parameters.
func queryReqs() []req {
	var rs []req
	add := func(r ...req) { rs = append(rs, r...) }
	queries := []string{"resourceVersion=a&resourceVersion=b", "resourceVersion=0&resourceVersion=a", "resourceVersion=a&resourceVersion=0",
		"resourceVersion=0", "resourceVersion=", "resourceVersion=1", "resourceVersion=99999999", "resourceVersion=-1",
		"limit=-1", "limit=0", "limit=1", "limit=abc", "limit=1&limit=2", "limit=99999999999999999999",
		"watch=maybe&timeoutSeconds=1", "watch=false", "watch=0", "watch=1&timeoutSeconds=1", "watch=true&timeoutSeconds=abc",
		"fieldSelector=%%%", "fieldSelector=metadata.name", "fieldSelector=metadata.name=cm1", "fieldSelector=spec.nosuch=1",
		"fieldSelector=metadata.name!=x,metadata.namespace=default", "labelSelector=%%%", "labelSelector=a+in+(", "labelSelector=a=b",
		"labelSelector=!!", "labelSelector=a=b&labelSelector=c=d", "timeoutSeconds=abc", "timeoutSeconds=-5",
		"dryRun=Bad", "dryRun=All", "fieldManager=" + strings.Repeat("m", 200), "pretty=true", "pretty=1", "pretty=maybe",
		"continue=garbage", "continue=", "resourceVersionMatch=Exact", "resourceVersionMatch=NotOlderThan&resourceVersion=0",
		"resourceVersionMatch=Bad&resourceVersion=1", "allowWatchBookmarks=true", "sendInitialEvents=true",
		"includeObject=Object", "propagationPolicy=Bad", "gracePeriodSeconds=x", "export=true", "exact=true",
		"kind=Foo&apiVersion=v9", "a=%zz", "%zz=1", "=&&=", "x=" + strings.Repeat("y", 2000), "resourceVersion=%00",
		"fieldValidation=Bad", "fieldValidation=Strict", "force=maybe", "orphanDependents=maybe"}
	var qpaths []string
	for _, r := range resources {
		qpaths = append(qpaths, r.coll, r.coll+"/"+r.name, r.coll+"/"+r.name+"/status")
	}
	qpaths = append(qpaths, "/api", "/apis/shipping.kubeforge.dev/v1", "/openapi/v2", "/healthz", "/version")
	for _, p := range qpaths {
		for _, q := range queries {
			add(req{method: "GET", path: p + "?" + q, user: "admin"})
		}
		add(req{method: "GET", path: p + "?pretty=true", user: "admin", accept: "application/json;as=Table;v=v1;g=meta.k8s.io"})
		add(req{method: "GET", path: p + "?pretty=true", user: "admin", accept: "application/yaml"})
	}
	return rs
}

// writeReqs writes: every Content-Type on each method, with a body fitting it.
// The fixtures are made again first, and kept (no DELETE here).
func writeReqs() []req {
	var rs []req
	add := func(r ...req) { rs = append(rs, r...) }
	patches := map[string]string{
		"application/merge-patch+json":           `{"metadata":{"labels":{"p":"merge"}}}`,
		"application/strategic-merge-patch+json": `{"metadata":{"labels":{"p":"smp"}}}`,
		"application/json-patch+json":            `[{"op":"add","path":"/metadata/labels/p","value":"jp"}]`,
		"application/apply-patch+yaml":           "",
		"application/json":                       `{"metadata":{"labels":{"p":"json"}}}`,
		"application/yaml":                       "metadata:\n  labels:\n    p: yaml\n",
		"":                                       `{"metadata":{"labels":{"p":"none"}}}`,
		"garbage":                                `{}`,
		"application/merge-patch+json; charset=utf-8": `{"metadata":{"labels":{"p":"merge2"}}}`,
		"application/vnd.kubernetes.protobuf":         "\x6b\x38\x73\x00",
		"text/plain":                                  "hi",
	}
	cts := []string{"application/merge-patch+json", "application/strategic-merge-patch+json", "application/json-patch+json",
		"application/apply-patch+yaml", "application/json", "application/yaml", "", "garbage",
		"application/merge-patch+json; charset=utf-8", "application/vnd.kubernetes.protobuf", "text/plain"}
	add(fixtures()...)
	for _, r := range resources {
		item := r.coll + "/" + r.name
		for _, ct := range cts {
			body := patches[ct]
			if ct == "application/apply-patch+yaml" {
				body = strings.Replace(r.body(r.name), `"metadata":{`, `"metadata":{"labels":{"p":"apply"},`, 1)
			}
			for _, q := range []string{"", "?fieldManager=difftest", "?dryRun=All", "?dryRun=Bad", "?fieldManager=" + strings.Repeat("m", 200),
				"?fieldValidation=Strict", "?force=true&fieldManager=x"} {
				add(req{method: "PATCH", path: item + q, user: "admin", ct: ct, body: body})
			}
			add(req{method: "PATCH", path: item + "/status", user: "admin", ct: ct, body: body})
			add(req{method: "PATCH", path: item, user: "admin", ct: ct, body: "{not json"})
			add(req{method: "PATCH", path: item, user: "admin", ct: ct, accept: "application/yaml", body: body})
			add(req{method: "PATCH", path: item, user: "admin", ct: ct, accept: "application/json;as=Table;v=v1;g=meta.k8s.io", body: body})
			add(req{method: "PATCH", path: item, user: "admin", ct: ct, accept: "application/vnd.kubernetes.protobuf", body: body})
			// PUT and POST: the whole object in every Content-Type.
			add(req{method: "PUT", path: item, user: "admin", ct: ct, body: r.body(r.name)})
			add(req{method: "PUT", path: item + "?dryRun=All", user: "admin", ct: ct, body: r.body(r.name)})
			add(req{method: "POST", path: r.coll + "?dryRun=All", user: "admin", ct: ct, body: r.body("dry")})
		}
		add(req{method: "PUT", path: item, user: "admin", ct: "application/json", body: r.body("other-name")})
		add(req{method: "PUT", path: item, user: "admin", ct: "application/json", body: "{}"})
		add(req{method: "PUT", path: item, user: "admin", ct: "application/json", body: "null"})
		add(req{method: "PUT", path: item + "/status", user: "admin", ct: "application/json", body: r.body(r.name)})
		add(req{method: "PUT", path: r.coll + "/new-by-put", user: "admin", ct: "application/json", body: r.body("new-by-put")})
		add(req{method: "POST", path: r.coll, user: "admin", ct: "application/json", body: r.body(r.name)})
		add(req{method: "POST", path: item, user: "admin", ct: "application/json", body: r.body(r.name)})
		add(req{method: "POST", path: r.coll, user: "admin", ct: "application/json", body: r.body("")})
		add(req{method: "POST", path: r.coll, user: "admin", ct: "application/json", body: r.body("Bad_Name")})
		add(req{method: "POST", path: r.coll, user: "admin", ct: "application/json", body: r.body(strings.Repeat("a", 300))})
		add(req{method: "POST", path: r.coll, user: "admin", ct: "application/json", body: strings.Replace(r.body(""), `"name":""`, `"generateName":"gen-"`, 1)})
		add(req{method: "POST", path: r.coll, user: "admin", ct: "application/json", accept: "application/yaml", body: r.body("yaml-accept")})
		add(req{method: "POST", path: r.coll, user: "admin", ct: "application/json", accept: "application/json;as=Table;v=v1;g=meta.k8s.io", body: r.body("table-accept")})
		add(req{method: "POST", path: r.coll, user: "admin", ct: "application/json", accept: "text/html", body: r.body("html-accept")})
		add(req{method: "POST", path: r.coll, user: "sa", ct: "application/json", body: r.body("by-sa")})
		add(req{method: "POST", path: r.coll, user: "anon", ct: "application/json", body: r.body("by-anon")})
		add(req{method: "GET", path: r.coll + "?labelSelector=p", user: "admin"})
		add(req{method: "GET", path: item, user: "admin"})
	}
	return rs
}

// deleteReqs deletes, then reads of what is gone, then the fixtures again.
func deleteReqs() []req {
	var rs []req
	add := func(r ...req) { rs = append(rs, r...) }
	for _, r := range resources {
		item := r.coll + "/" + r.name
		add(req{method: "DELETE", path: item + "?dryRun=All", user: "admin"},
			req{method: "DELETE", path: item + "?dryRun=Bad", user: "admin"},
			req{method: "DELETE", path: item + "?propagationPolicy=Bad", user: "admin"},
			req{method: "DELETE", path: item + "?gracePeriodSeconds=x", user: "admin"},
			req{method: "DELETE", path: item, user: "admin", ct: "application/json", body: `{"kind":"DeleteOptions","apiVersion":"v1","preconditions":{"uid":"nope"}}`},
			req{method: "DELETE", path: item, user: "admin", ct: "application/json", body: `{not json`},
			req{method: "DELETE", path: item, user: "admin"},
			req{method: "GET", path: item, user: "admin", settle: r.coll == nsPath},
			req{method: "GET", path: item, user: "admin"},
			req{method: "DELETE", path: item, user: "admin"},
			req{method: "DELETE", path: r.coll + "/new-by-put", user: "admin", accept: "application/yaml"},
			req{method: "DELETE", path: r.coll + "?labelSelector=nosuch%3Dx", user: "admin"},
			req{method: "DELETE", path: r.coll + "?labelSelector=%%%", user: "admin"},
		)
	}
	add(req{method: "GET", path: nsPath + "/ns1", user: "admin", settle: true})
	add(fixtures()...)
	return rs
}

// largeObjectReqs writes and reads a large object (past the timeout filter's 256 KiB
// buffer) and lists of it.
func largeObjectReqs() []req {
	var rs []req
	add := func(r ...req) { rs = append(rs, r...) }
	big := fmt.Sprintf(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"big"},"data":{"k":%q}}`, strings.Repeat("0123456789abcdef", 20<<10))
	add(req{method: "POST", path: cmGroup, user: "admin", ct: "application/json", body: big})
	for _, a := range []string{"", "application/json", "application/json, */*", "application/yaml", "application/json;as=Table;v=v1;g=meta.k8s.io", "application/vnd.kubernetes.protobuf"} {
		add(req{method: "GET", path: cmGroup + "/big", user: "admin", accept: a},
			req{method: "GET", path: cmGroup, user: "admin", accept: a},
			req{method: "GET", path: cmGroup + "?limit=1", user: "admin", accept: a},
			req{method: "GET", path: "/api/v1/configmaps?fieldSelector=metadata.name%3Dbig", user: "admin", accept: a})
	}
	add(req{method: "PUT", path: cmGroup + "/big", user: "admin", ct: "application/json", body: big},
		req{method: "PATCH", path: cmGroup + "/big", user: "admin", ct: "application/merge-patch+json", body: `{"metadata":{"labels":{"big":"yes"}}}`},
		req{method: "GET", path: cmGroup + "/big?pretty=true", user: "admin"},
		req{method: "DELETE", path: cmGroup + "/big", user: "admin"})
	return rs
}

// requestLineReqs varies request lines and headers: absolute-form and "*"
// targets, methods in other cases, HTTP/1.0 without Host, Accept headers
// long or repeated, chunked bodies, Expect.
func requestLineReqs() []req {
	var rs []req
	add := func(r ...req) { rs = append(rs, r...) }
	for _, p := range []string{cmGroup + "/cm1", shpGroup + "/s1", whGroup + "/w1", shpGroup, "/api/v1", "/apis"} {
		add(req{method: "GET", path: "https://{addr}" + p, user: "admin"},
			req{method: "GET", path: "http://{addr}" + p, user: "admin"},
			req{method: "GET", path: "https://other.example" + p, user: "admin"},
			req{method: "get", path: p, user: "admin"},
			req{method: "Get", path: p, user: "admin"},
			req{method: "PRI", path: p, user: "admin"},
			req{method: "GET", path: p, user: "admin", proto: "HTTP/1.0", noHost: true},
			req{method: "GET", path: p, user: "admin", proto: "HTTP/1.0"},
			req{method: "GET", path: p, user: "admin", accept: "application/json, " + strings.Repeat("text/x-long, ", 30) + "*/*"},
			req{method: "GET", path: p, user: "admin", accept: strings.Repeat("x", 300)},
			req{method: "GET", path: p, user: "admin", accept: "application/json", extra: "Accept: application/yaml\r\n"},
			req{method: "GET", path: p, user: "admin", accept: "application/yaml", extra: "Accept: application/json\r\n"},
			req{method: "GET", path: p, user: "admin", accept: " application/json "},
			req{method: "GET", path: p, user: "admin", accept: "APPLICATION/JSON"},
			req{method: "GET", path: p, user: "admin", accept: "application/json;pretty=1"},
			req{method: "GET", path: p, user: "admin", accept: "application/json,*/*"},
			req{method: "GET", path: p, user: "admin", accept: "application/json, */*;q=0.1"},
			req{method: "GET", path: p, user: "admin", extra: "Content-Type: application/json\r\n"},
			req{method: "GET", path: p, user: "admin", extra: "Accept-Encoding: gzip\r\n"},
			req{method: "GET", path: p, user: "admin", extra: "X-Forwarded-For: 1.2.3.4\r\nImpersonate-User: someone\r\n"},
			req{method: "GET", path: p, user: "sa", extra: "Impersonate-User: admin\r\n"},
			req{method: "PATCH", path: p, user: "admin", ct: "application/merge-patch+json",
				extra: "Transfer-Encoding: chunked\r\n", body: "f\r\n{\"metadata\":{}}\r\n0\r\n\r\n"},
			req{method: "PATCH", path: p, user: "admin", ct: "application/merge-patch+json", extra: "Expect: 100-continue\r\n", body: `{"metadata":{}}`},
		)
	}
	add(req{method: "OPTIONS", path: "*", user: "admin"}, req{method: "GET", path: "*", user: "admin"}, req{method: "CONNECT", path: "{addr}", user: "admin"})
	add(req{method: "DELETE", path: cmGroup + "?labelSelector=a%3Db", user: "admin"})
	add(req{method: "GET", path: cmGroup, user: "admin"})
	return rs
}

// kcmd is one kubectl command of the corpus.
type kcmd struct {
	args  []string
	stdin string
	json  bool // normalise stdout as JSON
}

func kubectlCorpus() []kcmd {
	shp := `apiVersion: shipping.kubeforge.dev/v1
kind: Shipment
metadata: {name: k1, namespace: default}
spec:
  origin: {street: Hauptstr. 1, city: Berlin}
  destination: {street: High St 2, city: London}
  parcels: [{name: box}]
`
	cm := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: kcm, namespace: default}\ndata: {a: b}\n"
	return []kcmd{
		{args: []string{"api-resources"}},
		{args: []string{"api-versions"}},
		{args: []string{"version", "-o", "json"}, json: true},
		{args: []string{"explain", "shipments"}},
		{args: []string{"explain", "shipments.spec.parcels", "--recursive"}},
		{args: []string{"explain", "warehouses.spec"}},
		{args: []string{"explain", "configmaps"}},
		{args: []string{"explain", "nosuch"}},
		{args: []string{"create", "-f", "-"}, stdin: shp},
		{args: []string{"create", "-f", "-"}, stdin: shp},
		{args: []string{"create", "-f", "-"}, stdin: cm},
		{args: []string{"get", "shipments"}},
		{args: []string{"get", "shipments", "-A"}},
		{args: []string{"get", "shp", "k1", "-o", "yaml"}},
		{args: []string{"get", "shp", "k1", "-o", "json"}, json: true},
		{args: []string{"get", "shp", "k1", "-o", "wide"}},
		{args: []string{"get", "shipments.v1alpha1.shipping.kubeforge.dev", "k1", "-o", "json"}, json: true},
		{args: []string{"get", "logistics"}},
		{args: []string{"get", "all"}},
		{args: []string{"get", "cm", "kcm", "-o", "jsonpath={.data}"}},
		{args: []string{"get", "shp", "nosuch"}},
		{args: []string{"get", "nosuchkind"}},
		{args: []string{"get", "--raw", "/apis/shipping.kubeforge.dev/v1"}},
		{args: []string{"get", "--raw", "/api/v1/namespaces/default/configmaps/kcm"}, json: true},
		{args: []string{"apply", "-f", "-"}, stdin: strings.Replace(shp, "box", "crate", 1)},
		{args: []string{"apply", "--server-side", "-f", "-"}, stdin: strings.Replace(shp, "box", "bag", 1)},
		{args: []string{"apply", "--server-side", "--field-manager", "other", "-f", "-"}, stdin: strings.Replace(shp, "box", "tin", 1)},
		{args: []string{"apply", "--server-side", "--force-conflicts", "--field-manager", "other", "-f", "-"}, stdin: strings.Replace(shp, "box", "tin", 1)},
		{args: []string{"apply", "--dry-run=server", "-f", "-"}, stdin: cm},
		{args: []string{"diff", "-f", "-"}, stdin: strings.Replace(cm, "a: b", "a: c", 1)},
		{args: []string{"patch", "shp", "k1", "--type=merge", "-p", `{"metadata":{"labels":{"x":"y"}}}`}},
		{args: []string{"patch", "shp", "k1", "--type=json", "-p", `[{"op":"add","path":"/metadata/labels/z","value":"1"}]`}},
		{args: []string{"patch", "shp", "k1", "-p", `{"metadata":{"labels":{"s":"t"}}}`}},
		{args: []string{"patch", "shp", "k1", "--type=merge", "-p", `{not json`}},
		{args: []string{"patch", "shp", "k1", "--subresource=status", "--type=merge", "-p", `{"status":{}}`}},
		{args: []string{"label", "cm", "kcm", "l=v"}},
		{args: []string{"annotate", "cm", "kcm", "an=v"}},
		{args: []string{"get", "cm", "-l", "l=v", "-o", "name"}},
		{args: []string{"get", "cm", "--field-selector", "metadata.name=kcm", "-o", "name"}},
		{args: []string{"get", "cm", "--field-selector", "bad", "-o", "name"}},
		{args: []string{"describe", "shp", "k1"}},
		{args: []string{"auth", "can-i", "list", "shipments"}},
		{args: []string{"auth", "can-i", "list", "shipments", "--as", "system:serviceaccount:default:x"}},
		{args: []string{"get", "shipments", "--as", "system:serviceaccount:default:x"}},
		{args: []string{"auth", "whoami"}},
		{args: []string{"create", "token", "x", "--duration=10m"}},
		{args: []string{"delete", "shp", "k1"}},
		{args: []string{"delete", "shp", "k1"}},
		{args: []string{"delete", "cm", "kcm", "--dry-run=server"}},
		{args: []string{"delete", "cm", "kcm"}},
		{args: []string{"get", "shipments", "--chunk-size=1"}},
	}
}

// timeoutCorpus outlasts a short --request-timeout: reads that wait for a
// resourceVersion etcd has not reached, and bodies that stop arriving.
func timeoutCorpus() []req {
	rs := fixtures()
	for _, r := range resources {
		item := r.coll + "/" + r.name
		rs = append(rs,
			req{method: "GET", path: r.coll + "?resourceVersion=99999999", user: "admin"},
			req{method: "GET", path: item + "?resourceVersion=99999999", user: "admin"},
			req{method: "GET", path: item + "?resourceVersion=99999999", user: "admin", accept: "application/yaml"},
			req{method: "GET", path: r.coll + "?resourceVersion=99999999&resourceVersionMatch=NotOlderThan", user: "admin"},
			req{method: "GET", path: r.coll + "?watch=true&timeoutSeconds=3", user: "admin"},
			req{method: "POST", path: r.coll, user: "admin", ct: "application/json", body: r.body("short"), short: true},
			req{method: "PUT", path: item, user: "admin", ct: "application/json", body: r.body(r.name), short: true},
			req{method: "PATCH", path: item, user: "admin", ct: "application/merge-patch+json", body: "{}", short: true},
			req{method: "POST", path: r.coll, user: "sa", ct: "application/json", body: r.body("short"), short: true},
			req{method: "GET", path: item, user: "admin"},
		)
	}
	return rs
}
