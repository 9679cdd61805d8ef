package generated_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/kubeforge/kubeforge/generated"
	"github.com/kubeforge/kubeforge/runtime/server"
)

const (
	v1Path     = "/apis/shipping.kubeforge.dev/v1/namespaces/default/shipments"
	alphaPath  = "/apis/shipping.kubeforge.dev/v1alpha1/namespaces/default/shipments"
	annotation = "kubeforge.dev/conversion-data"
)

// startServer runs the apiserver with every generated group on an embedded
// etcd and returns its URL.
func startServer(t *testing.T) string {
	t.Helper()
	return startServerWith(t, server.Config{}).URL()
}

// startServerWith runs the apiserver with every generated group on an
// embedded etcd, configured by cfg (data directory, port and logger are
// the test's), and returns it ready.
func startServerWith(t *testing.T, cfg server.Config) *server.Server {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cfg.DataDir, cfg.Port, cfg.Logger = t.TempDir(), 0, slog.New(slog.NewTextHandler(io.Discard, nil))
	// These tests are about the API, not security (see runtime/server).
	cfg.PlainHTTP = true
	s, err := server.New(ctx, cfg)
	if err != nil {
		cancel()
		t.Fatalf("new server: %v", err)
	}
	if err := generated.Install(s); err != nil {
		cancel()
		t.Fatalf("install: %v", err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	stopped := false // Run returned before the server was ready
	t.Cleanup(func() {
		cancel()
		if stopped {
			return
		}
		select {
		case <-done:
		case <-time.After(60 * time.Second):
			t.Error("server did not stop within 60 s")
		}
	})
	select {
	case <-s.Ready():
	case err := <-done:
		stopped = true
		t.Fatalf("run: %v", err)
	case <-time.After(60 * time.Second):
		t.Fatal("server not ready after 60 s")
	}
	return s
}

type obj = map[string]any

// call sends a JSON request and returns the status code and decoded body.
func call(t *testing.T, method, url string, body any, contentType string) (int, obj) {
	t.Helper()
	var r io.Reader
	if body != nil {
		data, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		r = bytes.NewReader(data)
	}
	req, err := http.NewRequest(method, url, r)
	if err != nil {
		t.Fatal(err)
	}
	if contentType == "" {
		contentType = "application/json"
	}
	req.Header.Set("Content-Type", contentType)
	req.Header.Set("Accept", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	var out obj
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &out); err != nil {
			t.Fatalf("%s %s: %d, body is not JSON: %s", method, url, resp.StatusCode, raw)
		}
	}
	return resp.StatusCode, out
}

func mustCall(t *testing.T, want int, method, url string, body any, contentType string) obj {
	t.Helper()
	code, out := call(t, method, url, body, contentType)
	if code != want {
		t.Fatalf("%s %s: %d, want %d: %v", method, url, code, want, out)
	}
	return out
}

// get walks a decoded object by keys and indexes: get(o, "spec", "parcels", 0, "name").
func get(o any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, ok := o.(obj)
			if !ok {
				return nil
			}
			o = m[k]
		case int:
			l, ok := o.([]any)
			if !ok || k >= len(l) {
				return nil
			}
			o = l[k]
		}
	}
	return o
}

func want(t *testing.T, o obj, value any, path ...any) {
	t.Helper()
	if got := get(o, path...); !jsonEqual(got, value) {
		t.Fatalf("%v = %#v, want %#v in\n%v", path, got, value, o)
	}
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

type event struct {
	Type   string `json:"type"`
	Object obj    `json:"object"`
}

// watch streams the events of url?watch=1 from now on (url may have a
// query of its own: url&watch=1).
func watch(t *testing.T, url string) <-chan event {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	sep := "?"
	if strings.Contains(url, "?") {
		sep = "&"
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url+sep+"watch=1", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("watch %s: %d", url, resp.StatusCode)
	}
	ch := make(chan event, 100)
	go func() {
		defer resp.Body.Close()
		defer close(ch)
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			var ev event
			if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
				return
			}
			ch <- ev
		}
	}()
	return ch
}

func nextEvent(t *testing.T, ch <-chan event) event {
	t.Helper()
	select {
	case ev, ok := <-ch:
		if !ok {
			t.Fatal("watch ended")
		}
		return ev
	case <-time.After(10 * time.Second):
		t.Fatal("no watch event in 10 s")
	}
	return event{}
}

