// Command difftest sends the same corpus of requests to two builds of
// cmd/apiserver and reports every difference in status, headers and
// (normalised) bodies: a differential test of a change to the request path.
//
//	(cd /path/to/base/tree && go build -o /tmp/apiserver-base ./cmd/apiserver)
//	go build -o /tmp/apiserver-new ./cmd/apiserver
//	go run ./hack/difftest -base /tmp/apiserver-base -new /tmp/apiserver-new -out diffs.txt
//	go run ./hack/difftest -base ... -new ... -request-timeout 2s   # + requests that outlast it
//	go run ./hack/difftest -base ... -new ... -outage -request-timeout 5s  # etcd stopped and started
//
// It starts both servers (data dirs of their own under $TMPDIR, ports
// 17543 and 17544 on 127.0.0.1), creates the same fixtures on each, and
// runs the corpus in the same order against both, so that their states
// stay alike. Requests are written as raw HTTP/1.1 over TLS, so that
// unclean, badly escaped and unknown-method requests reach the servers as
// written; users are the admin (client certificate), anonymous, and a
// ServiceAccount RBAC grants nothing (its token). Then kubectl commands
// (-kubectl, "" skips them) and a parallel check of each server alone
// (-parallel). -dump writes every request with the base's answer, to
// review what the corpus reaches. It exits 1 when a difference is found,
// 2 on a failure of its own. It is no test: it takes a minute or two and
// starts two servers, so CI does not run it.
package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"encoding/base64"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"
)

func main() {
	stopOnSignal()
	diffs, err := run()
	if err != nil {
		fmt.Fprintln(os.Stderr, "difftest:", err)
		os.Exit(2)
	}
	if diffs > 0 {
		os.Exit(1)
	}
}

// server is one running apiserver under test.
type server struct {
	name    string
	addr    string
	dir     string
	admin   tls.Certificate
	token   string // the ServiceAccount x's token: a user without RBAC grants
	cmd     *exec.Cmd
	kubecfg string
	// h2: send the corpus over HTTP/2 (net/http's client) instead of raw
	// HTTP/1.1; clients for the admin and the others.
	h2               bool
	h2admin, h2other *http.Client
	// polls counts settle's GETs of namespaces by code but 404: as many
	// as timing takes, left out of the request counters compared.
	polls map[int]int
}

