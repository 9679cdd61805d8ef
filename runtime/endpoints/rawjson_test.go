package endpoints_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/emicklei/go-restful/v3"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/kubeforge/kubeforge/runtime/endpoints"
	"github.com/kubeforge/kubeforge/runtime/storage"
)

// typedOnly hides the store's storage.JSONReader: its handler takes the
// typed path (decode, then encode) for every response.
type typedOnly struct {
	storage.Interface[*Widget, *WidgetList]
}

// TestJSONReaderResponsesMatchTyped serves the same etcd data through a
// handler over the store (plain JSON gets and lists from stored bytes) and
// one over typedOnly, and compares the bodies byte for byte.
func TestJSONReaderResponsesMatchTyped(t *testing.T) {
	prefix := "/" + t.Name()
	backend := storage.NewBackend(etcdClient, prefix, storage.BackendOptions{})
	wi := widgetInfo
	s := newStrategy(&wi)
	serve := func(store storage.Interface[*Widget, *WidgetList]) *httptest.Server {
		h := endpoints.NewHandler(store, s, endpoints.Options{})
		ws := new(restful.WebService).Path(apiPath).Produces(endpoints.Produces...)
		ws.Route(ws.GET("/widgets").To(h.List))
		ws.Route(ws.GET("/namespaces/{namespace}/widgets").To(h.List))
		ws.Route(ws.POST("/namespaces/{namespace}/widgets").To(h.Create))
		ws.Route(ws.GET("/namespaces/{namespace}/widgets/{name}").To(h.Get))
		ws.Route(ws.PUT("/namespaces/{namespace}/widgets/{name}").To(h.Update))
		ws.Route(ws.GET("/namespaces/{namespace}/widgets/{name}/status").To(h.GetStatus))
		c := restful.NewContainer()
		c.ServiceErrorHandler(endpoints.ServiceErrorHandler)
		c.Add(ws)
		return httptest.NewServer(c)
	}
	fast := serve(storage.NewStore(backend, s))
	typed := serve(typedOnly{storage.NewStore(backend, s)})
	t.Cleanup(func() {
		fast.Close()
		typed.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_, _ = etcdClient.Delete(ctx, prefix+"/", clientv3.WithPrefix())
	})
	do := func(base, method, path, body string, headers ...string) (int, http.Header, []byte) {
		t.Helper()
		var rd io.Reader
		if body != "" {
			rd = bytes.NewReader([]byte(body))
		}
		req, err := http.NewRequest(method, base+path, rd)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", jsonType)
		for i := 0; i+1 < len(headers); i += 2 {
			req.Header.Set(headers[i], headers[i+1])
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		data, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode, resp.Header, data
	}
	bodies := []string{
		`{"metadata":{"name":"plain"},"spec":{"size":"small"}}`,
		`{"metadata":{"name":"labels","labels":{"bench":"true","app":"w"}},"spec":{"size":"large","owner":"bench","ports":[{"name":"http","port":80},{"name":"https","port":443}]}}`,
		`{"metadata":{"name":"unicode","labels":{"bench":"true"},"annotations":{"n":"h\u00e9llo <b>&amp;</b> \"q\" \\ \u2028 日本 😀","e":""}},"spec":{"owner":"grün"}}`,
		`{"metadata":{"generateName":"gen-","finalizers":["kubeforge.dev/f"]},"spec":{}}`,
		`{"metadata":{"name":"empty"}}`,
	}
	for i, b := range bodies {
		for _, ns := range []string{"a", "b"} {
			body := fmt.Sprintf(`{"apiVersion":"%s/v1","kind":"Widget",%s`, testGroup, b[1:])
			if code, _, out := do(fast.URL, "POST", widgetsPath(ns), body, "User-Agent", fmt.Sprintf("writer-%d", i)); code != http.StatusCreated {
				t.Fatalf("create: %d %s", code, out)
			}
		}
	}
	// An update gives "labels" managedFields of two managers.
	_, _, cur := do(fast.URL, "GET", widgetsPath("a")+"/labels", "")
	upd := bytes.Replace(cur, []byte(`"owner":"bench"`), []byte(`"owner":"other"`), 1)
	if code, _, out := do(fast.URL, "PUT", widgetsPath("a")+"/labels", string(upd), "User-Agent", "updater"); code != http.StatusOK {
		t.Fatalf("update: %d %s", code, out)
	}
	if code, _, out := do(fast.URL, "GET", widgetsPath("a")+"/labels", ""); code != http.StatusOK || !bytes.Contains(out, []byte(`"manager":"updater"`)) || !bytes.Contains(out, []byte(`"resourceVersion":"`)) {
		t.Fatalf("get after update: %d %s", code, out)
	}
	paths := []string{
		widgetsPath("a") + "/plain",
		widgetsPath("a") + "/labels",
		widgetsPath("b") + "/unicode",
		widgetsPath("a") + "/empty",
		widgetsPath("a") + "/empty/status",
		widgetsPath("a") + "/missing",
		widgetsPath("a") + "/plain?resourceVersion=0",
		widgetsPath("a") + "/plain?resourceVersion=x",
		widgetsPath("a"),
		widgetsPath("a") + "?labelSelector=bench%3Dtrue",
		widgetsPath("b") + "?fieldSelector=metadata.name%3Dunicode",
		widgetsPath("c"),
		apiPath + "/widgets",
		apiPath + "/widgets?labelSelector=app",
		apiPath + "/widgets?limit=2",
		apiPath + "/widgets?resourceVersion=0",
		apiPath + "/widgets?resourceVersion=1&resourceVersionMatch=Exact",
		apiPath + "/widgets?fieldSelector=spec.size%3Dsmall",
	}
	for round := range 2 { // first read checks, second serves remembered versions
		for _, p := range paths {
			for _, accept := range []string{"", jsonType, "application/yaml", "application/json;as=Table;g=meta.k8s.io;v=v1"} {
				fc, fh, fb := do(fast.URL, "GET", p, "", "Accept", accept)
				tc, th, tb := do(typed.URL, "GET", p, "", "Accept", accept)
				if fc != tc || !bytes.Equal(fb, tb) || fh.Get("Content-Type") != th.Get("Content-Type") {
					t.Errorf("round %d: GET %s (Accept %q):\n fast %d %s %s\ntyped %d %s %s", round, p, accept, fc, fh.Get("Content-Type"), fb, tc, th.Get("Content-Type"), tb)
				}
			}
		}
	}
}
