// Command difftest-storage drives two running kubeforge apiservers, a base
// build and a new one, through the same sequences of requests, watches and
// informers, and prints where their results differ once uids, timestamps,
// resourceVersions, continue tokens and ages are normalised (bodies are
// compared as bytes: key order and escaping count). It is a manual tool,
// run by nothing in CI (a main package without tests). To run it:
//
//	git worktree add /tmp/base <commit> && (cd /tmp/base && go build -o /tmp/apiserver-base ./cmd/apiserver)
//	go build -o /tmp/apiserver-new ./cmd/apiserver
//	/tmp/apiserver-base --data-dir /tmp/A --secure-port 17443 &
//	/tmp/apiserver-new --data-dir /tmp/B --secure-port 17444 &
//	go run ./hack/difftest-storage -a /tmp/A -b /tmp/B [-a2 /tmp/A2 -b2 /tmp/B2] [-bulk 505] [-race-ops 40] [-dump FILE] \
//		[-only names,writes,writes2,lists,lists2,watch,compact,race,raw,big]
//
// Start both on fresh data dirs, with the same flags (--watch-cache=false
// for the uncached paths, --encryption-provider-config for encrypted
// values). The compact and raw scenarios write to the embedded etcd through
// DATA-DIR/etcd.sock. Within each server it also checks that every DELETED
// event carries the last state its watch saw of the object, at a newer
// resourceVersion. Exit status 1 when anything differs.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"

	kfetcd "github.com/kubeforge/kubeforge/runtime/etcd"
)

type target struct {
	name   string
	dir    string
	host   string
	client *http.Client
	recs   []rec
	// rvs labels resourceVersions seen in write responses, in order, so
	// the two servers' (which differ by background writes) compare.
	rvs      map[string]string
	problems []string
	// peer is a second replica on the same etcd (-a2, -b2), if any: the
	// race scenario writes and watches through both.
	peer *target
}

type rec struct {
	step string
	out  string
}

func newTarget(name, dir string) (*target, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", filepath.Join(dir, "admin.kubeconfig"))
	if err != nil {
		return nil, fmt.Errorf("kubeconfig of %s: %w", dir, err)
	}
	c, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return nil, fmt.Errorf("client of %s: %w", dir, err)
	}
	return &target{name: name, dir: dir, host: cfg.Host, client: c, rvs: map[string]string{}}, nil
}

type resp struct {
	code int
	body []byte
	obj  any
}

func (t *target) do(method, path, ctype string, body []byte) resp {
	req, err := http.NewRequest(method, t.host+path, bytes.NewReader(body))
	if err != nil {
		return resp{code: -1, body: []byte(err.Error())}
	}
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	req.Header.Set("Accept", "application/json")
	r, err := t.client.Do(req)
	if err != nil {
		return resp{code: -1, body: []byte(err.Error())}
	}
	defer r.Body.Close()
	b, _ := io.ReadAll(r.Body)
	out := resp{code: r.StatusCode, body: b}
	_ = json.Unmarshal(b, &out.obj)
	return out
}

// learn labels the resourceVersion of a write's result.
func (t *target) learn(r resp) {
	m, _ := r.obj.(map[string]any)
	md, _ := m["metadata"].(map[string]any)
	if rv, ok := md["resourceVersion"].(string); ok && rv != "" {
		if _, seen := t.rvs[rv]; !seen {
			t.rvs[rv] = fmt.Sprintf("w%d", len(t.rvs))
		}
	}
}

func (t *target) record(step string, r resp) {
	t.recs = append(t.recs, rec{step: step, out: fmt.Sprintf("%d %s", r.code, t.normJSON(r.body))})
}

var (
	uuidRE    = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	rvParamRE = regexp.MustCompile(`resourceVersion=\d+`)
	timeRE    = regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z`)
	rvMsgRE   = regexp.MustCompile(`(resourceVersion|ResourceVersion|revision|version|current|object meta)( is| of|:)? "?\d+"?`)
)

// normJSON normalises a response body as bytes, keeping key order and
// escaping (a body served from stored bytes must be byte for byte the
// encoder's): uids, timestamps, resourceVersions (labelled when learnt),
// continue tokens and ages are replaced.
func (t *target) normJSON(b []byte) string {
	s := string(b)
	s = rvFieldRE.ReplaceAllStringFunc(s, func(m string) string {
		rv := rvFieldRE.FindStringSubmatch(m)[2]
		if l, ok := t.rvs[rv]; ok {
			return rvFieldRE.FindStringSubmatch(m)[1] + l + `"`
		}
		if rv == "" {
			return m
		}
		return rvFieldRE.FindStringSubmatch(m)[1] + `RV"`
	})
	s = contRE.ReplaceAllString(s, `continue: CONT`)
	s = uuidRE.ReplaceAllString(s, "UID")
	s = timeRE.ReplaceAllString(s, "TS")
	s = rvMsgRE.ReplaceAllString(s, "$1$2 N")
	s = cellAgeRE.ReplaceAllString(s, `"AGE"`)
	return s
}

var (
	rvFieldRE = regexp.MustCompile(`("resourceVersion":\s*"|resourceVersion: ")(\d*)"`)
	contRE    = regexp.MustCompile(`"continue":\s*"[^"]+"|continue: \S+`)
	cellAgeRE = regexp.MustCompile(`"(\d+[smhdy])+"`)
)

// ---- scenarios

const (
	cmPath   = "/api/v1/namespaces/%s/configmaps"
	nsPath   = "/api/v1/namespaces"
	shpPath  = "/apis/shipping.kubeforge.dev/v1/namespaces/%s/shipments"
	whPath   = "/apis/infra.kubeforge.dev/v1/warehouses"
	crPath   = "/apis/rbac.authorization.k8s.io/v1/clusterroles"
	jsonType = "application/json"
)

func j(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // the harness's own literals
	}
	return b
}

func ns(t *target, name string) {
	t.learn(t.do("POST", nsPath, jsonType, j(map[string]any{"metadata": map[string]any{"name": name}})))
}

func shipment(name string, labels map[string]string, carrier, city, phase string) map[string]any {
	spec := map[string]any{
		"origin":      map[string]any{"street": "s", "city": city},
		"destination": map[string]any{"street": "d", "city": "Berlin"},
		"parcels":     []any{map[string]any{"name": "p"}},
	}
	if carrier != "" {
		spec["carrier"] = carrier
	}
	o := map[string]any{"apiVersion": "shipping.kubeforge.dev/v1", "kind": "Shipment",
		"metadata": map[string]any{"name": name, "labels": labels}, "spec": spec}
	if phase != "" {
		o["status"] = map[string]any{"phase": phase}
	}
	return o
}

func names() []string {
	l63 := strings.Repeat("a", 63)
	return []string{
		"a", "0", "123", "a-b", "a.b", "-a", "a-", ".a", "a.", "A", "aB", "ä", "aä", "a..b", "a.-b", "a-.b",
		"a%2Fb", "a/b", "a_b", "a b", "a:b", "a@b", "a\x00b", "a\tb", "%", "a%b", "..a", "a..",
		l63, l63 + "a", l63 + "." + l63 + "a", // a 64-byte label inside a subdomain
		strings.Repeat(l63+".", 3) + strings.Repeat("b", 61), // 253
		strings.Repeat(l63+".", 3) + strings.Repeat("b", 62), // 254
		strings.Repeat("c", 253), strings.Repeat("c", 254),
		"system:foo", "a.b.c", "0.0.0", "x-.y", "x.-y", "x.y-", "-",
		// last: their paths are the collection's or the namespace's (a
		// delete of ".." deletes the namespace)
		".", "..",
	}
}

func scenarioNames(t *target) {
	ns(t, "names")
	for _, n := range names() {
		esc := url.PathEscape(n)
		r := t.do("POST", fmt.Sprintf(cmPath, "names"), jsonType, j(map[string]any{"metadata": map[string]any{"name": n}}))
		t.record("cm create "+strconv.Quote(n), r)
		t.record("cm get "+strconv.Quote(n), t.do("GET", fmt.Sprintf(cmPath, "names")+"/"+esc, "", nil))
		t.record("cm put "+strconv.Quote(n), t.do("PUT", fmt.Sprintf(cmPath, "names")+"/"+esc, jsonType, j(map[string]any{"metadata": map[string]any{"name": n}, "data": map[string]any{"k": "v"}})))
		t.record("cm delete "+strconv.Quote(n), t.do("DELETE", fmt.Sprintf(cmPath, "names")+"/"+esc, "", nil))
		t.record("ns create "+strconv.Quote(n), t.do("POST", nsPath, jsonType, j(map[string]any{"metadata": map[string]any{"name": n}})))
		t.record("ns get "+strconv.Quote(n), t.do("GET", nsPath+"/"+esc, "", nil))
		t.record("cm in ns "+strconv.Quote(n), t.do("GET", fmt.Sprintf(cmPath, esc)+"/x", "", nil))
		t.record("cm list in ns "+strconv.Quote(n), t.do("GET", fmt.Sprintf(cmPath, esc), "", nil))
		t.record("cm create in ns "+strconv.Quote(n), t.do("POST", fmt.Sprintf(cmPath, esc), jsonType, j(map[string]any{"metadata": map[string]any{"name": "x"}})))
		t.record("shp create "+strconv.Quote(n), t.do("POST", fmt.Sprintf(shpPath, "names"), jsonType, j(shipment(n, nil, "", "Bonn", ""))))
		t.record("wh create "+strconv.Quote(n), t.do("POST", whPath, jsonType, j(map[string]any{"metadata": map[string]any{"name": n}, "spec": map[string]any{}})))
		t.record("wh get "+strconv.Quote(n), t.do("GET", whPath+"/"+esc, "", nil))
		t.record("cr create "+strconv.Quote(n), t.do("POST", crPath, jsonType, j(map[string]any{"metadata": map[string]any{"name": n}})))
		t.record("cr get "+strconv.Quote(n), t.do("GET", crPath+"/"+esc, "", nil))
		t.record("cr delete "+strconv.Quote(n), t.do("DELETE", crPath+"/"+esc, "", nil))
		// generateName and the name in the body differing from the path's
		t.record("cm put mismatch "+strconv.Quote(n), t.do("PUT", fmt.Sprintf(cmPath, "names")+"/ok", jsonType, j(map[string]any{"metadata": map[string]any{"name": n}})))
	}
}

func scenarioWrites(t *target) {
	ns(t, "wr")
	p := fmt.Sprintf(shpPath, "wr")
	writesManagedFields(t, p)
	bodies := writesBodies()
	writesValidation(t, p, bodies)
	writesPatches(t, p, bodies["ok"])
	writesEdit(t, p)
	writesKubectl(t, p)
}