// run returns the number of differences; the servers are stopped by then.
func run() (int, error) {
	base := flag.String("base", "", "the base apiserver binary")
	next := flag.String("new", "", "the changed apiserver binary")
	out := flag.String("out", "", "write the differences to this file (default: standard output)")
	kubectl := flag.String("kubectl", "kubectl", "kubectl binary for the kubectl part; empty skips it")
	dump := flag.String("dump", "", "write every request and the base's answer (status, Content-Type, start of the body) to this file")
	timeout := flag.Duration("request-timeout", 0, "start both servers with this --request-timeout and add the corpus of requests that outlast it")
	withOutage := flag.Bool("outage", false, "run instead the etcd outage comparison: both servers on an etcd of their own, stopped and started again")
	parallel := flag.Int("parallel", 8, "workers of the parallel check (each server alone); 0 skips it")
	h2 := flag.Bool("h2", false, "send the corpus over HTTP/2 with net/http's client (requests it refuses to send are compared as errors)")
	only := flag.String("only", "", "run only the corpus entries whose label contains this")
	flag.Parse()
	if *base == "" || *next == "" {
		return 0, errors.New("-base and -new are required")
	}
	tmp, err := os.MkdirTemp("", "difftest-")
	if err != nil {
		return 0, fmt.Errorf("temp dir: %w", err)
	}
	defer os.RemoveAll(tmp)
	servers := make([]*server, 2)
	etcds := make([]*etcdOf, 2)
	for i, bin := range []string{*base, *next} {
		var args []string
		if *withOutage {
			etcds[i] = etcdFor(filepath.Join(tmp, fmt.Sprint(i)))
			if err := etcds[i].start(); err != nil {
				return 0, err
			}
			defer func() { _ = etcds[i].e.Close() }()
			args = append(args, "--etcd-servers", "unix://"+etcds[i].sock)
		}
		if *timeout > 0 {
			args = append(args, "--request-timeout", timeout.String())
		}
		s, err := start([]string{"base", "new"}[i], bin, filepath.Join(tmp, fmt.Sprint(i)), 17543+i, args...)
		if err != nil {
			return 0, err
		}
		defer s.stop()
		servers[i] = s
	}
	var w io.Writer = os.Stdout
	if *out != "" {
		f, err := os.Create(*out)
		if err != nil {
			return 0, fmt.Errorf("output: %w", err)
		}
		defer f.Close()
		w = f
	}
	for _, s := range servers {
		if err := s.setup(); err != nil {
			return 0, fmt.Errorf("%s: setup: %w", s.name, err)
		}
		if *h2 {
			s.h2admin, s.h2other = h2Client(&s.admin), h2Client(nil)
			s.h2 = true
		}
	}
	var dumpw io.Writer = io.Discard
	if *dump != "" {
		f, err := os.Create(*dump)
		if err != nil {
			return 0, fmt.Errorf("dump: %w", err)
		}
		defer f.Close()
		dumpw = f
	}
	if *withOutage {
		diffs, n, err := outage(servers, etcds, w, dumpw)
		fmt.Fprintf(os.Stderr, "difftest: etcd outage: %d requests, %d differences\n", n, diffs)
		return diffs, err
	}
	corpus := buildCorpus()
	if *timeout > 0 {
		corpus = append(timeoutCorpus(), corpus...)
	}
	diffs, n := compareCorpus(servers, corpus, *only, w, dumpw)
	if *parallel > 0 {
		for _, s := range servers {
			for _, b := range s.concurrent(*parallel, 100) {
				diffs++
				fmt.Fprintf(w, "=== WRONG ANSWER under parallel requests (%s): %s\n", s.name, b)
			}
		}
	}
	kn := 0
	if *kubectl != "" {
		for _, args := range kubectlCorpus() {
			kn++
			a := servers[0].kubectl(*kubectl, args)
			b := servers[1].kubectl(*kubectl, args)
			fmt.Fprintf(dumpw, "kubectl %s | %.300q\n", strings.Join(args.args, " "), a)
			if a != b {
				diffs++
				fmt.Fprintf(w, "=== DIFF kubectl %s\n--- base\n%s\n--- new\n%s\n", strings.Join(args.args, " "), a, b)
			}
		}
	}
	fmt.Fprintf(os.Stderr, "difftest: %d requests, %d kubectl commands, %d differences\n", n, kn, diffs)
	return diffs, nil
}

// compareCorpus sends each request of the corpus (those whose label has
// only, when set) to both servers in turn, then compares their request
// counters; it returns the number of differences (written to w) and of
// requests sent.
func compareCorpus(servers []*server, corpus []req, only string, w, dumpw io.Writer) (diffs, n int) {
	for _, r := range corpus {
		if only != "" && !strings.Contains(r.label(), only) {
			continue
		}
		if r.settle {
			for _, s := range servers {
				s.settle(r)
			}
			continue
		}
		n++
		a := servers[0].do(r)
		b := servers[1].do(r)
		fmt.Fprintf(dumpw, "%d %s %s | %.200q\n", a.status, a.headers["Content-Type"], r.label(), a.body)
		if d := compare(a, b); d != "" {
			diffs++
			fmt.Fprintf(w, "=== DIFF %s\n%s\n", r.label(), d)
		}
	}
	// The request counters after the same corpus: what each server
	// recorded of the requests (verb, resource, code) must agree too.
	if only == "" {
		a, b := servers[0].requestCounts(), servers[1].requestCounts()
		if a != b {
			diffs++
			fmt.Fprintf(w, "=== DIFF request metrics after the corpus\n--- base\n%s\n--- new\n%s\n", a, b)
		}
		fmt.Fprintf(dumpw, "metrics after the corpus:\n%s\n", a)
	}
	return diffs, n
}

// started are the servers to stop if difftest itself is interrupted.
var (
	startedMu sync.Mutex
	started   []*server
)

func stopOnSignal() {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ch
		startedMu.Lock()
		for _, s := range started {
			s.stop()
		}
		os.Exit(2)
	}()
}

func start(name, bin, dir string, port int, args ...string) (*server, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	log, err := os.Create(filepath.Join(dir, "log"))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	cmd := exec.Command(bin, append([]string{"--data-dir", dir, "--secure-port", fmt.Sprint(port)}, args...)...)
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("%s: start: %w", name, err)
	}
	s := &server{polls: map[int]int{}, name: name, addr: fmt.Sprintf("127.0.0.1:%d", port), dir: dir, cmd: cmd, kubecfg: filepath.Join(dir, "admin.kubeconfig")}
	startedMu.Lock()
	started = append(started, s)
	startedMu.Unlock()
	deadline := time.Now().Add(60 * time.Second)
	for {
		if err := s.loadAdmin(); err == nil {
			resp := s.do(req{method: "GET", path: "/readyz", user: "admin"})
			if resp.status == 200 {
				return s, nil
			}
		}
		if time.Now().After(deadline) {
			s.stop()
			return nil, fmt.Errorf("%s: not ready after 60s (log: %s)", name, log.Name())
		}
		time.Sleep(500 * time.Millisecond)
	}
}

