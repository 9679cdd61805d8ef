package endpoints_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/emicklei/go-restful/v3"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/kubeforge/kubeforge/runtime/endpoints"
	"github.com/kubeforge/kubeforge/runtime/storage"
)

// benchServer serves widgets over its own etcd prefix, for benchmarks.
func benchServer(b *testing.B) string {
	b.Helper()
	prefix := "/" + strings.ReplaceAll(b.Name(), "/", "_")
	stop := make(chan struct{})
	backend := storage.NewBackend(etcdClient, prefix, storage.BackendOptions{})
	ws := new(restful.WebService).Path(apiPath).Produces(endpoints.Produces...)
	wi := widgetInfo
	install(ws, backend, newStrategy(&wi), endpoints.Options{Stop: stop})
	c := restful.NewContainer()
	c.ServiceErrorHandler(endpoints.ServiceErrorHandler)
	c.Add(ws)
	srv := httptest.NewServer(c)
	b.Cleanup(func() {
		close(stop)
		srv.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_, _ = etcdClient.Delete(ctx, prefix+"/", clientv3.WithPrefix())
	})
	return srv.URL
}

func benchDo(b *testing.B, method, url string, body []byte, want int) []byte {
	b.Helper()
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		b.Fatal(err)
	}
	req.Header.Set("Accept", jsonType)
	if body != nil {
		req.Header.Set("Content-Type", jsonType)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		b.Fatal(err)
	}
	if resp.StatusCode != want {
		b.Fatalf("%s %s: HTTP %d, want %d: %.300s", method, url, resp.StatusCode, want, data)
	}
	return data
}

func benchWidget(ns, name string) []byte {
	return []byte(fmt.Sprintf(`{"apiVersion":"%s/v1","kind":"Widget","metadata":{"name":%q,"namespace":%q,"labels":{"bench":"true"}},"spec":{"size":"large","owner":"bench","ports":[{"name":"http","port":80},{"name":"https","port":443}]}}`, testGroup, name, ns))
}

// fill stores n widgets straight through the store's HTTP create path.
func fill(b *testing.B, base string, n int) {
	b.Helper()
	for i := 0; i < n; i++ {
		ns := fmt.Sprintf("ns%d", i%10)
		benchDo(b, "POST", base+widgetsPath(ns), benchWidget(ns, fmt.Sprintf("w%05d", i)), http.StatusCreated)
	}
}

// BenchmarkList10k is one list of 10,000 widgets over HTTP with a label
// selector, decoded by the client only as far as counting the items.
func BenchmarkList10k(b *testing.B) {
	base := benchServer(b)
	fill(b, base, 10000)
	url := base + apiPath + "/widgets?labelSelector=bench%3Dtrue"
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		data := benchDo(b, "GET", url, nil, http.StatusOK)
		var l struct {
			Items []json.RawMessage `json:"items"`
		}
		if err := json.Unmarshal(data, &l); err != nil {
			b.Fatal(err)
		}
		if len(l.Items) != 10000 {
			b.Fatalf("%d items", len(l.Items))
		}
	}
}

func BenchmarkGet(b *testing.B) {
	base := benchServer(b)
	fill(b, base, 1)
	url := base + widgetsPath("ns0") + "/w00000"
	b.ReportAllocs()
	for b.Loop() {
		benchDo(b, "GET", url, nil, http.StatusOK)
	}
}

func BenchmarkCreate(b *testing.B) {
	base := benchServer(b)
	url := base + widgetsPath("ns0")
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		benchDo(b, "POST", url, benchWidget("ns0", fmt.Sprintf("w%07d", i)), http.StatusCreated)
		i++
	}
}

func BenchmarkUpdate(b *testing.B) {
	base := benchServer(b)
	fill(b, base, 1)
	url := base + widgetsPath("ns0") + "/w00000"
	b.ReportAllocs()
	for b.Loop() {
		var cur Widget
		if err := json.Unmarshal(benchDo(b, "GET", url, nil, http.StatusOK), &cur); err != nil {
			b.Fatal(err)
		}
		cur.Spec.Owner = fmt.Sprintf("o%d", cur.Generation)
		body, err := json.Marshal(&cur)
		if err != nil {
			b.Fatal(err)
		}
		benchDo(b, "PUT", url, body, http.StatusOK)
	}
}