// writesManagedFields creates, reads, updates and deletes a shipment with
// each form of metadata.managedFields, valid or not.
func writesManagedFields(t *target, p string) {
	mf := func(v any) map[string]any {
		o := shipment("mf", nil, "", "Bonn", "")
		o["metadata"].(map[string]any)["managedFields"] = v
		return o
	}
	entry := func(mgr string) map[string]any {
		return map[string]any{"manager": mgr, "operation": "Apply", "apiVersion": "shipping.kubeforge.dev/v1", "fieldsType": "FieldsV1",
			"fieldsV1": map[string]any{"f:spec": map[string]any{"f:carrier": map[string]any{}}}}
	}
	cases := map[string]any{
		"valid":          []any{entry("a")},
		"dup managers":   []any{entry("a"), entry("a")},
		"non-object":     []any{"x", 1},
		"wrong types":    []any{map[string]any{"manager": 1, "operation": true, "fieldsV1": "x"}},
		"object":         map[string]any{"manager": "a"},
		"empty":          []any{},
		"bad fieldsType": []any{map[string]any{"manager": "a", "operation": "Update", "fieldsType": "FieldsV2", "fieldsV1": map[string]any{}}},
		"bad fieldsV1":   []any{map[string]any{"manager": "a", "operation": "Update", "apiVersion": "shipping.kubeforge.dev/v1", "fieldsType": "FieldsV1", "fieldsV1": map[string]any{"f:nope": 1}}},
		"bad op":         []any{map[string]any{"manager": "a", "operation": "Sideways", "apiVersion": "shipping.kubeforge.dev/v1", "fieldsType": "FieldsV1", "fieldsV1": map[string]any{}}},
		"subresource":    []any{map[string]any{"manager": "a", "operation": "Update", "subresource": "status", "apiVersion": "shipping.kubeforge.dev/v1", "fieldsType": "FieldsV1", "fieldsV1": map[string]any{"f:status": map[string]any{}}}},
		"null":           nil,
	}
	keys := make([]string, 0, len(cases))
	for k := range cases {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		t.record("create managedFields "+k, t.do("POST", p, jsonType, j(mf(cases[k]))))
		t.record("get managedFields "+k, t.do("GET", p+"/mf", "", nil))
		t.record("update managedFields "+k, t.do("PUT", p+"/mf", jsonType, j(mf(cases[k]))))
		t.record("delete managedFields "+k, t.do("DELETE", p+"/mf", "", nil))
	}
}

// writesBodies are shipments by what is wrong with them; "ok" is valid.
func writesBodies() map[string]string {
	return map[string]string{
		"unknown field":      `{"apiVersion":"shipping.kubeforge.dev/v1","kind":"Shipment","metadata":{"name":"b"},"spec":{"nope":1,"origin":{"street":"s","city":"c"},"destination":{"street":"d","city":"e"},"parcels":[{"name":"p"}]}}`,
		"wrong scalar":       `{"apiVersion":"shipping.kubeforge.dev/v1","kind":"Shipment","metadata":{"name":"b"},"spec":{"insured":"yes","origin":{"street":"s","city":"c"},"destination":{"street":"d","city":"e"},"parcels":[{"name":"p"}]}}`,
		"wrong count":        `{"apiVersion":"shipping.kubeforge.dev/v1","kind":"Shipment","metadata":{"name":"b"},"spec":{"origin":{"street":"s","city":"c"},"destination":{"street":"d","city":"e"},"parcels":[{"name":"p","count":"2"}]}}`,
		"dup keys":           `{"apiVersion":"shipping.kubeforge.dev/v1","kind":"Shipment","metadata":{"name":"b"},"spec":{"origin":{"street":"s","city":"c"},"destination":{"street":"d","city":"e"},"parcels":[{"name":"p"},{"name":"p","count":2}]}}`,
		"dup set":            `{"apiVersion":"shipping.kubeforge.dev/v1","kind":"Shipment","metadata":{"name":"b"},"spec":{"tags":["x","x"],"origin":{"street":"s","city":"c"},"destination":{"street":"d","city":"e"},"parcels":[{"name":"p"}]}}`,
		"dup conditions":     `{"apiVersion":"shipping.kubeforge.dev/v1","kind":"Shipment","metadata":{"name":"b"},"spec":{"origin":{"street":"s","city":"c"},"destination":{"street":"d","city":"e"},"parcels":[{"name":"p"}]},"status":{"conditions":[{"type":"A","status":"True","reason":"R","message":"","lastTransitionTime":"2020-01-01T00:00:00Z"},{"type":"A","status":"False","reason":"R","message":"","lastTransitionTime":"2020-01-01T00:00:00Z"}]}}`,
		"dup json key":       `{"apiVersion":"shipping.kubeforge.dev/v1","kind":"Shipment","metadata":{"name":"b","name":"c"},"spec":{"origin":{"street":"s","city":"c"},"destination":{"street":"d","city":"e"},"parcels":[{"name":"p"}]}}`,
		"null parcels":       `{"apiVersion":"shipping.kubeforge.dev/v1","kind":"Shipment","metadata":{"name":"b"},"spec":{"origin":{"street":"s","city":"c"},"destination":{"street":"d","city":"e"},"parcels":null}}`,
		"parcel no name":     `{"apiVersion":"shipping.kubeforge.dev/v1","kind":"Shipment","metadata":{"name":"b"},"spec":{"origin":{"street":"s","city":"c"},"destination":{"street":"d","city":"e"},"parcels":[{"count":1},{"count":2}]}}`,
		"instructions array": `{"apiVersion":"shipping.kubeforge.dev/v1","kind":"Shipment","metadata":{"name":"b"},"spec":{"instructions":["a"],"origin":{"street":"s","city":"c"},"destination":{"street":"d","city":"e"},"parcels":[{"name":"p"}]}}`,
		"ok":                 `{"apiVersion":"shipping.kubeforge.dev/v1","kind":"Shipment","metadata":{"name":"b"},"spec":{"origin":{"street":"s","city":"c"},"destination":{"street":"d","city":"e"},"parcels":[{"name":"p"}]}}`,
	}
}

// writesValidation sends each body through create, put and apply, under
// each fieldValidation.
func writesValidation(t *target, p string, bodies map[string]string) {
	bkeys := make([]string, 0, len(bodies))
	for k := range bodies {
		bkeys = append(bkeys, k)
	}
	sort.Strings(bkeys)
	for _, k := range bkeys {
		for _, q := range []string{"", "?fieldValidation=Strict", "?fieldValidation=Ignore"} {
			r := t.do("POST", p+q, jsonType, []byte(bodies[k]))
			t.learn(r)
			t.record("create "+k+q, r)
			r = t.do("PUT", p+"/b"+q, jsonType, []byte(bodies[k]))
			t.learn(r)
			t.record("put "+k+q, r)
			r = t.do("PATCH", p+"/b"+q+sep(q)+"fieldManager=ssa", "application/apply-patch+yaml", []byte(bodies[k]))
			t.learn(r)
			t.record("apply "+k+q, r)
			r = t.do("PATCH", p+"/b"+q+sep(q)+"fieldManager=ssa2&force=true", "application/apply-patch+yaml", []byte(bodies[k]))
			t.learn(r)
			t.record("apply force "+k+q, r)
			t.record("delete "+k+q, t.do("DELETE", p+"/b", "", nil))
		}
	}
}

// writesPatches takes a shipment through patches of every kind, on the
// object and on its status.
func writesPatches(t *target, p, okBody string) {
	r := t.do("POST", p, jsonType, []byte(okBody))
	t.learn(r)
	t.record("create for patches", r)
	patches := []struct{ name, ctype, body string }{
		{"merge tags", "application/merge-patch+json", `{"spec":{"tags":["a","b"]}}`},
		{"merge dup tags", "application/merge-patch+json", `{"spec":{"tags":["a","a"]}}`},
		{"merge dup parcels", "application/merge-patch+json", `{"spec":{"parcels":[{"name":"p"},{"name":"p"}]}}`},
		{"merge wrong type", "application/merge-patch+json", `{"spec":{"insured":3}}`},
		{"merge unknown", "application/merge-patch+json", `{"spec":{"nope":3}}`},
		{"strategic add parcel", "application/strategic-merge-patch+json", `{"spec":{"parcels":[{"name":"q","count":3}]}}`},
		{"strategic dup parcel", "application/strategic-merge-patch+json", `{"spec":{"parcels":[{"name":"r"},{"name":"r"}]}}`},
		{"strategic delete parcel", "application/strategic-merge-patch+json", `{"spec":{"parcels":[{"name":"q","$patch":"delete"}]}}`},
		{"strategic dup tags", "application/strategic-merge-patch+json", `{"spec":{"tags":["c","c"]}}`},
		{"json add", "application/json-patch+json", `[{"op":"add","path":"/spec/carrier","value":"dhl"}]`},
		{"json dup", "application/json-patch+json", `[{"op":"add","path":"/spec/parcels/-","value":{"name":"p"}}]`},
		{"json bad type", "application/json-patch+json", `[{"op":"replace","path":"/spec/parcels","value":"x"}]`},
		{"json test fail", "application/json-patch+json", `[{"op":"test","path":"/spec/carrier","value":"ups"}]`},
		{"json bad path", "application/json-patch+json", `[{"op":"remove","path":"/spec/nope"}]`},
		{"merge managedFields", "application/merge-patch+json", `{"metadata":{"managedFields":[{"manager":"x","operation":"Update","apiVersion":"shipping.kubeforge.dev/v1","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{"f:carrier":{}}}}]}}`},
		{"merge managedFields bad", "application/merge-patch+json", `{"metadata":{"managedFields":[{"manager":7}]}}`},
		{"merge managedFields empty", "application/merge-patch+json", `{"metadata":{"managedFields":[]}}`},
		{"apply carrier", "application/apply-patch+yaml", "apiVersion: shipping.kubeforge.dev/v1\nkind: Shipment\nmetadata:\n  name: b\nspec:\n  carrier: ups\n"},
		{"apply dup parcels", "application/apply-patch+yaml", "apiVersion: shipping.kubeforge.dev/v1\nkind: Shipment\nmetadata:\n  name: b\nspec:\n  parcels:\n  - name: z\n  - name: z\n"},
		{"apply dup tags", "application/apply-patch+yaml", "apiVersion: shipping.kubeforge.dev/v1\nkind: Shipment\nmetadata:\n  name: b\nspec:\n  tags: [x, x]\n"},
		{"apply unknown", "application/apply-patch+yaml", "apiVersion: shipping.kubeforge.dev/v1\nkind: Shipment\nmetadata:\n  name: b\nspec:\n  zzz: 1\n"},
		{"apply wrong", "application/apply-patch+yaml", "apiVersion: shipping.kubeforge.dev/v1\nkind: Shipment\nmetadata:\n  name: b\nspec:\n  insured: maybe\n"},
		{"apply status", "application/apply-patch+yaml", "apiVersion: shipping.kubeforge.dev/v1\nkind: Shipment\nmetadata:\n  name: b\nstatus:\n  phase: Lost\n"},
	}
	for i, pt := range patches {
		q := "?fieldManager=m" + strconv.Itoa(i%3)
		if pt.ctype == "application/apply-patch+yaml" {
			q += "&force=true"
		}
		r := t.do("PATCH", p+"/b"+q, pt.ctype, []byte(pt.body))
		t.learn(r)
		t.record("patch "+pt.name, r)
		r = t.do("PATCH", p+"/b/status"+q, pt.ctype, []byte(pt.body))
		t.learn(r)
		t.record("patch status "+pt.name, r)
	}
	t.record("after patches", t.do("GET", p+"/b", "", nil))
}