func (s *server) stop() {
	if s.cmd.Process != nil {
		_ = s.cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { _ = s.cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = s.cmd.Process.Kill()
		}
	}
}

// loadAdmin reads the client certificate of the admin.kubeconfig the
// server writes.
func (s *server) loadAdmin() error {
	data, err := os.ReadFile(s.kubecfg)
	if err != nil {
		return err
	}
	field := func(name string) ([]byte, error) {
		m := regexp.MustCompile(name + `: (\S+)`).FindSubmatch(data)
		if m == nil {
			return nil, fmt.Errorf("no %s in %s", name, s.kubecfg)
		}
		return base64.StdEncoding.DecodeString(string(m[1]))
	}
	cert, err := field("client-certificate-data")
	if err != nil {
		return err
	}
	key, err := field("client-key-data")
	if err != nil {
		return err
	}
	s.admin, err = tls.X509KeyPair(cert, key)
	return err
}

// setup makes the ServiceAccount x and its token (a user RBAC grants
// nothing).
func (s *server) setup() error {
	r := s.do(req{method: "POST", path: "/api/v1/namespaces/default/serviceaccounts", user: "admin", ct: "application/json",
		body: `{"apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":"x"}}`})
	if r.status != 201 && r.status != 409 {
		return fmt.Errorf("create serviceaccount: %d %s", r.status, r.body)
	}
	r = s.do(req{method: "POST", path: "/api/v1/namespaces/default/serviceaccounts/x/token", user: "admin", ct: "application/json",
		body: `{"apiVersion":"authentication.k8s.io/v1","kind":"TokenRequest","spec":{}}`})
	if r.status != 201 {
		return fmt.Errorf("token: %d %s", r.status, r.body)
	}
	var tr struct {
		Status struct{ Token string } `json:"status"`
	}
	if err := json.Unmarshal(r.raw, &tr); err != nil || tr.Status.Token == "" {
		return fmt.Errorf("token: %q: %w", r.raw, err)
	}
	s.token = tr.Status.Token
	return nil
}

// req is one corpus entry. path is written as is on the request line.
type req struct {
	method string
	path   string
	user   string // admin, anon or sa
	accept string // "" sends none
	ct     string // Content-Type; "" sends none
	body   string
	note   string
	// settle: not compared; repeated (up to 20 s) until it answers 404,
	// for deletes that finish in the background (namespaces).
	settle bool
	// short: the Content-Length promises 50 bytes more than the body
	// brings (a body that stops arriving).
	short bool
	// extra header lines ("Name: value\r\n" each), the protocol of the
	// request line (HTTP/1.1 when empty), and no Host header.
	extra  string
	proto  string
	noHost bool
}

func (r req) label() string {
	s := fmt.Sprintf("%s %s user=%s", r.method, r.path, r.user)
	if r.accept != "" {
		s += fmt.Sprintf(" accept=%q", r.accept)
	}
	if r.ct != "" {
		s += fmt.Sprintf(" ct=%q", r.ct)
	}
	if r.note != "" {
		s += " (" + r.note + ")"
	}
	if r.short {
		s += " (body stops short)"
	}
	if r.extra != "" {
		s += fmt.Sprintf(" extra=%q", r.extra)
	}
	if r.proto != "" {
		s += " " + r.proto
	}
	if r.noHost {
		s += " (no Host)"
	}
	return s
}

type result struct {
	status  int
	headers map[string]string
	body    string // normalised
	raw     []byte
	err     string
}