// TestShippingVersions drives shipments through both served versions over
// HTTP: v1 (storage) and v1alpha1 (converted).
func TestShippingVersions(t *testing.T) {
	base := startServer(t)

	// Discovery lists both versions, v1 (the storage version) preferred.
	groups := mustCall(t, 200, "GET", base+"/apis", nil, "")
	var shipping obj
	for _, g := range get(groups, "groups").([]any) {
		if get(g, "name") == "shipping.kubeforge.dev" {
			shipping = g.(obj)
		}
	}
	want(t, shipping, "shipping.kubeforge.dev/v1", "preferredVersion", "groupVersion")
	var gvs []string
	for _, v := range get(shipping, "versions").([]any) {
		gvs = append(gvs, get(v, "groupVersion").(string))
	}
	if strings.Join(gvs, " ") != "shipping.kubeforge.dev/v1 shipping.kubeforge.dev/v1alpha1" {
		t.Fatalf("shipping versions %v, want v1 then v1alpha1", gvs)
	}
	res := mustCall(t, 200, "GET", base+"/apis/shipping.kubeforge.dev/v1alpha1", nil, "")
	want(t, res, "shipping.kubeforge.dev/v1alpha1", "groupVersion")
	var names []string
	for _, r := range get(res, "resources").([]any) {
		names = append(names, get(r, "name").(string))
	}
	if strings.Join(names, " ") != "shipments shipments/status" {
		t.Fatalf("v1alpha1 resources %v", names)
	}

	events := watch(t, base+alphaPath)

	// Create through v1alpha1 with a parcel: v1's weight is optional (a field
	// added in a newer version must be), so the object stores and reads back
	// through v1 without a weight (a zero Quantity with omitempty, left out
	// as kube leaves out what was not sent).
	mustCall(t, 201, "POST", base+alphaPath, obj{
		"apiVersion": "shipping.kubeforge.dev/v1alpha1", "kind": "Shipment",
		"metadata": obj{"name": "s0"},
		"spec": obj{
			"from":        obj{"street": "1 Old Road", "city": "Bonn"},
			"destination": obj{"street": "2 New Road", "city": "Köln"},
			"parcels":     []obj{{"name": "box"}},
		},
	}, "")
	if ev := nextEvent(t, events); ev.Type != "ADDED" {
		t.Fatalf("event %s, want ADDED", ev.Type)
	}
	s0 := mustCall(t, 200, "GET", base+v1Path+"/s0", nil, "")
	if _, ok := s0["spec"].(map[string]any)["parcels"].([]any)[0].(map[string]any)["weight"]; ok {
		t.Errorf("a parcel created without weight reads back with one: %v", s0["spec"])
	}
	want(t, s0, "Bonn", "spec", "origin", "city")
	mustCall(t, 200, "DELETE", base+alphaPath+"/s0", nil, "")
	if ev := nextEvent(t, events); ev.Type != "DELETED" {
		t.Fatalf("event %s, want DELETED", ev.Type)
	}
	// With the weight in the conversion annotation (as a v1alpha1 client
	// that read a v1 object sends it back), v1alpha1 defaults apply (parcel
	// count 1).
	created := mustCall(t, 201, "POST", base+alphaPath, obj{
		"apiVersion": "shipping.kubeforge.dev/v1alpha1", "kind": "Shipment",
		"metadata": obj{"name": "s1", "labels": obj{"team": "a"}, "annotations": obj{
			annotation: `{"spec":{"parcels":[{"name":"box","weight":"2k"}]}}`,
		}},
		"spec": obj{
			"from":        obj{"street": "1 Old Road", "city": "Bonn"},
			"destination": obj{"street": "2 New Road", "city": "Köln"},
			"urgent":      true,
			"parcels":     []obj{{"name": "box"}},
		},
	}, "")
	want(t, created, "shipping.kubeforge.dev/v1alpha1", "apiVersion")
	want(t, created, "Bonn", "spec", "from", "city")
	want(t, created, 1, "spec", "parcels", 0, "count")
	ev := nextEvent(t, events)
	if ev.Type != "ADDED" {
		t.Fatalf("event %s, want ADDED", ev.Type)
	}
	want(t, ev.Object, "shipping.kubeforge.dev/v1alpha1", "apiVersion")
	want(t, ev.Object, "Bonn", "spec", "from", "city")

	// Read through v1: origin and priority.
	v1obj := mustCall(t, 200, "GET", base+v1Path+"/s1", nil, "")
	want(t, v1obj, "shipping.kubeforge.dev/v1", "apiVersion")
	want(t, v1obj, "Bonn", "spec", "origin", "city")
	want(t, v1obj, "Urgent", "spec", "priority")
	want(t, v1obj, 1, "spec", "parcels", 0, "count")
	want(t, v1obj, "2k", "spec", "parcels", 0, "weight")
	want(t, v1obj, nil, "spec", "from")
	want(t, v1obj, nil, "metadata", "annotations")

	// v1-only fields written through v1...
	patched := mustCall(t, 200, "PATCH", base+v1Path+"/s1", obj{"spec": obj{
		"tags": []string{"fragile-goods"}, "notify": "ops@example.dev",
		"origin": obj{"street": "1 Old Road", "city": "Bonn", "postalCode": "53111"},
	}}, "application/merge-patch+json")
	want(t, patched, []string{"fragile-goods"}, "spec", "tags")
	ev = nextEvent(t, events)
	if ev.Type != "MODIFIED" {
		t.Fatalf("event %s, want MODIFIED", ev.Type)
	}
	want(t, ev.Object, "shipping.kubeforge.dev/v1alpha1", "apiVersion")
	want(t, ev.Object, nil, "spec", "tags")
	if a, _ := get(ev.Object, "metadata", "annotations", annotation).(string); !strings.Contains(a, "fragile-goods") {
		t.Fatalf("watched v1alpha1 object does not keep the v1 tags in %s: %v", annotation, ev.Object)
	}

	// ...survive a read-modify-write (PUT) through v1alpha1.
	alpha := mustCall(t, 200, "GET", base+alphaPath+"/s1", nil, "")
	want(t, alpha, "Bonn", "spec", "from", "city")
	want(t, alpha, true, "spec", "urgent")
	alpha["spec"].(obj)["destination"].(obj)["city"] = "Düsseldorf"
	put := mustCall(t, 200, "PUT", base+alphaPath+"/s1", alpha, "")
	want(t, put, "Düsseldorf", "spec", "destination", "city")
	want(t, put, "shipping.kubeforge.dev/v1alpha1", "apiVersion")
	nextEvent(t, events)
	v1obj = mustCall(t, 200, "GET", base+v1Path+"/s1", nil, "")
	want(t, v1obj, "Düsseldorf", "spec", "destination", "city")
	want(t, v1obj, []string{"fragile-goods"}, "spec", "tags")
	want(t, v1obj, "ops@example.dev", "spec", "notify")
	want(t, v1obj, "53111", "spec", "origin", "postalCode")
	want(t, v1obj, "Urgent", "spec", "priority")
	want(t, v1obj, nil, "metadata", "annotations")
	want(t, v1obj, 3, "metadata", "generation")

	// A merge patch through v1alpha1 converts too, and keeps the tags.
	mustCall(t, 200, "PATCH", base+alphaPath+"/s1", obj{"spec": obj{"urgent": false}}, "application/merge-patch+json")
	nextEvent(t, events)
	v1obj = mustCall(t, 200, "GET", base+v1Path+"/s1", nil, "")
	want(t, v1obj, "Normal", "spec", "priority")
	want(t, v1obj, []string{"fragile-goods"}, "spec", "tags")

	// Status subresource through v1alpha1.
	st := mustCall(t, 200, "PATCH", base+alphaPath+"/s1/status", obj{"status": obj{"phase": "InTransit"}}, "application/merge-patch+json")
	want(t, st, "InTransit", "status", "phase")
	nextEvent(t, events)
	want(t, mustCall(t, 200, "GET", base+v1Path+"/s1/status", nil, ""), "InTransit", "status", "phase")
	// Each version validates its own writes, by its own OpenAPI schema, as
	// kube-apiserver serves several versions of a kind: v1's phase is an
	// enum, v1alpha1's a free-form string. Through v1 the value is refused.
	code, status := call(t, "PATCH", base+v1Path+"/s1/status", obj{"status": obj{"phase": "Teleported"}}, "application/merge-patch+json")
	if code != 422 {
		t.Fatalf("a phase outside v1's enum through v1: %d %v", code, status)
	}
	want(t, status, "status.phase", "details", "causes", 0, "field")

	// v1alpha1 validation reports v1alpha1 field paths; nothing is stored.
	code, status = call(t, "POST", base+alphaPath, obj{
		"apiVersion": "shipping.kubeforge.dev/v1alpha1", "kind": "Shipment",
		"metadata": obj{"name": "bad"},
		"spec": obj{
			"from":        obj{"street": "x", "city": "y", "country": "DEU"},
			"destination": obj{"street": "x", "city": "y"},
		},
	}, "")
	if code != 422 || get(status, "kind") != "Status" || get(status, "reason") != "Invalid" {
		t.Fatalf("invalid v1alpha1 create: %d %v", code, status)
	}
	want(t, status, "spec.from.country", "details", "causes", 0, "field")
	mustCall(t, 404, "GET", base+v1Path+"/bad", nil, "")

	// A v1 object created through v1 reads through v1alpha1; lists convert
	// with selectors and pagination.
	mustCall(t, 201, "POST", base+v1Path, obj{
		"apiVersion": "shipping.kubeforge.dev/v1", "kind": "Shipment",
		"metadata": obj{"name": "s2", "labels": obj{"team": "a"}},
		"spec": obj{
			"priority":    "Urgent",
			"origin":      obj{"street": "3 Lane", "city": "Hamburg"},
			"destination": obj{"street": "4 Lane", "city": "Bremen"},
			"parcels":     []obj{{"name": "crate", "weight": "2k"}},
		},
	}, "")
	ev = nextEvent(t, events)
	if ev.Type != "ADDED" {
		t.Fatalf("event %s, want ADDED", ev.Type)
	}
	want(t, ev.Object, "Hamburg", "spec", "from", "city")
	want(t, ev.Object, true, "spec", "urgent")
	page := mustCall(t, 200, "GET", base+alphaPath+"?labelSelector=team%3Da&limit=1", nil, "")
	want(t, page, "ShipmentList", "kind")
	want(t, page, "shipping.kubeforge.dev/v1alpha1", "apiVersion")
	want(t, page, "s1", "items", 0, "metadata", "name")
	want(t, page, "Bonn", "items", 0, "spec", "from", "city")
	cont, _ := get(page, "metadata", "continue").(string)
	if cont == "" {
		t.Fatalf("first page without continue: %v", page)
	}
	page2 := mustCall(t, 200, "GET", base+alphaPath+"?labelSelector=team%3Da&limit=1&continue="+cont, nil, "")
	want(t, page2, "s2", "items", 0, "metadata", "name")
	want(t, page2, "Hamburg", "items", 0, "spec", "from", "city")
	want(t, page2, get(page, "metadata", "resourceVersion"), "metadata", "resourceVersion")

	// kubectl get shipments.v1alpha1.shipping.kubeforge.dev: a Table.
	req, err := http.NewRequest("GET", base+alphaPath, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "application/json;as=Table;v=v1;g=meta.k8s.io,application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var table obj
	err = json.NewDecoder(resp.Body).Decode(&table)
	resp.Body.Close()
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("table: %d %v", resp.StatusCode, err)
	}
	want(t, table, "Table", "kind")
	want(t, table, "s1", "rows", 0, "cells", 0)
	want(t, table, "s2", "rows", 1, "cells", 0)

	// Deleting through v1 is seen through the v1alpha1 watch as a
	// v1alpha1 object; deleting through v1alpha1 returns one.
	mustCall(t, 200, "DELETE", base+v1Path+"/s2", nil, "")
	ev = nextEvent(t, events)
	if ev.Type != "DELETED" {
		t.Fatalf("event %s, want DELETED", ev.Type)
	}
	want(t, ev.Object, "shipping.kubeforge.dev/v1alpha1", "apiVersion")
	want(t, ev.Object, "Hamburg", "spec", "from", "city")
	del := mustCall(t, 200, "DELETE", base+alphaPath+"/s1", nil, "")
	if get(del, "kind") == "Shipment" {
		want(t, del, "shipping.kubeforge.dev/v1alpha1", "apiVersion")
	}
	mustCall(t, 404, "GET", base+v1Path+"/s1", nil, "")
}