// writesEdit is an edit-like PUT: GET, change, PUT with the
// resourceVersion; and a stale one.
func writesEdit(t *target, p string) {
	g := t.do("GET", p+"/b", "", nil)
	o, _ := g.obj.(map[string]any)
	if o != nil {
		o["spec"].(map[string]any)["carrier"] = "edited"
		r := t.do("PUT", p+"/b", jsonType, j(o))
		t.learn(r)
		t.record("edit put", r)
		o["spec"].(map[string]any)["carrier"] = "stale"
		t.record("edit put stale", t.do("PUT", p+"/b", jsonType, j(o)))
		delete(o["metadata"].(map[string]any), "managedFields")
		o["metadata"].(map[string]any)["resourceVersion"] = ""
		r = t.do("PUT", p+"/b?fieldManager=kubectl-edit", jsonType, j(o))
		t.learn(r)
		t.record("edit put no rv no managedFields", r)
	}
}

// writesKubectl is kubectl apply, client-side and server-side.
func writesKubectl(t *target, p string) {
	manifest := "apiVersion: shipping.kubeforge.dev/v1\nkind: Shipment\nmetadata:\n  name: k\n  namespace: wr\n  labels: {a: b}\nspec:\n  origin: {street: s, city: c}\n  destination: {street: d, city: e}\n  parcels: [{name: p}, {name: q, count: 2}]\n  tags: [t1, t2]\n"
	manifest2 := strings.Replace(manifest, "[{name: p}, {name: q, count: 2}]", "[{name: q, count: 3}]", 1)
	for _, m := range []struct{ name, body string }{{"csa1", manifest}, {"csa2", manifest2}} {
		t.kubectl(m.name, m.body, "apply", "-f", "-")
		t.record(m.name+" get", t.do("GET", p+"/k", "", nil))
	}
	for _, m := range []struct{ name, body string }{{"ssa1", manifest}, {"ssa2", manifest2}} {
		t.kubectl(m.name, m.body, "apply", "--server-side", "--force-conflicts", "-f", "-")
		t.record(m.name+" get", t.do("GET", p+"/k", "", nil))
	}
}

func sep(q string) string {
	if q == "" {
		return "?"
	}
	return "&"
}

func (t *target) kubectl(step, stdin string, args ...string) {
	cmd := execCommand("kubectl", append([]string{"--kubeconfig", filepath.Join(t.dir, "admin.kubeconfig")}, args...)...)
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.CombinedOutput()
	code := 0
	if err != nil {
		code = 1
	}
	t.recs = append(t.recs, rec{step: "kubectl " + step, out: fmt.Sprintf("%d %s", code, uuidRE.ReplaceAllString(string(out), "UID"))})
}

func token(rv int64, start string) string {
	return base64.RawURLEncoding.EncodeToString(j(map[string]any{"v": "meta.k8s.io/v1", "rv": rv, "start": start}))
}

// listWalk follows continue tokens from a first page, recording each.
func (t *target) listWalk(step, path string, q url.Values) (last resp) {
	cont := ""
	for page := 0; page < 600; page++ {
		qq := url.Values{}
		for k, v := range q {
			qq[k] = v
		}
		if cont != "" {
			qq.Set("continue", cont)
			qq.Del("resourceVersion")
			qq.Del("resourceVersionMatch")
		}
		r := t.do("GET", path+"?"+qq.Encode(), "", nil)
		t.record(fmt.Sprintf("%s page %d", step, page), r)
		last = r
		m, _ := r.obj.(map[string]any)
		md, _ := m["metadata"].(map[string]any)
		c, _ := md["continue"].(string)
		if r.code != 200 || c == "" {
			return last
		}
		cont = c
	}
	return last
}

func scenarioLists(t *target, bulk int) {
	ns(t, "ls")
	ns(t, "ls2")
	p := fmt.Sprintf(shpPath, "ls")
	all := "/apis/shipping.kubeforge.dev/v1/shipments"
	listsCreate(t, p, bulk)
	listsSelectors(t, p, all, bulk)
	listRV, cont := listsExact(t, p)
	listsContinueAfterWrites(t, p, all, listRV, cont)
	listsTampered(t, p, all, listRV)
}

// listsCreate creates bulk shipments in ls, some with a status, and five
// in ls2.
func listsCreate(t *target, p string, bulk int) {
	carriers := []string{"", "dhl", "ups", "dhl,x", ""}
	cities := []string{"Bonn", "Köln", "a b", "Bonn"}
	phases := []string{"", "Pending", "Lost"}
	for i := 0; i < bulk; i++ {
		name := fmt.Sprintf("s%04d", (i*7919)%bulk) // out of key order
		o := shipment(name, map[string]string{"i": strconv.Itoa(i % 5), "even": strconv.FormatBool(i%2 == 0)}, carriers[i%len(carriers)], cities[i%len(cities)], phases[i%len(phases)])
		r := t.do("POST", p, jsonType, j(o))
		if r.code != 201 {
			t.record("bulk create "+name, r)
		}
		if ph := phases[i%len(phases)]; ph != "" {
			o["metadata"].(map[string]any)["resourceVersion"] = ""
			t.do("PUT", p+"/"+name+"/status", jsonType, j(o))
		}
	}
	for i := 0; i < 5; i++ {
		t.do("POST", fmt.Sprintf(shpPath, "ls2"), jsonType, j(shipment(fmt.Sprintf("t%d", i), map[string]string{"i": "1"}, "dhl", "Bonn", "")))
	}
	time.Sleep(500 * time.Millisecond)
}

// listsSelectors walks the lists of the namespace and of the cluster by
// each selector, resourceVersion and limit.
func listsSelectors(t *target, p, all string, bulk int) {
	selectors := []url.Values{
		{},
		{"labelSelector": {"i=1"}},
		{"labelSelector": {"i in (1,3),even=true"}},
		{"labelSelector": {"nope"}},
		{"labelSelector": {"!i"}},
		{"fieldSelector": {"metadata.name=s0003"}},
		{"fieldSelector": {"metadata.name!=s0003"}},
		{"fieldSelector": {"metadata.namespace=ls"}},
		{"fieldSelector": {"metadata.namespace=ls2"}},
		{"fieldSelector": {"metadata.namespace!=ls"}},
		{"fieldSelector": {"spec.carrier=dhl"}},
		{"fieldSelector": {"spec.carrier="}},
		{"fieldSelector": {"spec.carrier!=dhl"}},
		{"fieldSelector": {`spec.carrier=dhl\,x`}},
		{"fieldSelector": {"spec.origin.city=Köln"}},
		{"fieldSelector": {"spec.origin.city=a b"}},
		{"fieldSelector": {"status.phase=Lost"}},
		{"fieldSelector": {"status.phase="}},
		{"fieldSelector": {"status.phase==Pending,spec.carrier=ups"}},
		{"fieldSelector": {"spec.priority=Normal"}},
		{"fieldSelector": {"spec.nope=x"}},
		{"fieldSelector": {"metadata.name"}},
		{"fieldSelector": {"status.phase=Lost"}, "labelSelector": {"even=true"}},
	}
	rvs := []url.Values{{}, {"resourceVersion": {"0"}}, {"resourceVersion": {"1"}, "resourceVersionMatch": {"NotOlderThan"}},
		{"resourceVersionMatch": {"NotOlderThan"}}, {"resourceVersion": {"0"}, "resourceVersionMatch": {"Exact"}}, {"resourceVersion": {"x"}}}
	small := map[string]bool{"metadata.name=s0003": true, "metadata.namespace=ls2": true, "status.phase=Lost": true, "metadata.name": true, "spec.nope=x": true}
	for _, base := range []string{p, all} {
		for _, sel := range selectors {
			for ri, rv := range rvs {
				limits := []string{"", "500"}
				if ri == 0 {
					limits = append(limits, "97", "499", strconv.Itoa(bulk+10))
				}
				if ri == 0 && len(sel) == 0 {
					limits = append(limits, "1", "2", "0", "-1", "x")
				}
				if small[sel.Get("fieldSelector")] {
					limits = append(limits, "1", "2")
				}
				for _, lim := range limits {
					q := url.Values{}
					for k, v := range sel {
						q[k] = v
					}
					for k, v := range rv {
						q[k] = v
					}
					if lim != "" {
						q.Set("limit", lim)
					}
					t.listWalk(fmt.Sprintf("list %s %s", base, q.Encode()), base, q)
				}
			}
		}
	}
}

// listsExact lists at the exact resourceVersion of the current list and
// returns it with the list's first continue token, for the steps after
// writes.
func listsExact(t *target, p string) (listRV, cont string) {
	r := t.do("GET", p+"?limit=3", "", nil)
	m, _ := r.obj.(map[string]any)
	md, _ := m["metadata"].(map[string]any)
	listRV, _ = md["resourceVersion"].(string)
	cont, _ = md["continue"].(string)
	t.rvs[listRV] = "list0"
	for _, match := range []string{"Exact", "NotOlderThan", ""} {
		q := url.Values{"resourceVersion": {listRV}, "limit": {"7"}}
		if match != "" {
			q.Set("resourceVersionMatch", match)
		}
		t.listWalk("list exact "+match, p, q)
		q.Set("fieldSelector", "spec.carrier=ups")
		t.listWalk("list exact sel "+match, p, q)
	}
	return listRV, cont
}