func (s *server) do(r req) result {
	if s.h2 {
		return s.doH2(r)
	}
	cfg := &tls.Config{InsecureSkipVerify: true, NextProtos: []string{"http/1.1"}}
	if r.user == "admin" {
		cfg.Certificates = []tls.Certificate{s.admin}
	}
	d := &net.Dialer{Timeout: 5 * time.Second}
	conn, err := tls.DialWithDialer(d, "tcp", s.addr, cfg)
	if err != nil {
		return result{err: "dial: " + err.Error()}
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(15 * time.Second))
	var b bytes.Buffer
	proto := "HTTP/1.1"
	if r.proto != "" {
		proto = r.proto
	}
	fmt.Fprintf(&b, "%s %s %s\r\n", r.method, strings.ReplaceAll(r.path, "{addr}", s.addr), proto)
	if !r.noHost {
		fmt.Fprintf(&b, "Host: %s\r\n", s.addr)
	}
	b.WriteString("User-Agent: difftest\r\nConnection: close\r\n")
	b.WriteString(r.extra)
	if r.user == "sa" {
		fmt.Fprintf(&b, "Authorization: Bearer %s\r\n", s.token)
	}
	if r.accept != "" {
		fmt.Fprintf(&b, "Accept: %s\r\n", r.accept)
	}
	if r.ct != "" {
		fmt.Fprintf(&b, "Content-Type: %s\r\n", r.ct)
	}
	if r.body != "" || r.method == "POST" || r.method == "PUT" || r.method == "PATCH" {
		n := len(r.body)
		if r.short {
			n += 50
		}
		fmt.Fprintf(&b, "Content-Length: %d\r\n", n)
	}
	b.WriteString("\r\n")
	b.WriteString(r.body)
	if _, err := conn.Write(b.Bytes()); err != nil {
		return result{err: "write: " + errAddrRE.ReplaceAllString(err.Error(), "<addr>")}
	}
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, &http.Request{Method: r.method})
	for err == nil && resp.StatusCode == http.StatusContinue {
		// Expect: 100-continue; the final answer follows.
		resp, err = http.ReadResponse(br, &http.Request{Method: r.method})
	}
	if err != nil {
		return result{err: "read: " + errAddrRE.ReplaceAllString(err.Error(), "<addr>")}
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return s.result(r, resp, body, err)
}

func (s *server) result(r req, resp *http.Response, body []byte, err error) result {
	res := result{status: resp.StatusCode, headers: map[string]string{}, raw: body}
	if err != nil && !errors.Is(err, context.DeadlineExceeded) {
		res.err = "body: " + errAddrRE.ReplaceAllString(err.Error(), "<addr>")
	}
	// How the body is framed: a Content-Length or chunks.
	res.headers["X-Difftest-Framing"] = fmt.Sprint(resp.ContentLength >= 0, resp.TransferEncoding)
	for k, v := range resp.Header {
		switch k {
		case "Date", "Content-Length":
			continue
		case "Etag", "Audit-Id", "X-Kubernetes-Pf-Flowschema-Uid", "X-Kubernetes-Pf-Prioritylevel-Uid":
			res.headers[k] = "<present>"
			continue
		}
		res.headers[k] = normaliseText(strings.Join(v, ", "))
	}
	res.body = normaliseBody(r.path, resp.Header.Get("Content-Type"), body)
	return res
}

func (s *server) settle(r req) {
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		code := s.do(r).status
		if code == 404 {
			return
		}
		s.polls[code]++
	}
}

