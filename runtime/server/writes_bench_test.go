package server_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
)

// shipmentBody is the Shipment cmd/bench writes; rv, when set, makes it
// an update's body, which sets priority (cmd/bench creates "Normal" and
// updates to "Urgent": every update writes).
func shipmentBody(name, rv string) string {
	return shipmentBodyWith(name, rv, "Normal")
}

func shipmentBodyWith(name, rv, priority string) string {
	meta := fmt.Sprintf(`"name":%q,"namespace":"default","labels":{"bench":"true"}`, name)
	if rv != "" {
		meta += fmt.Sprintf(`,"resourceVersion":%q`, rv)
	}
	return `{"apiVersion":"shipping.kubeforge.dev/v1","kind":"Shipment","metadata":{` + meta + `},` +
		`"spec":{"priority":` + strconv.Quote(priority) + `,"origin":{"street":"Hauptstr. 1","city":"Berlin"},` +
		`"destination":{"street":"High St 2","city":"London","country":"GB"},` +
		`"parcels":[{"name":"box","weight":"2500","count":2}],"tags":["bench"]}}`
}

// BenchmarkWritesTLS: what cmd/bench's create, update (GET and PUT) and
// delete cost through the whole server (HTTPS, HTTP/2, client
// certificates, the filter chain with RBAC's authorizer, the handlers,
// storage over the embedded etcd), as the admin with "Accept:
// application/json"; cpu-ns/op is the process's CPU (client, server and
// etcd) per operation.
func BenchmarkWritesTLS(b *testing.B) {
	s := startSecureServer(b, "bench-user")
	coll := s.url + "/apis/shipping.kubeforge.dev/v1/namespaces/default/shipments"
	create := func(tb testing.TB, name string) {
		if code := callAccept(tb, s.admin, "POST", coll, shipmentBody(name, ""), "application/json"); code != http.StatusCreated {
			tb.Fatalf("create %s: %d", name, code)
		}
	}
	// run numbers every run of a sub-benchmark: with -count or a fixed
	// -benchtime, b.N repeats, and names made of it alone would collide
	// with the objects of an earlier run.
	run := 0
	b.Run("create", func(b *testing.B) {
		run++
		b.ReportAllocs()
		start := cpuTime(b)
		for i := 0; i < b.N; i++ {
			create(b, fmt.Sprintf("c-%d-%d", run, i))
		}
		b.ReportMetric(float64(cpuTime(b)-start)/float64(b.N), "cpu-ns/op")
	})
	b.Run("update", func(b *testing.B) {
		run++
		name := fmt.Sprintf("u-%d", run)
		create(b, name)
		url := coll + "/" + name
		priorities := [2]string{"Urgent", "Normal"} // each PUT changes the object
		b.ReportAllocs()
		b.ResetTimer()
		start := cpuTime(b)
		for i := 0; i < b.N; i++ {
			rv := resourceVersionOf(b, s.admin, url)
			if code := callAccept(b, s.admin, "PUT", url, shipmentBodyWith(name, rv, priorities[i%2]), "application/json"); code != http.StatusOK {
				b.Fatalf("update: %d", code)
			}
		}
		b.ReportMetric(float64(cpuTime(b)-start)/float64(b.N), "cpu-ns/op")
	})
	b.Run("delete", func(b *testing.B) {
		run++
		for i := 0; i < b.N; i++ {
			create(b, fmt.Sprintf("d-%d-%d", run, i))
		}
		b.ReportAllocs()
		b.ResetTimer()
		start := cpuTime(b)
		for i := 0; i < b.N; i++ {
			if code := callAccept(b, s.admin, "DELETE", coll+fmt.Sprintf("/d-%d-%d", run, i), "", "application/json"); code != http.StatusOK {
				b.Fatalf("delete: %d", code)
			}
		}
		b.ReportMetric(float64(cpuTime(b)-start)/float64(b.N), "cpu-ns/op")
	})
}

// resourceVersionOf GETs url (JSON) and returns its metadata.resourceVersion.
func resourceVersionOf(tb testing.TB, c *http.Client, url string) string {
	tb.Helper()
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		tb.Fatal(err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := c.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	var m struct {
		Metadata struct {
			ResourceVersion string `json:"resourceVersion"`
		} `json:"metadata"`
	}
	data, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || json.Unmarshal(data, &m) != nil || m.Metadata.ResourceVersion == "" {
		tb.Fatalf("get %s: %d %s", url, resp.StatusCode, strings.TrimSpace(string(data)))
	}
	return m.Metadata.ResourceVersion
}

// TestDeleteOptionsOverHTTP2: a DELETE over HTTP/2 reads options from its
// body or its query when it sends them (a stale uid precondition is a 409
// Conflict, an unknown propagationPolicy a 422 Invalid, each a Status, the
// object kept) and deletes when it sends neither (200 Success Status).
func TestDeleteOptionsOverHTTP2(t *testing.T) {
	s := startSecureServer(t, "bench-user")
	coll := s.url + "/apis/shipping.kubeforge.dev/v1/namespaces/default/shipments"
	if code := callAccept(t, s.admin, "POST", coll, shipmentBody("opts", ""), "application/json"); code != http.StatusCreated {
		t.Fatalf("create: %d", code)
	}
	del := func(query, body string) (int, string) {
		var rd io.Reader
		if body != "" {
			rd = strings.NewReader(body)
		}
		req, err := http.NewRequest("DELETE", coll+"/opts"+query, rd)
		if err != nil {
			t.Fatal(err)
		}
		if body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		resp, err := s.admin.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if resp.ProtoMajor != 2 {
			t.Fatalf("answered over %s, want HTTP/2", resp.Proto)
		}
		data, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(data)
	}
	for _, c := range []struct {
		query, body string
		code        int
		want        string
	}{
		{"", `{"kind":"DeleteOptions","apiVersion":"meta.k8s.io/v1","preconditions":{"uid":"stale"}}`, http.StatusConflict, `"reason":"Conflict"`},
		{"?propagationPolicy=Sideways", "", http.StatusUnprocessableEntity, `"reason":"Invalid"`},
		{"", `{"propagationPolicy":"Sideways"}`, http.StatusUnprocessableEntity, `"reason":"Invalid"`},
		{"", "", http.StatusOK, `"status":"Success"`},
	} {
		code, body := del(c.query, c.body)
		if code != c.code || !strings.Contains(body, `"kind":"Status"`) || !strings.Contains(body, c.want) {
			t.Errorf("DELETE%s with body %q: %d %s, want %d with %s", c.query, c.body, code, body, c.code, c.want)
		}
	}
	if code := callAccept(t, s.admin, "GET", coll+"/opts", "", "application/json"); code != http.StatusNotFound {
		t.Errorf("after the delete: GET %d, want 404", code)
	}
}