// listsContinueAfterWrites writes, then continues from the old token: the
// old snapshot.
func listsContinueAfterWrites(t *target, p, all, listRV, cont string) {
	for i := 0; i < 3; i++ {
		n := fmt.Sprintf("s%04d", i)
		t.do("DELETE", p+"/"+n, "", nil)
	}
	t.do("POST", p, jsonType, j(shipment("s0000a", nil, "ups", "Bonn", "")))
	t.do("PATCH", p+"/s0005", "application/merge-patch+json", []byte(`{"spec":{"carrier":"ups"}}`))
	time.Sleep(300 * time.Millisecond)
	t.record("continue after writes", t.do("GET", p+"?limit=4&continue="+url.QueryEscape(cont), "", nil))
	t.record("continue after writes sel", t.do("GET", p+"?limit=4&fieldSelector=spec.carrier%3Dups&continue="+url.QueryEscape(cont), "", nil))
	t.record("continue after writes lsel", t.do("GET", p+"?limit=4&labelSelector=i%3D1&continue="+url.QueryEscape(cont), "", nil))
	t.record("continue with rv", t.do("GET", p+"?limit=4&resourceVersion=0&continue="+url.QueryEscape(cont), "", nil))
	t.record("continue with rv exact", t.do("GET", p+"?limit=4&resourceVersion="+listRV+"&resourceVersionMatch=Exact&continue="+url.QueryEscape(cont), "", nil))
	t.record("continue other path", t.do("GET", fmt.Sprintf(shpPath, "ls2")+"?limit=4&continue="+url.QueryEscape(cont), "", nil))
	t.record("continue cluster path", t.do("GET", all+"?limit=4&continue="+url.QueryEscape(cont), "", nil))
	t.record("continue other resource", t.do("GET", fmt.Sprintf(cmPath, "ls")+"?limit=4&continue="+url.QueryEscape(cont), "", nil))
	t.record("continue no limit", t.do("GET", p+"?continue="+url.QueryEscape(cont), "", nil))
}

// listsTampered continues from tampered tokens.
func listsTampered(t *target, p, all, listRV string) {
	lrv, _ := strconv.ParseInt(listRV, 10, 64)
	bad := map[string]string{
		"garbage":       "!!!",
		"empty json":    base64.RawURLEncoding.EncodeToString([]byte(`{}`)),
		"other json":    base64.RawURLEncoding.EncodeToString([]byte(`[1,2,3]`)),
		"std base64":    base64.StdEncoding.EncodeToString(j(map[string]any{"v": "meta.k8s.io/v1", "rv": lrv, "start": "ls/s0003"})),
		"huge":          base64.RawURLEncoding.EncodeToString(bytes.Repeat([]byte("a"), 200000)),
		"huge rv":       token(1<<62, "ls/s0003"),
		"max rv":        token(1<<63-1, "ls/s0003"),
		"future rv":     token(lrv+100000, "ls/s0003"),
		"negative rv":   token(-5, "ls/s0003"),
		"minus one rv":  token(-1, "ls/s0003"),
		"zero rv":       token(0, "ls/s0003"),
		"old rv":        token(2, "ls/s0003"),
		"dotdot":        token(lrv, "../configmaps/ls/x"),
		"dotdot inner":  token(lrv, "ls/../../x"),
		"abs other":     token(lrv, "/registry/configmaps/ls/x"),
		"other ns":      token(lrv, "ls2/t1"),
		"other ns2":     token(lrv, "ls2/"),
		"ns only":       token(lrv, "ls"),
		"slash":         token(lrv, "/"),
		"wrong v":       base64.RawURLEncoding.EncodeToString(j(map[string]any{"v": "x", "rv": lrv, "start": "ls/s0003"})),
		"no start":      base64.RawURLEncoding.EncodeToString(j(map[string]any{"v": "meta.k8s.io/v1", "rv": lrv})),
		"rv string":     base64.RawURLEncoding.EncodeToString([]byte(`{"v":"meta.k8s.io/v1","rv":"12","start":"ls/s0003"}`)),
		"rv float":      base64.RawURLEncoding.EncodeToString([]byte(`{"v":"meta.k8s.io/v1","rv":1.5,"start":"ls/s0003"}`)),
		"nul":           token(lrv, "ls/s\x000"),
		"high bytes":    token(lrv, "ls/\xff\xff"),
		"start end":     token(lrv, "ls/zzzz"),
		"start exact":   token(lrv, "ls/s0010"),
		"start between": token(lrv, "ls/s0010\x00"),
		"trailing":      token(lrv, "ls/s0010/"),
		"double slash":  token(lrv, "ls//s0010"),
	}
	bk := make([]string, 0, len(bad))
	for k := range bad {
		bk = append(bk, k)
	}
	sort.Strings(bk)
	for _, k := range bk {
		for _, pp := range []string{p, all} {
			for _, extra := range []string{"&limit=3", "&limit=3&fieldSelector=spec.carrier%3Dups", "&limit=3&labelSelector=i%3D1", ""} {
				t.record("tampered "+k+" "+pp+extra, t.do("GET", pp+"?continue="+url.QueryEscape(bad[k])+extra, "", nil))
			}
		}
	}
}

// ---- watches

type event struct {
	Type   string          `json:"type"`
	Raw    json.RawMessage `json:"object"`
	Object map[string]any  `json:"-"`
}

// watch collects a watch's events until stop is closed.
func (t *target) watch(path string, stop <-chan struct{}) (<-chan []event, error) {
	req, err := http.NewRequest("GET", t.host+path, nil)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	req = req.WithContext(ctx)
	r, err := t.client.Do(req)
	if err != nil {
		cancel()
		return nil, err
	}
	if r.StatusCode != 200 {
		b, _ := io.ReadAll(r.Body)
		r.Body.Close()
		cancel()
		return nil, fmt.Errorf("watch %s: %d %s", path, r.StatusCode, b)
	}
	out := make(chan []event, 1)
	var mu sync.Mutex
	var evs []event
	go func() {
		<-stop
		cancel()
	}()
	go func() {
		defer r.Body.Close()
		dec := json.NewDecoder(bufio.NewReader(r.Body))
		for {
			var e event
			if err := dec.Decode(&e); err != nil {
				break
			}
			_ = json.Unmarshal(e.Raw, &e.Object)
			mu.Lock()
			evs = append(evs, e)
			mu.Unlock()
		}
		mu.Lock()
		out <- evs
		mu.Unlock()
	}()
	return out, nil
}

func objName(o map[string]any) string {
	md, _ := o["metadata"].(map[string]any)
	n, _ := md["name"].(string)
	ns, _ := md["namespace"].(string)
	return ns + "/" + n
}

func objRV(o map[string]any) int64 {
	md, _ := o["metadata"].(map[string]any)
	s, _ := md["resourceVersion"].(string)
	v, _ := strconv.ParseInt(s, 10, 64)
	return v
}

// recordEvents checks a watch's DELETED events and records its events,
// normalised, as one step.
func (t *target) recordEvents(step string, evs []event) {
	t.checkDeleted(step, evs)
	var lines []string
	for _, e := range evs {
		lines = append(lines, e.Type+" "+t.normJSON(e.Raw))
	}
	t.recs = append(t.recs, rec{step: step, out: strings.Join(lines, "\n")})
}

// checkDeleted verifies, within one server, that each DELETED event is the
// last state seen of its object at a newer resourceVersion.
func (t *target) checkDeleted(step string, evs []event) {
	checked := 0
	defer func() {
		fmt.Fprintf(os.Stderr, "%s: %s: %d events, %d DELETED checked against a state seen\n", t.name, step, len(evs), checked)
	}()
	last := map[string]map[string]any{}
	for _, e := range evs {
		if e.Type == "BOOKMARK" || e.Type == "ERROR" {
			continue
		}
		n := objName(e.Object)
		if n == "/" {
			continue // values without a name (scenarioRaw's) cannot be told apart
		}
		if e.Type == "DELETED" {
			if prev, ok := last[n]; ok {
				checked++
				a, b := strip(prev), strip(e.Object)
				if a != b {
					t.problems = append(t.problems, fmt.Sprintf("%s: DELETED %s is not its last state:\n  last    %s\n  deleted %s", step, n, a, b))
				}
				if objRV(e.Object) <= objRV(prev) {
					t.problems = append(t.problems, fmt.Sprintf("%s: DELETED %s at rv %d, not after %d", step, n, objRV(e.Object), objRV(prev)))
				}
			}
			delete(last, n)
			continue
		}
		last[n] = e.Object
	}
}

func strip(o map[string]any) string {
	b, _ := json.Marshal(o)
	var c map[string]any
	_ = json.Unmarshal(b, &c)
	if md, ok := c["metadata"].(map[string]any); ok {
		delete(md, "resourceVersion")
	}
	out, _ := json.Marshal(c)
	return string(out)
}

func scenarioWatch(t *target) {
	ns(t, "wa")
	p := fmt.Sprintf(shpPath, "wa")
	stop := make(chan struct{})
	ws := openWatches(t, p, stop)
	inf := t.startInformer("wa", stop)
	time.Sleep(300 * time.Millisecond)
	watchUpdatesAndDeletes(t, p)
	watchFinalizers(t, p)
	watchPropagation(t, p)
	watchDeleteCollection(t, p)
	watchRace(t, p)
	time.Sleep(1500 * time.Millisecond)
	close(stop)
	t.recs = append(t.recs, rec{step: "informer", out: inf()})
	recordWatches(t, ws)
}

// namedWatch is an open watch's events, by its query.
type namedWatch struct {
	name string
	ch   <-chan []event
}

// openWatches opens the watches of ns wa, by selector and version, from
// the current list's resourceVersion or with the initial events, until
// stop is closed.
func openWatches(t *target, p string, stop <-chan struct{}) []namedWatch {
	r := t.do("GET", p, "", nil)
	m, _ := r.obj.(map[string]any)
	md, _ := m["metadata"].(map[string]any)
	rv, _ := md["resourceVersion"].(string)
	var ws []namedWatch
	for _, q := range []string{
		"?watch=1&resourceVersion=" + rv + "&allowWatchBookmarks=true",
		"?watch=1&resourceVersion=" + rv + "&fieldSelector=spec.carrier%3Dups",
		"?watch=1&resourceVersion=" + rv + "&labelSelector=a%3Db",
		"?watch=1&resourceVersion=" + rv + "&fieldSelector=metadata.name%3Dg1",
		"v1alpha1?watch=1&resourceVersion=" + rv,
		"?watch=1&resourceVersion=0",
		"?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true",
		"?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&fieldSelector=spec.carrier%3Dups",
		"v1alpha1?watch=1&resourceVersion=" + rv + "&fieldSelector=spec.from.city%3DBonn",
	} {
		wp := p + q
		if a, ok := strings.CutPrefix(q, "v1alpha1"); ok {
			wp = strings.Replace(p, "/v1/", "/v1alpha1/", 1) + a
		}
		ch, err := t.watch(wp, stop)
		if err != nil {
			t.problems = append(t.problems, err.Error())
			continue
		}
		ws = append(ws, namedWatch{q, ch})
	}
	return ws
}