func compare(a, b result) string {
	var d strings.Builder
	if a.err != b.err {
		fmt.Fprintf(&d, "error: base %q new %q\n", a.err, b.err)
	}
	if a.status != b.status {
		fmt.Fprintf(&d, "status: base %d new %d\n", a.status, b.status)
	}
	keys := map[string]bool{}
	for k := range a.headers {
		keys[k] = true
	}
	for k := range b.headers {
		keys[k] = true
	}
	var ks []string
	for k := range keys {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	for _, k := range ks {
		va, oka := a.headers[k]
		vb, okb := b.headers[k]
		if va != vb || oka != okb {
			fmt.Fprintf(&d, "header %s: base %q (%v) new %q (%v)\n", k, va, oka, vb, okb)
		}
	}
	if a.body != b.body {
		fmt.Fprintf(&d, "body:\n--- base\n%s\n--- new\n%s\n", clip(a.body), clip(b.body))
	}
	return d.String()
}

func clip(s string) string {
	if len(s) > 3000 {
		return s[:3000] + "...(clipped)"
	}
	return s
}

var (
	uuidRE = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	timeRE = regexp.MustCompile(`\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})`)
	portRE = regexp.MustCompile(`127\.0\.0\.1:1754[34]`)
	ageRE  = regexp.MustCompile(`^(\d+[smhd])+$`)
	genRE  = regexp.MustCompile(`\bgen-[a-z0-9]{5}\b`)
	// The servers' own temporary data dirs.
	dirRE = regexp.MustCompile(`/tmp/difftest-\d+/[01]`)
	// A resourceVersion in a message ("...: 1234").
	errAddrRE = regexp.MustCompile(`127\.0\.0\.1:\d+`)
	yamlRVRE  = regexp.MustCompile(`(resourceVersion|uid|creationTimestamp|continue): .*`)
	jwtRE     = regexp.MustCompile(`eyJ[\w-]+\.[\w-]+\.[\w-]+`)
	rvMsgRE   = regexp.MustCompile(`(resource ?version|ResourceVersion)([^0-9]{0,20})\d+`)
)

func normaliseText(s string) string {
	s = uuidRE.ReplaceAllString(s, "<uid>")
	s = timeRE.ReplaceAllString(s, "<time>")
	s = portRE.ReplaceAllString(s, "<addr>")
	s = genRE.ReplaceAllString(s, "gen-<gen>")
	s = dirRE.ReplaceAllString(s, "<dir>")
	s = rvMsgRE.ReplaceAllString(s, "$1$2<rv>")
	s = jwtRE.ReplaceAllString(s, "<jwt>")
	return s
}

// volatile are the JSON keys whose values differ between any two servers.
var volatile = map[string]bool{
	"uid": true, "resourceVersion": true, "creationTimestamp": true, "deletionTimestamp": true,
	"time": true, "continue": true, "token": true, "expirationTimestamp": true,
	"lastTransitionTime": true, "firstTimestamp": true, "lastTimestamp": true, "eventTime": true,
	"gitCommit": true, "buildDate": true, "gitVersion": true, "gitTreeState": true,
	"remainingItemCount": false,
}

func normaliseBody(path, ct string, body []byte) string {
	switch {
	case strings.HasPrefix(path, "/metrics") && !strings.Contains(ct, "json"):
		// Values differ; the families are the interface.
		var fams []string
		for _, l := range strings.Split(string(body), "\n") {
			if strings.HasPrefix(l, "# TYPE ") {
				fams = append(fams, l)
			}
		}
		sort.Strings(fams)
		return fmt.Sprintf("%d metric families:\n%s", len(fams), strings.Join(fams, "\n"))
	case strings.Contains(ct, "protobuf"):
		// Binary with varint timestamps: compare only whether it is a
		// protobuf envelope and what it carries at the start.
		p := "k8s\x00"
		return fmt.Sprintf("<protobuf %d bytes, envelope %v>", len(body), bytes.HasPrefix(body, []byte(p)))
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if len(body) > 0 && dec.Decode(&v) == nil {
		v = walk(v, "")
		out, _ := json.MarshalIndent(v, "", " ")
		// Whether a body ends with a newline is part of the answer.
		nl := bytes.HasSuffix(body, []byte("\n"))
		return normaliseText(string(out)) + fmt.Sprintf("\n<trailing newline %v>", nl)
	}
	t := string(body)
	if strings.Contains(ct, "yaml") {
		t = yamlRVRE.ReplaceAllString(t, "$1: <$1>")
	}
	return normaliseText(t)
}

func walk(v any, key string) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if volatile[k] {
				if _, isMap := e.(map[string]any); !isMap {
					x[k] = "<" + k + ">"
					continue
				}
			}
			x[k] = walk(e, k)
		}
		return x
	case []any:
		for i, e := range x {
			x[i] = walk(e, key)
		}
		return x
	case string:
		if key == "cells" && ageRE.MatchString(x) {
			return "<age>"
		}
		return x
	}
	return v
}

// kubectl runs one kubectl command against s and returns its exit code,
// standard output and standard error, normalised.
func (s *server) kubectl(bin string, k kcmd) string {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, append([]string{"--kubeconfig", s.kubecfg, "-v=0"}, k.args...)...)
	cmd.Stdin = strings.NewReader(k.stdin)
	cmd.Env = append(os.Environ(), "KUBECACHEDIR="+filepath.Join(s.dir, "kubecache"))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		return "run: " + err.Error()
	}
	o := stdout.String()
	if k.json {
		o = normaliseBody("", "application/json", stdout.Bytes())
	}
	o = normaliseKubectl(o)
	return fmt.Sprintf("exit %d\nstdout:\n%s\nstderr:\n%s", code, o, normaliseKubectl(stderr.String()))
}

