package endpoints_test

import (
	"bytes"
	"context"
	"fmt"
	"github.com/kubeforge/kubeforge/runtime/presence"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/emicklei/go-restful/v3"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/kubeforge/kubeforge/runtime/endpoints"
	"github.com/kubeforge/kubeforge/runtime/resource"
	"github.com/kubeforge/kubeforge/runtime/storage"
)

// pagesServers serves one etcd prefix through a handler over a store
// (plain JSON lists from stored bytes) and one over typedOnly (decode,
// then encode), both with a watch cache or both without; decodes counts
// the stored objects the first one decodes.
func pagesServers(t *testing.T, cached bool) (fast, typed string, decodes *atomic.Int64) {
	t.Helper()
	prefix := "/" + strings.ReplaceAll(t.Name(), "/", "_")
	backend := storage.NewBackend(etcdClient, prefix, storage.BackendOptions{WatchCache: cached})
	wi, wi2 := widgetInfo, widgetInfo
	s, s2 := newStrategy(&wi), newStrategy(&wi2)
	decodes = new(atomic.Int64)
	def := s.Default
	s.Default = func(w *Widget, in presence.Node) { decodes.Add(1); def(w, in) }
	serve := func(store storage.Interface[*Widget, *WidgetList], s *resource.Strategy[*Widget, *WidgetList]) *httptest.Server {
		h := endpoints.NewHandler(store, s, endpoints.Options{})
		ws := new(restful.WebService).Path(apiPath).Produces(endpoints.Produces...)
		ws.Route(ws.GET("/widgets").To(h.List))
		ws.Route(ws.GET("/namespaces/{namespace}/widgets").To(h.List))
		ws.Route(ws.POST("/namespaces/{namespace}/widgets").To(h.Create))
		ws.Route(ws.DELETE("/namespaces/{namespace}/widgets/{name}").To(h.Delete))
		c := restful.NewContainer()
		c.ServiceErrorHandler(endpoints.ServiceErrorHandler)
		c.Add(ws)
		return httptest.NewServer(c)
	}
	f := serve(storage.NewStore(backend, s), s)
	ty := serve(typedOnly{storage.NewStore(backend, s2)}, s2)
	t.Cleanup(func() {
		f.Close()
		ty.Close()
		backend.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_, _ = etcdClient.Delete(ctx, prefix+"/", clientv3.WithPrefix())
	})
	return f.URL, ty.URL, decodes
}

// get is one request's status and body.
func get(t *testing.T, method, u, body string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, u, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", jsonType)
	req.Header.Set("Content-Type", jsonType)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, data
}

// walkBodies lists path a page at a time from both servers, from the
// token cont on, and fails unless every response is byte for byte the
// same; the next page's token is taken from the fast server's body and
// the typed server's in turn.
// between runs after each page. It returns the bodies.
func walkBodies(t *testing.T, fast, typed, path, cont string, between func(page int)) [][]byte {
	t.Helper()
	var bodies [][]byte
	for i := 0; i < 1000; i++ {
		u := path
		if cont != "" {
			u += "&continue=" + url.QueryEscape(cont)
		}
		fc, fb := get(t, "GET", fast+u, "")
		tc, tb := get(t, "GET", typed+u, "")
		if fc != tc || !bytes.Equal(fb, tb) {
			t.Fatalf("GET %s, page %d:\n fast %d %s\ntyped %d %s", path, i, fc, fb, tc, tb)
		}
		bodies = append(bodies, fb)
		cont = continueOf(fb)
		if i%2 == 1 {
			cont = continueOf(tb)
		}
		if cont == "" || fc != http.StatusOK {
			return bodies
		}
		if between != nil {
			between(i)
		}
	}
	t.Fatalf("GET %s: no last page", path)
	return nil
}