// watchStep records a change the watches see, spaced from the next.
func watchStep(t *target, name string, r resp) {
	t.learn(r)
	t.record("watch op "+name, r)
	time.Sleep(20 * time.Millisecond)
}

// watchCreate creates shipment n in p as a watch step.
func watchCreate(t *target, p, n string, labels map[string]string, carrier string) {
	watchStep(t, "create "+n, t.do("POST", p, jsonType, j(shipment(n, labels, carrier, "Bonn", ""))))
}

// watchUpdatesAndDeletes updates and deletes, plainly, with preconditions
// and with a grace period.
func watchUpdatesAndDeletes(t *target, p string) {
	watchCreate(t, p, "a1", map[string]string{"a": "b"}, "ups")
	watchStep(t, "update a1", t.do("PATCH", p+"/a1", "application/merge-patch+json", []byte(`{"spec":{"carrier":"dhl"}}`)))
	watchStep(t, "update a1 back", t.do("PATCH", p+"/a1", "application/merge-patch+json", []byte(`{"spec":{"carrier":"ups"},"metadata":{"labels":{"a":"c"}}}`)))
	watchStep(t, "delete a1", t.do("DELETE", p+"/a1", "", nil))
	// preconditions
	watchCreate(t, p, "a2", map[string]string{"a": "b"}, "ups")
	watchStep(t, "delete a2 wrong uid", t.do("DELETE", p+"/a2", jsonType, []byte(`{"preconditions":{"uid":"00000000-0000-0000-0000-000000000000"}}`)))
	watchStep(t, "delete a2 wrong rv", t.do("DELETE", p+"/a2", jsonType, []byte(`{"preconditions":{"resourceVersion":"1"}}`)))
	g := t.do("GET", p+"/a2", "", nil)
	gm, _ := g.obj.(map[string]any)
	gmd, _ := gm["metadata"].(map[string]any)
	watchStep(t, "delete a2 right preconditions", t.do("DELETE", p+"/a2", jsonType, j(map[string]any{"preconditions": map[string]any{"uid": gmd["uid"], "resourceVersion": gmd["resourceVersion"]}})))
	// graceful
	watchCreate(t, p, "a3", map[string]string{"a": "b"}, "ups")
	watchStep(t, "delete a3 grace 30", t.do("DELETE", p+"/a3", jsonType, []byte(`{"gracePeriodSeconds":30}`)))
	watchStep(t, "delete a3 grace 0", t.do("DELETE", p+"/a3", jsonType, []byte(`{"gracePeriodSeconds":0}`)))
}

// watchFinalizers deletes and updates a shipment a finalizer holds.
func watchFinalizers(t *target, p string) {
	o := shipment("f1", map[string]string{"a": "b"}, "ups", "Bonn", "")
	o["metadata"].(map[string]any)["finalizers"] = []any{"example.com/hold"}
	watchStep(t, "create f1", t.do("POST", p, jsonType, j(o)))
	watchStep(t, "delete f1", t.do("DELETE", p+"/f1", "", nil))
	watchStep(t, "delete f1 again", t.do("DELETE", p+"/f1", "", nil))
	watchStep(t, "update f1 while deleting", t.do("PATCH", p+"/f1", "application/merge-patch+json", []byte(`{"spec":{"carrier":"dhl"}}`)))
	watchStep(t, "remove f1 finalizer", t.do("PATCH", p+"/f1", "application/merge-patch+json", []byte(`{"metadata":{"finalizers":null}}`)))
	watchStep(t, "get f1", t.do("GET", p+"/f1", "", nil))
}

// watchPropagation deletes by each propagationPolicy, then an owner and a
// dependent, foreground.
func watchPropagation(t *target, p string) {
	for _, pol := range []string{"Foreground", "Orphan", "Background"} {
		n := "g" + strings.ToLower(pol[:1])
		watchCreate(t, p, n, map[string]string{"a": "b"}, "ups")
		watchStep(t, "delete "+n+" "+pol, t.do("DELETE", p+"/"+n, jsonType, []byte(`{"propagationPolicy":"`+pol+`"}`)))
		time.Sleep(500 * time.Millisecond)
		watchStep(t, "get "+n, t.do("GET", p+"/"+n, "", nil))
	}
	// an owner and a dependent, foreground
	watchCreate(t, p, "g1", map[string]string{"a": "b"}, "ups")
	og := t.do("GET", p+"/g1", "", nil)
	ogm, _ := og.obj.(map[string]any)
	ogmd, _ := ogm["metadata"].(map[string]any)
	dep := shipment("g1dep", map[string]string{"a": "b"}, "ups", "Bonn", "")
	dep["metadata"].(map[string]any)["ownerReferences"] = []any{map[string]any{"apiVersion": "shipping.kubeforge.dev/v1", "kind": "Shipment", "name": "g1", "uid": ogmd["uid"], "blockOwnerDeletion": true}}
	watchStep(t, "create g1dep", t.do("POST", p, jsonType, j(dep)))
	watchStep(t, "delete g1 foreground", t.do("DELETE", p+"/g1", jsonType, []byte(`{"propagationPolicy":"Foreground"}`)))
	time.Sleep(2 * time.Second)
	watchStep(t, "get g1", t.do("GET", p+"/g1", "", nil))
	watchStep(t, "get g1dep", t.do("GET", p+"/g1dep", "", nil))
}

// watchDeleteCollection deletes collections by label and field selectors.
func watchDeleteCollection(t *target, p string) {
	for i := 0; i < 4; i++ {
		watchCreate(t, p, fmt.Sprintf("c%d", i), map[string]string{"a": "b", "c": strconv.Itoa(i % 2)}, "ups")
	}
	watchStep(t, "deletecollection c=1", t.do("DELETE", p+"?labelSelector=c%3D1", "", nil))
	watchStep(t, "deletecollection carrier", t.do("DELETE", p+"?fieldSelector=spec.carrier%3Dups&labelSelector=c", "", nil))
}

// watchRace is a delete racing updates: its order differs by timing, so
// its responses go unrecorded and checkDeleted checks its events.
func watchRace(t *target, p string) {
	for i := 0; i < 5; i++ {
		n := fmt.Sprintf("r%d", i)
		watchCreate(t, p, n, map[string]string{"a": "b"}, "ups")
		var wg sync.WaitGroup
		res := make([]resp, 4)
		for k := 0; k < 4; k++ {
			wg.Add(1)
			go func(k int) {
				defer wg.Done()
				if k == 2 {
					res[k] = t.do("DELETE", p+"/"+n, "", nil)
					return
				}
				res[k] = t.do("PATCH", p+"/"+n, "application/merge-patch+json", []byte(fmt.Sprintf(`{"spec":{"carrier":"c%d"}}`, k)))
			}(k)
		}
		wg.Wait()
	}
}

// recordWatches records each watch's events once it has ended, and checks
// its DELETED events.
func recordWatches(t *target, ws []namedWatch) {
	for _, w := range ws {
		evs := <-w.ch
		t.checkDeleted(w.name, evs)
		var lines []string
		for _, e := range evs {
			if e.Type == "BOOKMARK" {
				// only the end of the initial events: the others come by time
				md, _ := e.Object["metadata"].(map[string]any)
				if an, _ := md["annotations"].(map[string]any); an["k8s.io/initial-events-end"] == "true" {
					lines = append(lines, "BOOKMARK initial-events-end")
				}
				continue
			}
			if strings.HasPrefix(objName(e.Object), "wa/r") {
				continue // the race's order differs by timing; checked by checkDeleted
			}
			lines = append(lines, e.Type+" "+t.normJSON(e.Raw))
		}
		t.recs = append(t.recs, rec{step: "watch " + rvParamRE.ReplaceAllString(w.name, "resourceVersion=N"), out: strings.Join(lines, "\n")})
	}
}

// ---- compaction

// etcdClient connects to the server's embedded etcd through its socket,
// the server's own (mode 0600): plain, without TLS.
func etcdClient(t *target) (*clientv3.Client, error) {
	return kfetcd.NewClient([]string{"unix://" + filepath.Join(t.dir, "etcd.sock")}, kfetcd.TLSFiles{})
}