var (
	kAgeRE = regexp.MustCompile(`(\s)(\d+[smhd])+(\s|$)`)
	kRVRE  = regexp.MustCompile(`(resourceVersion: )"?\d+"?`)
	// kubectl diff's temporary files and their times.
	kDiffRE = regexp.MustCompile(`/tmp/(LIVE|MERGED)-\d+|\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+ \+0000`)
)

func normaliseKubectl(s string) string {
	s = normaliseText(s)
	s = kAgeRE.ReplaceAllString(s, "$1<age>$3")
	s = kRVRE.ReplaceAllString(s, "$1<rv>")
	s = kDiffRE.ReplaceAllString(s, "<tmp>")
	return s
}

// requestCounts is the server's apiserver_request_total series, sorted,
// but for the scrapes of /metrics themselves.
func (s *server) requestCounts() string {
	r := s.do(req{method: "GET", path: "/metrics", user: "admin"})
	var lines []string
	for _, l := range strings.Split(string(r.raw), "\n") {
		if !strings.HasPrefix(l, "apiserver_request_total{") {
			continue
		}
		for code, n := range s.polls {
			prefix := fmt.Sprintf(`apiserver_request_total{code="%d",resource="namespaces",subresource="",verb="GET"} `, code)
			if v, ok := strings.CutPrefix(l, prefix); ok {
				var total int
				if _, err := fmt.Sscan(v, &total); err == nil {
					l = fmt.Sprintf("%s%d", prefix, total-n)
				}
			}
		}
		lines = append(lines, l)
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

func h2Client(cert *tls.Certificate) *http.Client {
	cfg := &tls.Config{InsecureSkipVerify: true}
	if cert != nil {
		cfg.Certificates = []tls.Certificate{*cert}
	}
	return &http.Client{
		Transport: &http.Transport{TLSClientConfig: cfg, ForceAttemptHTTP2: true, DisableCompression: true},
		Timeout:   15 * time.Second,
		// Redirects are answers to compare, not to follow.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// doH2 sends r over HTTP/2; the path goes out as written (URL.Opaque).
func (s *server) doH2(r req) result {
	if r.proto != "" || r.noHost || r.short || strings.Contains(r.extra, "Transfer-Encoding") {
		// HTTP/1 framing: not expressible over HTTP/2.
		r.proto, r.noHost, r.short, r.extra = "", false, false, ""
	}
	p := strings.ReplaceAll(r.path, "{addr}", s.addr)
	if !h2Sendable(p) {
		// net/http's client sends these and then waits out its timeout
		// on the server's stream reset; HTTP/1.1 covers them.
		return result{err: "not sent over HTTP/2"}
	}
	hr, err := http.NewRequest(r.method, "https://"+s.addr+"/", strings.NewReader(r.body))
	if err != nil {
		return result{err: "request: " + err.Error()}
	}
	if i := strings.IndexByte(p, '?'); i >= 0 {
		hr.URL.Opaque, hr.URL.RawQuery = "//"+s.addr+p[:i], p[i+1:]
	} else {
		hr.URL.Opaque = "//" + s.addr + p
	}
	if r.body == "" {
		hr.Body, hr.ContentLength = http.NoBody, 0
	}
	if r.accept != "" {
		hr.Header.Set("Accept", r.accept)
	}
	if r.ct != "" {
		hr.Header.Set("Content-Type", r.ct)
	}
	for _, l := range strings.Split(r.extra, "\r\n") {
		if k, v, ok := strings.Cut(l, ": "); ok {
			hr.Header.Add(k, v)
		}
	}
	c := s.h2other
	if r.user == "admin" {
		c = s.h2admin
	}
	if r.user == "sa" {
		hr.Header.Set("Authorization", "Bearer "+s.token)
	}
	resp, err := c.Do(hr)
	if err != nil {
		return result{err: "h2: " + errAddrRE.ReplaceAllString(err.Error(), "<addr>")}
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	res := s.result(r, resp, body, err)
	res.headers["X-Difftest-Proto"] = resp.Proto
	return res
}

// h2Sendable reports whether a path is one net/http's HTTP/2 client
// sends and gets an answer for: no bad escapes, fragments, or bytes
// outside printable ASCII.
func h2Sendable(p string) bool {
	for i := 0; i < len(p); i++ {
		switch c := p[i]; {
		case c == '%':
			if i+2 >= len(p) || !isHex(p[i+1]) || !isHex(p[i+2]) {
				return false
			}
		case c == '#' || c <= ' ' || c >= 0x7f:
			return false
		}
	}
	return true
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}
