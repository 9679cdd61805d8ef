package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/yaml"
)

// TestCRDParityWithKube asks a real kube-apiserver serving the project's
// kinds as CRDs and this server the same questions and wants the same
// answers: for bad bodies the status code, reason, message of a 400, and
// each cause of a 422 (field, reason, message; in any order, which kube
// takes from its schema walk); every resource's storageVersionHash in
// discovery, built-in kinds' too, and the namespaces' entries; a
// deletecollection's answer, the
// list as read (an object its finalizer keeps without the
// deletionTimestamp the delete gave it); and the Table kubectl get prints
// (a column of an omitempty field at its zero is null: <none>); and the 422s
// of writes refused for a generateName, a long name, another kind or
// apiVersion (kube's ValidateTypeMeta), a status schema (its messages
// name the field from status), a list-map key given twice and null list
// items. testdata/crds holds controller-gen
// v0.23.0's CRDs of types/shipping/v1 and types/infra/v1 (run
// `controller-gen crd paths=./types/...`; uniqueItems, which kube refuses in
// a CRD, removed from Warehouse.spec.zones).
func TestCRDParityWithKube(t *testing.T) {
	mc := startMainCluster(t)
	kubeAdmin, err := mc.adminCert.TLS()
	if err != nil {
		t.Fatal(err)
	}
	kube := mc.client(kubeAdmin)
	shipments := "/apis/shipping.kubeforge.dev/v1/namespaces/default/shipments"
	warehouses := "/apis/infra.kubeforge.dev/v1/warehouses"

	files, _ := filepath.Glob("testdata/crds/*.yaml")
	if len(files) != 2 {
		t.Fatalf("testdata/crds: %v", files)
	}
	for _, f := range files {
		y, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		j, err := yaml.YAMLToJSON(y)
		if err != nil {
			t.Fatal(err)
		}
		if code, body := paritySend(t, kube, mc.url, "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", "application/json", string(j)); code != http.StatusCreated {
			t.Fatalf("create the CRD of %s: %d %s", f, code, body)
		}
	}
	for _, p := range []string{shipments, warehouses} {
		deadline := time.Now().Add(30 * time.Second)
		for {
			if code, _ := paritySend(t, kube, mc.url, "GET", p, "", ""); code == http.StatusOK {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("kube-apiserver does not serve %s", p)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}

	s := newServer(t)
	ourTLS, err := rest.TLSConfigFor(s.config)
	if err != nil {
		t.Fatal(err)
	}
	ours := &http.Client{Timeout: 20 * time.Second, Transport: &http.Transport{TLSClientConfig: ourTLS}}

	addr := `{"street":"a","city":"b"}`
	shipment := func(name, spec string) string {
		return `{"apiVersion":"shipping.kubeforge.dev/v1","kind":"Shipment","metadata":{"name":"` + name + `"},"spec":{` + spec + `}}`
	}
	base := `"origin":` + addr + `,"destination":` + addr + `,"parcels":[{"name":"p1"}]`
	warehouse := func(name, spec string) string {
		return `{"apiVersion":"infra.kubeforge.dev/v1","kind":"Warehouse","metadata":{"name":"` + name + `"},"spec":{` + spec + `}}`
	}
	for _, q := range []struct{ name, path, body string }{
		{"pattern, minLength, maxLength, minItems", shipments, shipment("a1",
			`"origin":{"street":"a","city":"","postalCode":"x"},"destination":{"street":"c","city":"d","country":"DEU"},"parcels":[]`)},
		{"pattern and maximum in list items", shipments, shipment("a2",
			`"origin":`+addr+`,"destination":`+addr+`,"parcels":[{"name":"P1"},{"name":"p2","count":2000}]`)},
		{"multipleOf and format", shipments, shipment("a3", base+`,"intervalMinutes":7,"notify":"not-an-email"`)},
		{"minimum of a pointer", shipments, shipment("a4", base+`,"declaredValueCents":-1`)},
		{"date-time", shipments, shipment("a5", base+`,"pickupAfter":"notatime"`)},
		{"wrong types", shipments, shipment("a6", `"origin":"x","destination":`+addr+`,"parcels":[{"name":"p1","count":"3"}]`)},
		{"strict: unknown field", shipments + "?fieldValidation=Strict", shipment("a7", base+`,"bogus":1`)},
		{"strict: duplicate field", shipments + "?fieldValidation=Strict",
			`{"apiVersion":"shipping.kubeforge.dev/v1","kind":"Shipment","metadata":{"name":"a8","name":"a8"},"spec":{` + base + `}}`},
		{"map values, enum, minimum, maxItems", warehouses, warehouse("w1",
			`"region":"","docks":[{"id":0,"kind":"Plane"}],"gates":["North","","waytoolongname"],"openingHours":{"mon":{"open":"8","close":"25:00"}}`)},
		{"maxItems", warehouses, warehouse("w2", `"region":"eu","gates":["a","b","c","d","e","f","g","h","i","j","k","l","m","n","o","p","q"]`)},
		{"an empty spec sent is checked", shipments, shipment("a9", ``)},
		{"a required object absent", shipments, shipment("a10", `"origin":`+addr+`,"parcels":[{"name":"p1"}]`)},
	} {
		k, o := schemaAnswer(t, kube, mc.url, q.path, q.body), schemaAnswer(t, ours, s.config.Host, q.path, q.body)
		if k != o {
			t.Errorf("%s:\n  kube-apiserver: %s\n  kubeforge:      %s", q.name, k, o)
		} else {
			t.Logf("%s: %s", q.name, k)
		}
		if !strings.HasPrefix(o, "400") && !strings.HasPrefix(o, "422") {
			t.Errorf("%s: want a 400 or 422, got %s", q.name, o)
		}
	}

	// An absent omitempty spec is not an object to check: no Required
	// below it (a create drops status the same way).
	for _, c := range []struct {
		name   string
		client *http.Client
		base   string
	}{{"kube-apiserver", kube, mc.url}, {"kubeforge", ours, s.config.Host}} {
		body := `{"apiVersion":"shipping.kubeforge.dev/v1","kind":"Shipment","metadata":{"name":"nospec"},"status":{"phase":"Delivered"}}`
		if code, data := paritySend(t, c.client, c.base, "POST", shipments, "application/json", body); code != http.StatusCreated {
			t.Errorf("%s: a Shipment without spec: %d %s, want 201", c.name, code, data)
		}
		if code, data := paritySend(t, c.client, c.base, "DELETE", shipments+"/nospec", "", ""); code != http.StatusOK {
			t.Errorf("%s: delete the Shipment without spec: %d %s", c.name, code, data)
		}
	}

	// Discovery: kube's storageVersionHash for every resource both serve
	// (none for reviews, which store nothing).
	hashes := func(c *http.Client, base, path string) map[string]string {
		_, data := paritySend(t, c, base, "GET", path, "", "")
		var l struct {
			Resources []struct{ Name, StorageVersionHash string }
		}
		if err := json.Unmarshal(data, &l); err != nil {
			t.Fatalf("GET %s: %v: %s", path, err, data)
		}
		out := map[string]string{}
		for _, r := range l.Resources {
			out[r.Name] = r.StorageVersionHash
		}
		return out
	}
	compared := 0
	for _, gv := range []string{"/api/v1", "/apis/events.k8s.io/v1", "/apis/coordination.k8s.io/v1", "/apis/rbac.authorization.k8s.io/v1",
		"/apis/admissionregistration.k8s.io/v1", "/apis/authorization.k8s.io/v1", "/apis/shipping.kubeforge.dev/v1", "/apis/infra.kubeforge.dev/v1"} {
		k, o := hashes(kube, mc.url, gv), hashes(ours, s.config.Host, gv)
		for name, h := range o {
			if kh, ok := k[name]; ok {
				compared++
				if kh != h {
					t.Errorf("%s %s: storageVersionHash %q, kube-apiserver's %q", gv, name, h, kh)
				}
			}
		}
	}
	if compared < 20 {
		t.Errorf("compared %d storageVersionHashes", compared)
	}
	// Namespaces: finalize listed, no deletecollection (kube's registry
	// has none: DELETE of the collection is a 405).
	namespaces := func(c *http.Client, base string) string {
		_, data := paritySend(t, c, base, "GET", "/api/v1", "", "")
		var l struct{ Resources []map[string]any }
		if err := json.Unmarshal(data, &l); err != nil {
			t.Fatal(err)
		}
		var out []map[string]any
		for _, r := range l.Resources {
			if name, _ := r["name"].(string); name == "namespaces" || strings.HasPrefix(name, "namespaces/") {
				out = append(out, r)
			}
		}
		js, _ := json.Marshal(out)
		code, _ := paritySend(t, c, base, "DELETE", "/api/v1/namespaces", "", "")
		return fmt.Sprintf("DELETE %d; %s", code, js)
	}
	if k, o := namespaces(kube, mc.url), namespaces(ours, s.config.Host); k != o {
		t.Errorf("namespaces in /api/v1:\n  kube-apiserver: %s\n  kubeforge:      %s", k, o)
	}

	// A deletecollection answers with the list as read.
	for _, target := range []struct {
		c    *http.Client
		base string
	}{{kube, mc.url}, {ours, s.config.Host}} {
		if code, data := paritySend(t, target.c, target.base, "POST", shipments, "application/json",
			`{"apiVersion":"shipping.kubeforge.dev/v1","kind":"Shipment","metadata":{"name":"kept","labels":{"dc":"1"},"finalizers":["example.com/keep"]},"spec":{`+base+`}}`); code != http.StatusCreated {
			t.Fatalf("%s: create: %d %s", target.base, code, data)
		}
		code, data := paritySend(t, target.c, target.base, "DELETE", shipments+"?labelSelector=dc%3D1", "", "")
		var l struct {
			Items []struct {
				Metadata struct{ Name, DeletionTimestamp string }
			}
		}
		if err := json.Unmarshal(data, &l); err != nil || code != http.StatusOK || len(l.Items) != 1 || l.Items[0].Metadata.DeletionTimestamp != "" {
			t.Errorf("%s: deletecollection: %d %s", target.base, code, data)
		}
		paritySend(t, target.c, target.base, "PATCH", shipments+"/kept", "application/merge-patch+json", `{"metadata":{"finalizers":null}}`)
	}

	// kubectl get: the Table of the same objects, cells and columns.
	tables := map[string]string{}
	for name, target := range map[string]struct {
		c    *http.Client
		base string
	}{"kube-apiserver": {kube, mc.url}, "kubeforge": {ours, s.config.Host}} {
		paritySend(t, target.c, target.base, "POST", shipments, "application/json", shipment("t1", `"carrier":"dhl","origin":`+addr+`,"destination":{"street":"c","city":"Paris"},"parcels":[{"name":"p1"}]`))
		paritySend(t, target.c, target.base, "POST", shipments, "application/json", shipment("t2", base))
		paritySend(t, target.c, target.base, "PATCH", shipments+"/t2/status", "application/merge-patch+json", `{"status":{"phase":"Lost"}}`)
		req, err := http.NewRequest(http.MethodGet, target.base+shipments+"?includeObject=None", nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Accept", "application/json;as=Table;v=v1;g=meta.k8s.io")
		resp, err := target.c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var table struct {
			ColumnDefinitions []struct {
				Name, Type, Format, Description string
				Priority                        int
			}
			Rows []struct{ Cells []any }
		}
		err = json.NewDecoder(resp.Body).Decode(&table)
		resp.Body.Close()
		if err != nil || len(table.Rows) != 2 {
			t.Fatalf("%s: Table: %v %+v", name, err, table)
		}
		for _, r := range table.Rows {
			r.Cells[len(r.Cells)-1] = "AGE" // the age column
		}
		out, _ := json.Marshal(table)
		tables[name] = string(out)
	}
	if tables["kube-apiserver"] != tables["kubeforge"] {
		t.Errorf("Table of shipments:\n  kube-apiserver: %s\n  kubeforge:      %s", tables["kube-apiserver"], tables["kubeforge"])
	}

	// Writes refused for their metadata, kind or status: code, reason, the
	// object the Status names and its causes (a generated name masked).
	const mp, jp = "application/merge-patch+json", "application/json-patch+json"
	for _, q := range []struct{ name, method, path, ct, body string }{
		{"a generateName that makes a bad name", "POST", shipments, "application/json",
			`{"apiVersion":"shipping.kubeforge.dev/v1","kind":"Shipment","metadata":{"generateName":"GEN-"},"spec":{` + base + `}}`},
		{"a name over 253 characters", "POST", shipments, "application/json", shipment(strings.Repeat("a", 254), base)},
		{"another kind of the group", "POST", shipments, "application/json",
			`{"apiVersion":"shipping.kubeforge.dev/v1","kind":"Warehouse","metadata":{"name":"k1"},"spec":{` + base + `}}`},
		{"a JSON patch of the kind", "PATCH", shipments + "/t2", jp, `[{"op":"replace","path":"/kind","value":"Other"}]`},
		{"a JSON patch of the apiVersion", "PATCH", shipments + "/t2", jp, `[{"op":"replace","path":"/apiVersion","value":"v1"}]`},
		{"a merge patch of the kind", "PATCH", shipments + "/t2", mp, `{"kind":"Other"}`},
		{"a status below its minimum", "PATCH", shipments + "/t2/status", mp, `{"status":{"attempts":-1}}`},
		{"a status condition without its required fields", "PATCH", shipments + "/t2/status", mp, `{"status":{"conditions":[{"type":"Ready"}]}}`},
		{"a list-map key twice", "POST", warehouses, "application/json", warehouse("d1", `"region":"eu","docks":[{"id":1},{"id":1}]`)},
		{"a null list item", "POST", warehouses, "application/json", warehouse("d2", `"region":"eu","zones":["a",null],"docks":[{"id":1},null]`)},
		{"a null list item in a patch", "PATCH", shipments + "/t2", mp, `{"spec":{"parcels":[null]}}`},
	} {
		answers := map[string]string{}
		for name, target := range map[string]struct {
			c    *http.Client
			base string
		}{"kube-apiserver": {kube, mc.url}, "kubeforge": {ours, s.config.Host}} {
			code, data := paritySend(t, target.c, target.base, q.method, q.path, q.ct, q.body)
			answers[name] = refusal(code, data)
		}
		if k, o := answers["kube-apiserver"], answers["kubeforge"]; k != o {
			t.Errorf("%s:\n  kube-apiserver: %s\n  kubeforge:      %s", q.name, k, o)
		} else if !strings.HasPrefix(o, "422 Invalid") {
			t.Errorf("%s: want a 422, got %s", q.name, o)
		} else {
			t.Logf("%s: %s", q.name, o)
		}
	}
	eventsNamed(t, kube, mc.url, ours, s.config.Host)
	readBack(t, kube, mc.url, ours, s.config.Host)
}

// readBack sends the same writes of objects as kubectl sends them (no
// status, no member it does not set) to both servers and compares the
// objects they answer with, once the values only the server chooses are
// masked: no null, no empty status and no zero Quantity where kube has
// none, JSON patches applied to the same document, and managedFields
// computed over that JSON (no f:weight for a parcel sent without one, a
// "." for the status a first /status write adds).
func readBack(t *testing.T, kube *http.Client, kubeURL string, ours *http.Client, ourURL string) {
	const (
		shipments  = "/apis/shipping.kubeforge.dev/v1/namespaces/default/shipments"
		warehouses = "/apis/infra.kubeforge.dev/v1/warehouses"
		mp, jp     = "application/merge-patch+json", "application/json-patch+json"
	)
	addr := `{"street":"a","city":"b"}`
	for _, q := range []struct{ name, method, path, ct, body string }{
		{"a create without status", "POST", shipments, "application/json",
			`{"apiVersion":"shipping.kubeforge.dev/v1","kind":"Shipment","metadata":{"name":"rb1"},"spec":{"origin":` + addr + `,"destination":` + addr + `,"parcels":[{"name":"p1"}]}}`},
		{"a get", "GET", shipments + "/rb1", "", ""},
		{"a status patch", "PATCH", shipments + "/rb1/status", mp, `{"status":{"phase":"InTransit"}}`},
		{"a merge patch", "PATCH", shipments + "/rb1", mp, `{"spec":{"tags":["x"],"carrier":"dhl","parcels":[{"name":"p1","weight":"0"}]}}`},
		{"a merge patch removing", "PATCH", shipments + "/rb1", mp, `{"spec":{"carrier":null,"tags":null}}`},
		{"a JSON patch adding", "PATCH", shipments + "/rb1", jp, `[{"op":"add","path":"/spec/instructions","value":{"a":"b"}}]`},
		{"a JSON patch of an absent member", "PATCH", shipments + "/rb1", jp, `[{"op":"replace","path":"/spec/handlingTime","value":"1s"}]`},
		{"a JSON patch testing a removed member", "PATCH", shipments + "/rb1", jp, `[{"op":"test","path":"/spec/carrier","value":null}]`},
		{"a cluster-scoped create", "POST", warehouses, "application/json",
			`{"apiVersion":"infra.kubeforge.dev/v1","kind":"Warehouse","metadata":{"name":"rb2"},"spec":{"region":"eu","displayName":"d","robots":0,"docks":[{"id":1,"doors":2}]}}`},
		{"a list", "GET", warehouses + "?labelSelector=", "", ""},
	} {
		answers := map[string]string{}
		for name, target := range map[string]struct {
			c    *http.Client
			base string
		}{"kube-apiserver": {kube, kubeURL}, "kubeforge": {ours, ourURL}} {
			code, data := paritySend(t, target.c, target.base, q.method, q.path, q.ct, q.body)
			answers[name] = fmt.Sprintf("%d %s", code, masked(data))
		}
		if k, o := answers["kube-apiserver"], answers["kubeforge"]; k != o {
			t.Errorf("%s:\n  kube-apiserver: %s\n  kubeforge:      %s", q.name, k, o)
		} else {
			t.Logf("%s: %s", q.name, o)
		}
	}
}

// masked is an answer's JSON, compacted with sorted keys, with the
// values each server chooses (uid, resourceVersion, times) masked.
func masked(data []byte) string {
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		return string(data)
	}
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			if c, ok := x["continue"]; ok && c == "" {
				delete(x, "continue") // kube's lists have "continue":""
			}
			for k, e := range x {
				switch k {
				case "uid", "resourceVersion", "creationTimestamp", "time":
					if _, ok := e.(string); ok {
						x[k] = "X"
						continue
					}
				}
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(v)
	out, _ := json.Marshal(v)
	return string(out)
}

// eventsNamed asks both servers for kube's names of an events.k8s.io Event
// in its errors: NotFound and AlreadyExists name the resource requested
// (events.events.k8s.io), a 422 the kind it is stored as (core Event).
func eventsNamed(t *testing.T, kube *http.Client, kubeURL string, ours *http.Client, ourURL string) {
	events := "/apis/events.k8s.io/v1/namespaces/default/events"
	ok := `{"apiVersion":"events.k8s.io/v1","kind":"Event","metadata":{"name":"ev1"},"eventTime":"2026-01-01T00:00:00.000000Z","type":"Normal",` +
		`"reportingController":"example.com/c","reportingInstance":"i","action":"A","reason":"R","regarding":{"kind":"Pod","name":"p","namespace":"default"}}`
	for _, q := range []struct{ name, method, path, body string }{
		{"get a missing Event", "GET", events + "/missing", ""},
		{"create an Event", "POST", events, ok},
		{"create it again", "POST", events, ok},
		{"create an invalid Event", "POST", events, `{"apiVersion":"events.k8s.io/v1","kind":"Event","metadata":{"name":"ev2"},"eventTime":"2026-01-01T00:00:00.000000Z","type":"Weird"}`},
		{"delete a missing Event", "DELETE", events + "/missing", ""},
	} {
		var answers [2]string
		for i, target := range []struct {
			c    *http.Client
			base string
		}{{kube, kubeURL}, {ours, ourURL}} {
			ct := ""
			if q.body != "" {
				ct = "application/json"
			}
			code, data := paritySend(t, target.c, target.base, q.method, q.path, ct, q.body)
			var st struct {
				Kind, Reason, Message string
				Details               struct{ Group, Kind, Name string }
			}
			_ = json.Unmarshal(data, &st)
			if st.Kind != "Status" {
				answers[i] = fmt.Sprint(code)
				continue
			}
			answers[i] = fmt.Sprintf("%d %s %s/%s %q: %s", code, st.Reason, st.Details.Group, st.Details.Kind, st.Details.Name, st.Message)
		}
		if answers[0] != answers[1] {
			t.Errorf("%s:\n  kube-apiserver: %s\n  kubeforge:      %s", q.name, answers[0], answers[1])
		} else {
			t.Logf("%s: %s", q.name, answers[1])
		}
	}
}

// refusal is a Status's code, reason, details' group, kind and name, and
// its sorted causes, with names made from generateName "GEN-" masked.
func refusal(code int, data []byte) string {
	var st struct {
		Reason  string
		Details struct {
			Group, Kind, Name string
			Causes            []struct{ Reason, Message, Field string }
		}
	}
	if err := json.Unmarshal(data, &st); err != nil {
		return fmt.Sprintf("%d %s", code, data)
	}
	var causes []string
	for _, c := range st.Details.Causes {
		causes = append(causes, c.Field+" "+c.Reason+" "+c.Message)
	}
	sort.Strings(causes)
	out := fmt.Sprintf("%d %s %s/%s %q: %s", code, st.Reason, st.Details.Group, st.Details.Kind, st.Details.Name, strings.Join(causes, " | "))
	return regexp.MustCompile(`GEN-[a-z0-9]{5}`).ReplaceAllString(out, "GEN-xxxxx")
}

func paritySend(t *testing.T, c *http.Client, base, method, path, ct, body string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, base+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if ct != "" {
		req.Header.Set("Content-Type", ct)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, data
}

// schemaAnswer is a create's status code, reason and message (a 400's)
// or sorted causes (a 422's).
func schemaAnswer(t *testing.T, c *http.Client, base, path, body string) string {
	code, data := paritySend(t, c, base, "POST", path, "application/json", body)
	var st struct {
		Reason, Message string
		Details         struct {
			Causes []struct{ Reason, Message, Field string }
		}
	}
	if err := json.Unmarshal(data, &st); err != nil {
		return fmt.Sprintf("%d %s", code, data)
	}
	if code != http.StatusUnprocessableEntity {
		return fmt.Sprintf("%d %s: %s", code, st.Reason, st.Message)
	}
	var causes []string
	for _, c := range st.Details.Causes {
		causes = append(causes, c.Field+" "+c.Reason+" "+c.Message)
	}
	sort.Strings(causes)
	return fmt.Sprintf("%d %s: %s", code, st.Reason, strings.Join(causes, " | "))
}