func compact(t *target) error {
	c, err := etcdClient(t)
	if err != nil {
		return err
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	r, err := c.Get(ctx, "/compact-probe")
	if err != nil {
		return fmt.Errorf("get: %w", err)
	}
	_, err = c.Compact(ctx, r.Header.Revision, clientv3CompactPhysical)
	return err
}

func scenarioCompact(t *target) {
	ns(t, "cp")
	p := fmt.Sprintf(shpPath, "cp")
	for i := 0; i < 6; i++ {
		t.do("POST", p, jsonType, j(shipment(fmt.Sprintf("k%d", i), nil, "ups", "Bonn", "")))
	}
	r := t.do("GET", p+"?limit=2", "", nil)
	m, _ := r.obj.(map[string]any)
	md, _ := m["metadata"].(map[string]any)
	cont, _ := md["continue"].(string)
	rs, _ := md["resourceVersion"].(string)
	t.rvs[rs] = "cplist"
	rsf := t.do("GET", p+"?limit=2&fieldSelector=spec.carrier%3Dups", "", nil)
	mf, _ := rsf.obj.(map[string]any)
	mdf, _ := mf["metadata"].(map[string]any)
	contf, _ := mdf["continue"].(string)
	t.do("DELETE", p+"/k3", "", nil)
	t.do("PATCH", p+"/k4", "application/merge-patch+json", []byte(`{"spec":{"carrier":"x"}}`))
	if err := compact(t); err != nil {
		t.problems = append(t.problems, "compact: "+err.Error())
	}
	time.Sleep(500 * time.Millisecond)
	t.record("continue after compaction", t.do("GET", p+"?limit=2&continue="+url.QueryEscape(cont), "", nil))
	t.record("continue sel after compaction", t.do("GET", p+"?limit=2&fieldSelector=spec.carrier%3Dups&continue="+url.QueryEscape(contf), "", nil))
	t.record("exact after compaction", t.do("GET", p+"?limit=2&resourceVersion="+rs+"&resourceVersionMatch=Exact", "", nil))
	t.record("exact after compaction nolimit", t.do("GET", p+"?resourceVersion="+rs+"&resourceVersionMatch=Exact", "", nil))
	t.record("notolder after compaction", t.do("GET", p+"?limit=2&resourceVersion="+rs+"&resourceVersionMatch=NotOlderThan", "", nil))
	t.record("list after compaction", t.do("GET", p+"?limit=2", "", nil))
	t.record("token old rv after compaction", t.do("GET", p+"?limit=2&continue="+token(3, "cp/k1"), "", nil))
	stop := make(chan struct{})
	ch, err := t.watch(p+"?watch=1&resourceVersion="+rs, stop)
	if err == nil {
		time.Sleep(500 * time.Millisecond)
		close(stop)
		evs := <-ch
		b, _ := json.Marshal(evs)
		t.recs = append(t.recs, rec{step: "watch from compacted rv", out: t.normJSON(b)})
	} else {
		t.recs = append(t.recs, rec{step: "watch from compacted rv", out: uuidRE.ReplaceAllString(rvMsgRE.ReplaceAllString(err.Error(), "$1$2 N"), "UID")})
	}
}

var raceOps = flag.Int("race-ops", 40, "operations per writer of the race scenario")

func main() {
	a := flag.String("a", "", "base server's data dir")
	b := flag.String("b", "", "new server's data dir")
	only := flag.String("only", "names,writes,writes2,lists,lists2,watch,compact,race,raw,big", "scenarios to run")
	bulk := flag.Int("bulk", 505, "shipments created for the list scenario")
	a2 := flag.String("a2", "", "data dir of a second base replica on the base's etcd (--etcd-servers unix://A/etcd.sock), for the race scenario")
	b2 := flag.String("b2", "", "data dir of a second new replica on the new one's etcd")
	dump := flag.String("dump", "", "file to write the new server's normalised records to")
	flag.Parse()
	ta, err := newTarget("base", *a)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	tb, err := newTarget("new", *b)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	for _, r := range []struct {
		t   *target
		dir string
	}{{ta, *a2}, {tb, *b2}} {
		if r.dir == "" {
			continue
		}
		peer, err := newTarget(r.t.name+"-peer", r.dir)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		r.t.peer = peer
	}
	scen := map[string]func(*target){
		"names":   scenarioNames,
		"writes":  scenarioWrites,
		"lists":   func(t *target) { scenarioLists(t, *bulk) },
		"watch":   scenarioWatch,
		"writes2": scenarioWrites2,
		"lists2":  scenarioLists2,
		"race":    scenarioRace,
		"raw":     scenarioRaw,
		"big":     scenarioBig,
		"compact": scenarioCompact,
	}
	diffs := 0
	total := 0
	for _, s := range strings.Split(*only, ",") {
		f, ok := scen[s]
		if !ok {
			fmt.Fprintln(os.Stderr, "unknown scenario", s)
			os.Exit(2)
		}
		ta.recs, tb.recs = nil, nil
		var wg sync.WaitGroup
		for _, t := range []*target{ta, tb} {
			wg.Add(1)
			go func(t *target) { defer wg.Done(); f(t) }(t)
		}
		wg.Wait()
		// Aligned by step: a walk of pages may take more requests on one.
		outB := map[string]string{}
		for _, r := range tb.recs {
			outB[r.step] = r.out
		}
		seen := map[string]bool{}
		for _, r := range ta.recs {
			seen[r.step] = true
			total++
			ob, ok := outB[r.step]
			if !ok {
				diffs++
				fmt.Printf("[%s] DIFF %s\n  base: %s\n  new:  (no such step)\n", s, r.step, clip(r.out))
			} else if ob != r.out {
				diffs++
				fmt.Printf("[%s] DIFF %s\n  base: %s\n  new:  %s\n", s, r.step, clip(r.out), clip(ob))
			}
		}
		for _, r := range tb.recs {
			if !seen[r.step] {
				diffs++
				fmt.Printf("[%s] DIFF %s\n  base: (no such step)\n  new:  %s\n", s, r.step, clip(r.out))
			}
		}
		fmt.Printf("[%s] %d records compared\n", s, len(ta.recs))
		if *dump != "" {
			var buf bytes.Buffer
			for _, r := range tb.recs {
				fmt.Fprintf(&buf, "[%s] %s\n  %s\n", s, r.step, r.out)
			}
			if err := appendFile(*dump, buf.Bytes()); err != nil {
				fmt.Fprintln(os.Stderr, err)
			}
		}
	}
	for _, t := range []*target{ta, tb} {
		for _, p := range t.problems {
			diffs++
			fmt.Printf("[%s] PROBLEM %s\n", t.name, p)
		}
	}
	fmt.Printf("%d compared, %d differences\n", total, diffs)
	if diffs > 0 {
		os.Exit(1)
	}
}

func clip(s string) string {
	if len(s) > 3000 {
		return s[:3000] + "..."
	}
	return s
}

var execCommand = exec.Command

var clientv3CompactPhysical = clientv3.WithCompactPhysical()

func appendFile(name string, b []byte) error {
	f, err := os.OpenFile(name, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// startInformer runs a client-go dynamic informer on the namespace's
// shipments; the returned func waits for stop and returns its handler calls
// (the race's objects left out), normalised.
func (t *target) startInformer(namespace string, stop <-chan struct{}) func() string {
	cfg, err := clientcmd.BuildConfigFromFlags("", filepath.Join(t.dir, "admin.kubeconfig"))
	if err != nil {
		return func() string { return err.Error() }
	}
	dc, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return func() string { return err.Error() }
	}
	f := dynamicinformer.NewFilteredDynamicSharedInformerFactory(dc, 0, namespace, nil)
	gvr := schema.GroupVersionResource{Group: "shipping.kubeforge.dev", Version: "v1", Resource: "shipments"}
	inf := f.ForResource(gvr).Informer()
	var mu sync.Mutex
	var lines []string
	add := func(kind string, o any) {
		if d, ok := o.(cache.DeletedFinalStateUnknown); ok {
			kind += " (final state unknown)"
			o = d.Obj
		}
		u, ok := o.(*unstructured.Unstructured)
		if !ok {
			return
		}
		if strings.HasPrefix(u.GetName(), "r") {
			return
		}
		b, _ := json.Marshal(u.Object)
		mu.Lock()
		lines = append(lines, kind+" "+string(b))
		mu.Unlock()
	}
	_, _ = inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(o any) { add("add", o) },
		UpdateFunc: func(_, o any) { add("update", o) },
		DeleteFunc: func(o any) { add("delete", o) },
	})
	done := make(chan struct{})
	go func() { inf.Run(stop); close(done) }()
	cache.WaitForCacheSync(stop, inf.HasSynced)
	return func() string {
		<-done
		mu.Lock()
		defer mu.Unlock()
		out := make([]string, len(lines))
		for i, l := range lines {
			kind, b, _ := strings.Cut(l, " {")
			out[i] = kind + " " + t.normJSON([]byte("{"+b))
		}
		return strings.Join(out, "\n")
	}
}

// scenarioWrites2 writes warehouses (a keyed list by an integer, a set, a
// map of structs), v1alpha1 shipments, configmaps and clusterroles with
// bad and duplicate contents, by every write path.
func scenarioWrites2(t *target) {
	type body struct{ name, path, obj string }
	ns(t, "wr2")
	wh := func(spec string) string {
		return `{"apiVersion":"infra.kubeforge.dev/v1","kind":"Warehouse","metadata":{"name":"w"},"spec":` + spec + `}`
	}
	a1 := func(spec string) string {
		return `{"apiVersion":"shipping.kubeforge.dev/v1alpha1","kind":"Shipment","metadata":{"name":"v"},"spec":` + spec + `}`
	}
	a1p := "/apis/shipping.kubeforge.dev/v1alpha1/namespaces/wr2/shipments"
	cm := func(md, rest string) string {
		return `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"` + md + `}` + rest + `}`
	}
	cr := func(rules string) string {
		return `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole","metadata":{"name":"dt"},"rules":` + rules + `}`
	}
	bodies := []body{
		{"wh ok", whPath, wh(`{"region":"eu","docks":[{"id":1},{"id":2,"covered":true}],"zones":["a","b"],"openingHours":{"mon":{"open":"08:00","close":"18:00"}}}`)},
		{"wh dup docks", whPath, wh(`{"region":"eu","docks":[{"id":1},{"id":1,"kind":"Rail"}]}`)},
		{"wh dock no id", whPath, wh(`{"region":"eu","docks":[{"kind":"Rail"},{"kind":"Ship"}]}`)},
		{"wh dock id string", whPath, wh(`{"region":"eu","docks":[{"id":"1"}]}`)},
		{"wh dock id float", whPath, wh(`{"region":"eu","docks":[{"id":1.5}]}`)},
		{"wh dock id huge", whPath, wh(`{"region":"eu","docks":[{"id":99999999999}]}`)},
		{"wh dup zones", whPath, wh(`{"region":"eu","zones":["a","a"]}`)},
		{"wh zones null item", whPath, wh(`{"region":"eu","zones":["a",null]}`)},
		{"wh hours wrong", whPath, wh(`{"region":"eu","openingHours":{"mon":"always"}}`)},
		{"wh hours null", whPath, wh(`{"region":"eu","openingHours":{"mon":null}}`)},
		{"wh capacity bad", whPath, wh(`{"region":"eu","capacity":"lots"}`)},
		{"wh capacity number", whPath, wh(`{"region":"eu","capacity":12}`)},
		{"wh unknown nested", whPath, wh(`{"region":"eu","docks":[{"id":1,"width":3}]}`)},
		{"wh spec array", whPath, wh(`[]`)},
		{"a1 ok", a1p, a1(`{"from":{"street":"s","city":"c"},"destination":{"street":"d","city":"e"},"parcels":[{"name":"p"}]}`)},
		{"a1 dup parcels", a1p, a1(`{"from":{"street":"s","city":"c"},"destination":{"street":"d","city":"e"},"parcels":[{"name":"p"},{"name":"p"}]}`)},
		{"a1 urgent string", a1p, a1(`{"urgent":"yes","from":{"street":"s","city":"c"},"destination":{"street":"d","city":"e"}}`)},
		{"cm ok", fmt.Sprintf(cmPath, "wr2"), cm(``, `,"data":{"a":"b"}`)},
		{"cm data number", fmt.Sprintf(cmPath, "wr2"), cm(``, `,"data":{"a":1}`)},
		{"cm dup ownerrefs", fmt.Sprintf(cmPath, "wr2"), cm(`,"ownerReferences":[{"apiVersion":"v1","kind":"X","name":"x","uid":"1"},{"apiVersion":"v1","kind":"X","name":"y","uid":"1"}]`, ``)},
		{"cm dup finalizers", fmt.Sprintf(cmPath, "wr2"), cm(`,"finalizers":["a/b","a/b"]`, ``)},
		{"cm managedFields dup", fmt.Sprintf(cmPath, "wr2"), cm(`,"managedFields":[{"manager":"m","operation":"Update","apiVersion":"v1","fieldsType":"FieldsV1","fieldsV1":{"f:data":{}}},{"manager":"m","operation":"Update","apiVersion":"v1","fieldsType":"FieldsV1","fieldsV1":{"f:data":{}}}]`, `,"data":{"a":"b"}`)},
		{"cm managedFields time bad", fmt.Sprintf(cmPath, "wr2"), cm(`,"managedFields":[{"manager":"m","operation":"Update","apiVersion":"v1","time":"yesterday","fieldsType":"FieldsV1","fieldsV1":{}}]`, ``)},
		{"cm labels bad", fmt.Sprintf(cmPath, "wr2"), cm(`,"labels":{"a":1}`, ``)},
		{"cr ok", crPath, cr(`[{"apiGroups":[""],"resources":["pods"],"verbs":["get","get"]}]`)},
		{"cr dup rules", crPath, cr(`[{"apiGroups":[""],"resources":["pods"],"verbs":["get"]},{"apiGroups":[""],"resources":["pods"],"verbs":["get"]}]`)},
		{"cr rule wrong", crPath, cr(`[{"apiGroups":"","verbs":["get"]}]`)},
	}
	for _, b := range bodies {
		name := "w"
		switch {
		case strings.HasPrefix(b.name, "a1"):
			name = "v"
		case strings.HasPrefix(b.name, "cm"):
			name = "c"
		case strings.HasPrefix(b.name, "cr"):
			name = "dt"
		}
		for _, q := range []string{"", "?fieldValidation=Strict"} {
			r := t.do("POST", b.path+q, jsonType, []byte(b.obj))
			t.learn(r)
			t.record("create "+b.name+q, r)
			r = t.do("PUT", b.path+"/"+name+q, jsonType, []byte(b.obj))
			t.learn(r)
			t.record("put "+b.name+q, r)
			r = t.do("PATCH", b.path+"/"+name+q+sep(q)+"fieldManager=ssa&force=true", "application/apply-patch+yaml", []byte(b.obj))
			t.learn(r)
			t.record("apply "+b.name+q, r)
			r = t.do("PATCH", b.path+"/"+name+q, "application/merge-patch+json", []byte(b.obj))
			t.learn(r)
			t.record("merge "+b.name+q, r)
			r = t.do("PATCH", b.path+"/"+name+q, "application/strategic-merge-patch+json", []byte(b.obj))
			t.learn(r)
			t.record("strategic "+b.name+q, r)
			t.record("get "+b.name+q, t.do("GET", b.path+"/"+name, "", nil))
			t.record("delete "+b.name+q, t.do("DELETE", b.path+"/"+name, "", nil))
		}
	}
	// apply first, then the others: an applied object's managedFields
	for _, b := range bodies {
		if !strings.HasSuffix(b.name, " ok") {
			continue
		}
		name := map[string]string{"wh ok": "w", "a1 ok": "v", "cm ok": "c", "cr ok": "dt"}[b.name]
		r := t.do("PATCH", b.path+"/"+name+"?fieldManager=first", "application/apply-patch+yaml", []byte(b.obj))
		t.learn(r)
		t.record("apply create "+b.name, r)
		for _, other := range bodies {
			if other.path != b.path {
				continue
			}
			r := t.do("PATCH", b.path+"/"+name+"?fieldManager=second", "application/apply-patch+yaml", []byte(other.obj))
			t.learn(r)
			t.record("apply conflict "+b.name+" with "+other.name, r)
		}
		t.record("apply get "+b.name, t.do("GET", b.path+"/"+name, "", nil))
		t.record("apply delete "+b.name, t.do("DELETE", b.path+"/"+name, "", nil))
	}
}

