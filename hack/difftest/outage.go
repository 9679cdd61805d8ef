package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/kubeforge/kubeforge/runtime/etcd"
)

// etcdOf is a server's external etcd for the outage run.
type etcdOf struct {
	dir, sock string
	e         *etcd.Embedded
}

func (x *etcdOf) start() error {
	if err := os.MkdirAll(filepath.Dir(x.dir), 0o700); err != nil {
		return fmt.Errorf("etcd dir: %w", err)
	}
	e, err := etcd.StartEmbedded(context.Background(), x.dir, etcd.WithClientSocket(x.sock), etcd.WithLogLevel("fatal"))
	if err != nil {
		return fmt.Errorf("start etcd: %w", err)
	}
	x.e = e
	return nil
}

// outageCorpus is sent to both servers while their etcd is down.
func outageCorpus() []req {
	var rs []req
	for _, r := range resources {
		item := r.coll + "/" + r.name
		rs = append(rs,
			req{method: "GET", path: item, user: "admin"},
			req{method: "GET", path: item, user: "admin", accept: "application/yaml"},
			req{method: "GET", path: item + "/status", user: "admin"},
			req{method: "GET", path: r.coll, user: "admin"},
			req{method: "GET", path: r.coll, user: "admin", accept: "application/json;as=Table;v=v1;g=meta.k8s.io"},
			req{method: "GET", path: r.coll + "?watch=true&timeoutSeconds=1", user: "admin"},
			req{method: "GET", path: item, user: "sa"},
			req{method: "GET", path: item, user: "anon"},
			req{method: "POST", path: r.coll, user: "admin", ct: "application/json", body: r.body("during-outage")},
			req{method: "PATCH", path: item, user: "admin", ct: "application/merge-patch+json", body: `{"metadata":{"labels":{"o":"x"}}}`},
			req{method: "PUT", path: item, user: "admin", ct: "application/json", body: r.body(r.name)},
			req{method: "DELETE", path: item + "?dryRun=All", user: "admin"},
			req{method: "POST", path: r.coll, user: "admin", ct: "garbage", body: "{}"},
			req{method: "FOO", path: item, user: "admin"},
		)
	}
	for _, p := range []string{"/api", "/apis", "/apis/shipping.kubeforge.dev/v1", "/openapi/v2", "/version", "/healthz", "/livez",
		"/readyz", "/readyz/verbose", "/readyz?exclude=etcd", "/livez/verbose", "/healthz/etcd"} {
		rs = append(rs, req{method: "GET", path: p, user: "admin"})
	}
	rs = append(rs,
		req{method: "POST", path: "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", user: "admin", ct: "application/json",
			body: `{"apiVersion":"authorization.k8s.io/v1","kind":"SelfSubjectAccessReview","spec":{"resourceAttributes":{"verb":"get","resource":"configmaps","namespace":"default"}}}`},
		req{method: "POST", path: "/apis/authentication.k8s.io/v1/selfsubjectreviews", user: "admin", ct: "application/json",
			body: `{"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"}`},
		req{method: "POST", path: "/apis/authentication.k8s.io/v1/selfsubjectreviews", user: "sa", ct: "application/json",
			body: `{"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"}`},
	)
	return rs
}

// inflight are requests started before the outage and answered during it.
func inflight() []req {
	return []req{
		{method: "GET", path: cmGroup + "?watch=true&timeoutSeconds=8", user: "admin", note: "watch across the outage"},
		{method: "POST", path: cmGroup, user: "admin", ct: "application/json", body: cmBody("inflight"), short: true},
		{method: "PATCH", path: shpGroup + "/s1", user: "admin", ct: "application/merge-patch+json", body: "{}", short: true},
		{method: "GET", path: whGroup + "?resourceVersion=99999999", user: "admin"},
	}
}

// outage runs the outage comparison: in-flight requests, both etcds
// stopped, the outage corpus, etcds back, a few requests after.
func outage(servers []*server, etcds []*etcdOf, w, dump io.Writer) (diffs, n int, err error) {
	compareOne := func(r req, a, b result) {
		n++
		fmt.Fprintf(dump, "%d %s %s | %.200q\n", a.status, a.headers["Content-Type"], r.label(), a.body)
		if d := compare(a, b); d != "" {
			diffs++
			fmt.Fprintf(w, "=== DIFF (etcd outage) %s\n%s\n", r.label(), d)
		}
	}
	for _, r := range fixtures() {
		compareOne(r, servers[0].do(r), servers[1].do(r))
	}
	flight := inflight()
	results := make([][]result, len(servers))
	var wg sync.WaitGroup
	for i, s := range servers {
		results[i] = make([]result, len(flight))
		for j, r := range flight {
			wg.Add(1)
			go func() {
				defer wg.Done()
				results[i][j] = s.do(r)
			}()
		}
	}
	time.Sleep(time.Second)
	for _, e := range etcds {
		if err := e.e.Close(); err != nil {
			return diffs, n, fmt.Errorf("stop etcd: %w", err)
		}
	}
	for _, s := range servers {
		s.awaitStatus(req{method: "GET", path: "/api/v1/namespaces/default", user: "admin"}, 503)
	}
	for _, r := range outageCorpus() {
		compareOne(r, servers[0].do(r), servers[1].do(r))
	}
	wg.Wait()
	for j, r := range flight {
		compareOne(r, results[0][j], results[1][j])
	}
	for _, e := range etcds {
		if err := e.start(); err != nil {
			return diffs, n, err
		}
	}
	for _, s := range servers {
		s.awaitStatus(req{method: "GET", path: "/api/v1/namespaces/default", user: "admin"}, 200)
	}
	for _, r := range outageCorpus()[:12] {
		compareOne(r, servers[0].do(r), servers[1].do(r))
	}
	return diffs, n, nil
}

// awaitStatus repeats r (up to 30 s) until it is answered with code.
func (s *server) awaitStatus(r req, code int) {
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		if s.do(r).status == code {
			return
		}
	}
}

func etcdFor(dir string) *etcdOf {
	return &etcdOf{dir: filepath.Join(dir, "etcd-ext"), sock: filepath.Join(dir, "etcd-ext.sock")}
}