// TestListPagesMatchTyped: every page of paginated plain JSON lists (from
// the watch cache, and from etcd) is byte for byte the typed path's
// response, whole walks included: continue tokens, remainingItemCount
// (absent with selectors), resourceVersion, an empty last page; and so
// are the errors: a malformed token (400), a token with a resourceVersion
// (400), a token whose revision was compacted (410 Expired with a token
// that continues at the latest revision, then followed).
func TestListPagesMatchTyped(t *testing.T) {
	for _, cached := range []bool{true, false} {
		t.Run(fmt.Sprintf("cache=%v", cached), func(t *testing.T) {
			fast, typed, decodes := pagesServers(t, cached)
			for i := range 45 {
				ns := fmt.Sprintf("ns%d", i%3)
				labels := `"labels":{"bench":"true","tier":"t` + fmt.Sprint(i%4) + `"},`
				if i%3 == 1 {
					labels = ""
				}
				body := fmt.Sprintf(`{"apiVersion":"%s/v1","kind":"Widget","metadata":{"name":"w%02d",%s"annotations":{"n":"h\u00e9llo <b>&amp;</b> \"q\" \u2028"}},"spec":{"size":"large","ports":[{"name":"http","port":80}]}}`, testGroup, i, labels)
				if code, out := get(t, "POST", fast+widgetsPath(ns), body); code != http.StatusCreated {
					t.Fatalf("create: %d %s", code, out)
				}
			}
			emptyLast := false
			for _, q := range []string{"", "&labelSelector=bench%3Dtrue", "&labelSelector=tier", "&labelSelector=tier%3Dt3", "&labelSelector=missing", "&fieldSelector=metadata.name%21%3Dw07", "&fieldSelector=metadata.name%3Dw35", "&resourceVersion=0"} {
				for _, limit := range []int{1, 6, 500} {
					for _, coll := range []string{apiPath + "/widgets", widgetsPath("ns2")} {
						bodies := walkBodies(t, fast, typed, fmt.Sprintf("%s?limit=%d%s", coll, limit, q), "", nil)
						last := bodies[len(bodies)-1]
						emptyLast = emptyLast || (len(bodies) > 1 && bytes.HasSuffix(last, []byte(`"items":[]}`+"\n")))
					}
				}
			}
			if !emptyLast {
				t.Error("no walk ended on an empty page")
			}
			// The fast server's pages are the stored bytes: read again,
			// they decode nothing (from etcd, the versions the first
			// walk checked are remembered; the cache's decoded objects
			// are collected first, as the typed path would decode them).
			runtime.GC()
			d0 := decodes.Load()
			if pages := walkBodies(t, fast, typed, apiPath+"/widgets?limit=6&labelSelector=bench%3Dtrue", "", nil); len(pages) < 4 {
				t.Fatalf("%d pages", len(pages))
			}
			if d := decodes.Load() - d0; d != 0 {
				t.Errorf("paginated JSON lists decoded %d stored objects", d)
			}
			// Writes between pages: later pages stay at the list's revision.
			n := 0
			walkBodies(t, fast, typed, apiPath+"/widgets?limit=8", "", func(int) {
				n++
				body := fmt.Sprintf(`{"apiVersion":"%s/v1","kind":"Widget","metadata":{"name":"late%d"},"spec":{}}`, testGroup, n)
				if code, out := get(t, "POST", fast+widgetsPath("ns0"), body); code != http.StatusCreated {
					t.Fatalf("create: %d %s", code, out)
				}
				if code, out := get(t, "DELETE", fast+widgetsPath("ns1")+fmt.Sprintf("/w%02d", 3*n+1), ""); code != http.StatusOK {
					t.Fatalf("delete: %d %s", code, out)
				}
			})
			for _, tok := range []string{"!!!", "eyJ2IjoibWV0YS5rOHMuaW8vdjIifQ"} {
				bodies := walkBodies(t, fast, typed, apiPath+"/widgets?limit=2", tok, nil)
				if !bytes.Contains(bodies[0], []byte(`"code":400`)) {
					t.Errorf("continue=%s: %s, want a 400", tok, bodies[0])
				}
			}
			_, first := get(t, "GET", fast+apiPath+"/widgets?limit=5", "")
			tok := continueOf(first)
			bodies := walkBodies(t, fast, typed, apiPath+"/widgets?limit=5&resourceVersion=7", tok, nil)
			if !bytes.Contains(bodies[0], []byte(`"code":400`)) {
				t.Errorf("continue with a resourceVersion: %s, want a 400", bodies[0])
			}
			// Compacted past the token's revision.
			body := fmt.Sprintf(`{"apiVersion":"%s/v1","kind":"Widget","metadata":{"name":"newest"},"spec":{}}`, testGroup)
			if code, out := get(t, "POST", fast+widgetsPath("ns2"), body); code != http.StatusCreated {
				t.Fatalf("create: %d %s", code, out)
			}
			resp, err := etcdClient.Get(context.Background(), "/nothing")
			if err != nil {
				t.Fatal(err)
			}
			if _, err := etcdClient.Compact(context.Background(), resp.Header.Revision); err != nil {
				t.Fatal(err)
			}
			bodies = walkBodies(t, fast, typed, apiPath+"/widgets?limit=5", tok, nil)
			if !bytes.Contains(bodies[0], []byte(`"code":410`)) || !bytes.Contains(bodies[0], []byte(`"reason":"Expired"`)) {
				t.Fatalf("compacted token: %s, want a 410 Expired", bodies[0])
			}
			fresh := continueOf(bodies[0])
			if fresh == "" {
				t.Fatalf("compacted token: %s, want a fresh continue token", bodies[0])
			}
			bodies = walkBodies(t, fast, typed, apiPath+"/widgets?limit=5", fresh, nil)
			if !bytes.Contains(bytes.Join(bodies, nil), []byte(`"name":"newest"`)) {
				t.Error("the walk after compaction misses the newest object")
			}
		})
	}
}