// scenarioLists2 lists through the converted v1alpha1 view, other
// representations and the cluster-scoped warehouses.
func scenarioLists2(t *target) {
	ns(t, "l2")
	a1p := "/apis/shipping.kubeforge.dev/v1alpha1/namespaces/l2/shipments"
	for i := 0; i < 12; i++ {
		o := shipment(fmt.Sprintf("x%02d", (i*5)%12), map[string]string{"i": strconv.Itoa(i % 3)}, []string{"dhl", "ups", ""}[i%3], []string{"Bonn", "Ulm"}[i%2], "")
		t.learn(t.do("POST", fmt.Sprintf(shpPath, "l2"), jsonType, j(o)))
		w := `{"apiVersion":"infra.kubeforge.dev/v1","kind":"Warehouse","metadata":{"name":"lw` + strconv.Itoa((i*5)%12) + `","labels":{"i":"` + strconv.Itoa(i%3) + `"}},"spec":{"region":"eu"}}`
		t.learn(t.do("POST", whPath, jsonType, []byte(w)))
	}
	accepts := []string{"application/json", "application/json;as=Table;v=v1;g=meta.k8s.io", "application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io", "application/yaml", "*/*", "application/json;stream=watch"}
	paths := []string{a1p, fmt.Sprintf(shpPath, "l2"), whPath, "/apis/shipping.kubeforge.dev/v1alpha1/shipments"}
	queries := []string{"", "limit=5", "fieldSelector=spec.from.city%3DBonn", "fieldSelector=spec.from.city%3DBonn&limit=2", "fieldSelector=status.phase%3D&limit=4",
		"fieldSelector=spec.origin.city%3DBonn&limit=2", "fieldSelector=spec.carrier%3Dups&limit=1", "labelSelector=i%3D1&limit=2", "fieldSelector=metadata.name%3Dlw5&limit=1",
		"resourceVersion=0&limit=3", "resourceVersionMatch=NotOlderThan&resourceVersion=1&limit=3", "pretty=true&limit=3", "fieldSelector=metadata.name%3Dx03,metadata.namespace%3Dl2"}
	for _, p := range paths {
		for _, q := range queries {
			for _, acc := range accepts {
				cont := ""
				for page := 0; page < 20; page++ {
					qq := q
					if cont != "" {
						qq = strings.ReplaceAll(strings.ReplaceAll(qq, "resourceVersion=0&", ""), "resourceVersionMatch=NotOlderThan&resourceVersion=1&", "") + "&continue=" + url.QueryEscape(cont)
					}
					req, _ := http.NewRequest("GET", t.host+p+"?"+qq, nil)
					req.Header.Set("Accept", acc)
					r, err := t.client.Do(req)
					if err != nil {
						t.recs = append(t.recs, rec{step: p + "?" + qq + " " + acc, out: err.Error()})
						break
					}
					b, _ := io.ReadAll(r.Body)
					r.Body.Close()
					out := resp{code: r.StatusCode, body: b}
					_ = json.Unmarshal(b, &out.obj)
					t.recs = append(t.recs, rec{step: fmt.Sprintf("%s?%s %s page %d", p, q, acc, page), out: r.Header.Get("Content-Type") + " " + fmt.Sprintf("%d %s", r.StatusCode, t.normJSON(b))})
					m, _ := out.obj.(map[string]any)
					md, _ := m["metadata"].(map[string]any)
					c, _ := md["continue"].(string)
					if c == "" || r.StatusCode != 200 {
						break
					}
					cont = c
				}
			}
		}
	}
}

// scenarioRace races deletes (plain, with preconditions, collections)
// against updates under watches of both versions and an informer; only
// the per-server DELETED checks and the final lists are compared, the
// interleaving being the scheduler's.
func scenarioRace(t *target) {
	ns(t, "rc")
	p := fmt.Sprintf(shpPath, "rc")
	stop := make(chan struct{})
	var chans []<-chan []event
	replicas := []*target{t}
	if t.peer != nil {
		replicas = append(replicas, t.peer)
	}
	for _, r := range replicas {
		for _, wp := range []string{p + "?watch=1&allowWatchBookmarks=true", strings.Replace(p, "/v1/", "/v1alpha1/", 1) + "?watch=1", p + "?watch=1&fieldSelector=spec.carrier%3Dc1"} {
			ch, err := r.watch(wp, stop)
			if err != nil {
				t.problems = append(t.problems, err.Error())
				continue
			}
			chans = append(chans, ch)
		}
	}
	time.Sleep(200 * time.Millisecond)
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			t := replicas[w%len(replicas)]
			for i := 0; i < *raceOps; i++ {
				n := fmt.Sprintf("r%d", i%10)
				switch (i + w) % 5 {
				case 0:
					t.do("POST", p, jsonType, j(shipment(n, map[string]string{"g": strconv.Itoa(i % 3)}, "c0", "Bonn", "")))
				case 1:
					t.do("PATCH", p+"/"+n, "application/merge-patch+json", []byte(fmt.Sprintf(`{"spec":{"carrier":"c%d"}}`, (i+w)%3)))
				case 2:
					t.do("DELETE", p+"/"+n, "", nil)
				case 3:
					g := t.do("GET", p+"/"+n, "", nil)
					m, _ := g.obj.(map[string]any)
					md, _ := m["metadata"].(map[string]any)
					t.do("DELETE", p+"/"+n, jsonType, j(map[string]any{"preconditions": map[string]any{"resourceVersion": md["resourceVersion"]}}))
				case 4:
					t.do("DELETE", p+"?labelSelector=g%3D"+strconv.Itoa(i%3), "", nil)
				}
			}
		}(w)
	}
	wg.Wait()
	time.Sleep(time.Second)
	close(stop)
	n := 0
	streams := make([][]event, len(chans))
	for i, ch := range chans {
		evs := <-ch
		streams[i] = evs
		n += len(evs)
		t.checkDeleted(fmt.Sprintf("race watch %d", i), evs)
	}
	// Replicas watch one etcd: the same URL's events at the same revision
	// are the same bytes, whichever replica deleted (and handed off).
	if per := len(streams) / len(replicas); len(replicas) == 2 {
		for i := 0; i < per; i++ {
			t.sameEvents(fmt.Sprintf("race watch %d vs %d", i, i+per), streams[i], streams[i+per])
		}
	}
	// the final state of each watch, replayed, is the list's
	t.recs = append(t.recs, rec{step: "race events", out: strconv.FormatBool(n > 0)})
	t.do("DELETE", p, "", nil)
}

// scenarioRaw writes values into etcd behind the server's back (what
// another program or an older version may leave) and reads them every way.
func scenarioRaw(t *target) {
	ns(t, "raw")
	p := fmt.Sprintf(shpPath, "raw")
	for i := 0; i < 3; i++ {
		t.learn(t.do("POST", p, jsonType, j(shipment(fmt.Sprintf("ok%d", i), map[string]string{"k": "v"}, "ups", "Bonn", ""))))
	}
	obj := func(name, extraMeta, extraSpec string) string {
		return `{"kind":"Shipment","apiVersion":"shipping.kubeforge.dev/v1","metadata":{"name":"` + name + `","namespace":"raw","uid":"11111111-1111-1111-1111-111111111111","generation":1,"creationTimestamp":"2020-01-01T00:00:00Z"` + extraMeta + `},"spec":{"carrier":"ups","origin":{"street":"s","city":"Bonn","country":"DE"},"destination":{"street":"d","city":"Ulm","country":"DE"},"parcels":[{"name":"p","weight":"0","count":1}],"priority":"Normal","handlingTime":"24h0m0s","delayTolerance":"10%","intervalMinutes":15` + extraSpec + `},"status":{}}`
	}
	vals := map[string]string{
		"a-notjson":     `{"kind":`,
		"b-empty":       ``,
		"c-unknown":     obj("c-unknown", "", `,"zzz":1`),
		"d-wrongtype":   obj("d-wrongtype", "", `,"insured":"x"`),
		"e-rv":          obj("e-rv", `,"resourceVersion":"5"`, ""),
		"f-othername":   obj("somebody", "", ""),
		"g-nometa":      `{"kind":"Shipment","apiVersion":"shipping.kubeforge.dev/v1","spec":{"carrier":"ups"}}`,
		"h-order":       `{"apiVersion":"shipping.kubeforge.dev/v1","kind":"Shipment","metadata":{"namespace":"raw","name":"h-order","uid":"11111111-1111-1111-1111-111111111111","generation":1,"creationTimestamp":"2020-01-01T00:00:00Z"},"spec":{"carrier":"ups","origin":{"street":"s","city":"Bonn"},"destination":{"street":"d","city":"Ulm"},"parcels":[{"name":"p"}]}}`,
		"i-ok":          obj("i-ok", "", ""),
		"j-emptymeta":   `{"kind":"Shipment","apiVersion":"shipping.kubeforge.dev/v1","metadata":{},"spec":{"carrier":"dhl"}}`,
		"k-spaces":      " " + obj("k-spaces", "", "") + "\n",
		"l-null":        `null`,
		"m-array":       `[]`,
		"n-labels":      obj("n-labels", `,"labels":{"k":"v"}`, ""),
		"o-dupkey":      obj("o-dupkey", `,"name":"o-dupkey"`, ""),
		"p-escaped":     strings.Replace(obj("p-escaped", "", ""), `"carrier":"ups"`, `"carrier":"\u0075ps"`, 1),
		"q-otherkind":   `{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"q-otherkind","namespace":"raw"},"data":{"a":"b"}}`,
		"r-v1alpha1":    `{"kind":"Shipment","apiVersion":"shipping.kubeforge.dev/v1alpha1","metadata":{"name":"r-v1alpha1","namespace":"raw"},"spec":{"from":{"street":"s","city":"Bonn"},"destination":{"street":"d","city":"Ulm"}}}`,
		"s-bigint":      obj("s-bigint", "", `,"declaredValueCents":12345678901234567890`),
		"t-float":       obj("t-float", "", `,"declaredValueCents":1.0`),
		"u-mfstring":    obj("u-mfstring", `,"managedFields":[{"manager":"x","operation":"Update","apiVersion":"shipping.kubeforge.dev/v1","fieldsType":"FieldsV1","fieldsV1":"notanobject"}]`, ""),
		"v-mfarray":     obj("v-mfarray", `,"managedFields":[{"manager":"x","operation":"Update","apiVersion":"shipping.kubeforge.dev/v1","fieldsType":"FieldsV1","fieldsV1":[1,2]}]`, ""),
		"w-deleting":    obj("w-deleting", `,"deletionTimestamp":"2020-01-01T00:00:00Z","finalizers":["x/y"]`, ""),
		"x-deleting-nf": obj("x-deleting-nf", `,"deletionTimestamp":"2020-01-01T00:00:00Z"`, ""),
		"y-html":        strings.Replace(obj("y-html", "", ""), `"carrier":"ups"`, `"carrier":"<a&b>\u2028"`, 1),
		"z-html-esc":    strings.Replace(obj("z-html-esc", "", ""), `"carrier":"ups"`, `"carrier":"\u003ca\u0026b\u003e\u2028"`, 1),
	}
	c, err := etcdClient(t)
	if err != nil {
		t.problems = append(t.problems, "etcd: "+err.Error())
		return
	}
	defer c.Close()
	keys := make([]string, 0, len(vals))
	for k := range vals {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	stop := make(chan struct{})
	lr := t.do("GET", p, "", nil)
	lm, _ := lr.obj.(map[string]any)
	lmd, _ := lm["metadata"].(map[string]any)
	startRV, _ := lmd["resourceVersion"].(string)
	wch, werr := t.watch(p+"?watch=1&resourceVersion="+startRV, stop)
	ctx := context.Background()
	for _, k := range keys {
		if _, err := c.Put(ctx, "/registry/shipping.kubeforge.dev/shipments/raw/"+k, vals[k]); err != nil {
			t.problems = append(t.problems, "put: "+err.Error())
		}
	}
	time.Sleep(time.Second)
	reads := []string{"", "?limit=1", "?limit=2", "?limit=3", "?limit=500", "?resourceVersion=0", "?resourceVersion=0&limit=2",
		"?fieldSelector=spec.carrier%3Dups", "?fieldSelector=spec.carrier%3Dups&limit=2", "?fieldSelector=metadata.name%3Di-ok&limit=1",
		"?labelSelector=k%3Dv&limit=2", "?fieldSelector=spec.origin.city%3DBonn&limit=3", "?fieldSelector=status.phase%3D&limit=4"}
	for _, q := range reads {
		t.listWalk("raw list "+q, p, mustQuery(q))
		t.listWalk("raw list v1alpha1 "+q, strings.Replace(p, "/v1/", "/v1alpha1/", 1), mustQuery(q))
	}
	for _, k := range append(keys, "ok0") {
		for _, q := range []string{"", "?resourceVersion=0"} {
			t.record("raw get "+k+q, t.do("GET", p+"/"+k+q, "", nil))
			t.record("raw get v1alpha1 "+k+q, t.do("GET", strings.Replace(p, "/v1/", "/v1alpha1/", 1)+"/"+k+q, "", nil))
		}
	}
	for _, k := range keys {
		r := t.do("PATCH", p+"/"+k, "application/merge-patch+json", []byte(`{"metadata":{"labels":{"patched":"1"}}}`))
		t.learn(r)
		t.record("raw patch "+k, r)
		r = t.do("PATCH", p+"/"+k+"?fieldManager=a&force=true", "application/apply-patch+yaml", []byte("apiVersion: shipping.kubeforge.dev/v1\nkind: Shipment\nmetadata:\n  name: "+k+"\nspec:\n  carrier: dhl\n"))
		t.learn(r)
		t.record("raw apply "+k, r)
		t.record("raw get after "+k, t.do("GET", p+"/"+k, "", nil))
	}
	for _, k := range keys {
		t.record("raw delete "+k, t.do("DELETE", p+"/"+k, "", nil))
		t.record("raw delete ignoring "+k, t.do("DELETE", p+"/"+k, jsonType, []byte(`{"ignoreStoreReadErrorWithClusterBreakingPotential":true}`)))
	}
	time.Sleep(time.Second)
	close(stop)
	if werr != nil {
		t.problems = append(t.problems, werr.Error())
		return
	}
	evs := <-wch
	t.recordEvents("raw watch", evs)
	_, _ = c.Delete(ctx, "/registry/shipping.kubeforge.dev/shipments/raw/", clientv3.WithPrefix())
}

func mustQuery(q string) url.Values {
	v, err := url.ParseQuery(strings.TrimPrefix(q, "?"))
	if err != nil {
		panic(err) // the harness's own literals
	}
	return v
}

// scenarioBig writes configmaps from empty to near the request limit, with
// characters JSON encoders escape, and reads them every way.
func scenarioBig(t *target) {
	ns(t, "big")
	p := fmt.Sprintf(cmPath, "big")
	stop := make(chan struct{})
	lr := t.do("GET", p, "", nil)
	lm, _ := lr.obj.(map[string]any)
	lmd, _ := lm["metadata"].(map[string]any)
	startRV, _ := lmd["resourceVersion"].(string)
	wch, werr := t.watch(p+"?watch=1&resourceVersion="+startRV, stop)
	for i, n := range []int{0, 1, 127, 128, 129, 4096, 65536, 900000, 1600000} {
		name := fmt.Sprintf("c%02d", i)
		v := strings.Repeat("x<&>\u2028é\"\\", n/10+1)[:n]
		r := t.do("POST", p, jsonType, j(map[string]any{"metadata": map[string]any{"name": name, "labels": map[string]string{"i": strconv.Itoa(i % 2)}}, "data": map[string]string{"v": v}}))
		t.learn(r)
		t.record("big create "+name, resp{code: r.code, body: []byte(strconv.Itoa(len(r.body)))})
		r = t.do("PATCH", p+"/"+name, "application/merge-patch+json", j(map[string]any{"data": map[string]string{"w": v[:len(v)/2]}}))
		t.learn(r)
		t.record("big patch "+name, resp{code: r.code, body: []byte(strconv.Itoa(len(r.body)))})
		g := t.do("GET", p+"/"+name, "", nil)
		t.record("big get "+name, g)
		t.record("big get rv0 "+name, t.do("GET", p+"/"+name+"?resourceVersion=0", "", nil))
	}
	for _, q := range []string{"", "?limit=1", "?limit=3", "?resourceVersion=0", "?labelSelector=i%3D1&limit=2", "?fieldSelector=metadata.name%3Dc05&limit=1"} {
		t.listWalk("big list "+q, p, mustQuery(q))
	}
	t.record("big deletecollection", t.do("DELETE", p+"?labelSelector=i%3D1", "", nil))
	for i := 0; i < 9; i++ {
		t.do("DELETE", fmt.Sprintf("%s/c%02d", p, i), "", nil)
	}
	time.Sleep(time.Second)
	close(stop)
	if werr != nil {
		t.problems = append(t.problems, werr.Error())
		return
	}
	evs := <-wch
	t.recordEvents("big watch", evs)
}

// sameEvents checks that events of a and b at the same revision, type and
// object are the same bytes.
func (t *target) sameEvents(step string, a, b []event) {
	key := func(e event) string { return fmt.Sprintf("%s %s %d", e.Type, objName(e.Object), objRV(e.Object)) }
	seen := map[string]string{}
	for _, e := range a {
		if e.Type != "BOOKMARK" {
			seen[key(e)] = string(e.Raw)
		}
	}
	both := 0
	for _, e := range b {
		if want, ok := seen[key(e)]; ok {
			both++
			if want != string(e.Raw) {
				t.problems = append(t.problems, fmt.Sprintf("%s: %s differs:\n  %s\n  %s", step, key(e), want, e.Raw))
			}
		}
	}
	fmt.Fprintf(os.Stderr, "%s: %s: %d events in both\n", t.name, step, both)
}
