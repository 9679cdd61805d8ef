package e2e

import (
	"bufio"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/net/websocket"
	"k8s.io/client-go/rest"
)

// parityTarget is one server of a parity test: its URL, an admin client,
// and TLS configurations with the admin's certificate and with none.
type parityTarget struct {
	name          string
	url           string
	admin         *http.Client
	adminTLS, tls *tls.Config
}

// TestParityWithKube asks a real kube-apiserver (built from
// k8s.io/kubernetes) and this server the same questions and wants the
// same answers: which responses are gzipped for which Accept-Encoding,
// watches over a WebSocket (framing, the Origin check, a token in a
// subprotocol), the deprecated /watch/ paths, a Role naming one ConfigMap
// against lists and watches narrowed to it by field selector, and the
// managed fields of built-in kinds with atomic structs.
func TestParityWithKube(t *testing.T) {
	mc := startMainCluster(t)
	kubeAdmin, err := mc.adminCert.TLS()
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(mc.caPEM)
	kube := parityTarget{name: "kube-apiserver", url: mc.url, admin: mc.client(kubeAdmin),
		adminTLS: &tls.Config{RootCAs: roots, Certificates: []tls.Certificate{kubeAdmin}, NextProtos: []string{"http/1.1"}},
		tls:      &tls.Config{RootCAs: roots, NextProtos: []string{"http/1.1"}}}

	var tokens strings.Builder
	for user, token := range mc.tokens {
		fmt.Fprintf(&tokens, "%s,%s,%s-uid\n", token, user, user)
	}
	s := newServer(t, "--token-auth-file", tokenFile(t, tokens.String()))
	ourTLS, err := rest.TLSConfigFor(s.config)
	if err != nil {
		t.Fatal(err)
	}
	ourAdminTLS := ourTLS.Clone()
	ourAdminTLS.NextProtos = []string{"http/1.1"}
	ourAdmin, err := rest.HTTPClientFor(s.config)
	if err != nil {
		t.Fatal(err)
	}
	ours := parityTarget{name: "kubeforge", url: s.config.Host, admin: ourAdmin, adminTLS: ourAdminTLS,
		tls: &tls.Config{RootCAs: ourTLS.RootCAs, ServerName: ourTLS.ServerName, NextProtos: []string{"http/1.1"}}}

	var wg sync.WaitGroup
	answers := make([]map[string]string, 2)
	for i, target := range []parityTarget{kube, ours} {
		wg.Go(func() {
			answers[i] = streamingAnswers(t, target, mc.tokens["nobody"])
			maps.Copy(answers[i], managedFieldsAnswers(t, target))
		})
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	keys := make([]string, 0, len(answers[0]))
	for k := range answers[0] {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if answers[0][k] != answers[1][k] {
			t.Errorf("%s:\n  kube-apiserver: %s\n  kubeforge:      %s", k, answers[0][k], answers[1][k])
		} else {
			t.Logf("%s: %s", k, answers[0][k])
		}
	}
	// The answers themselves, so that agreeing on nothing is no pass.
	for k, want := range map[string]string{
		"gzip: list, Accept-Encoding gzip":         "200 gzip",
		"gzip: list, Accept-Encoding identity":     "200 -",
		"websocket: admin watch":                   "101 ADDED cm-000 line",
		"websocket: nobody's token, fieldSelector": "101 base64.binary.k8s.io ADDED cm-001",
		"/watch/ path: GET one name":               "200 ADDED cm-001",
		"rbac: nobody list fieldSelector cm-001":   "200",
		"rbac: nobody list fieldSelector cm-002":   "403",
		"rbac: nobody GET cm-001?watch=true":       "200 object",
	} {
		if got := answers[1][k]; got != want {
			t.Errorf("%s: %q, want %q", k, got, want)
		}
	}
}

// streamingAnswers asks target the test's questions; each answer is a
// short string, compared between the servers.
func streamingAnswers(t *testing.T, target parityTarget, nobodyToken string) map[string]string {
	out := map[string]string{}
	const ns = "parity-stream"
	cms := "/api/v1/namespaces/" + ns + "/configmaps"
	send := func(c *http.Client, method, path, body string, header ...string) (*http.Response, []byte) {
		t.Helper()
		req, err := http.NewRequest(method, target.url+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		if body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		resp, err := c.Do(req)
		if err != nil {
			t.Fatalf("%s: %s %s: %v", target.name, method, path, err)
		}
		defer resp.Body.Close()
		data, _ := io.ReadAll(resp.Body)
		return resp, data
	}
	mustCreate := func(path, body string) {
		t.Helper()
		if resp, data := send(target.admin, "POST", path, body); resp.StatusCode != http.StatusCreated {
			t.Fatalf("%s: create %s: %d %s", target.name, path, resp.StatusCode, data)
		}
	}
	mustCreate("/api/v1/namespaces", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"`+ns+`"}}`)
	value := strings.Repeat("0123456789abcdef", 80)
	for i := range 120 { // about 160 KiB as a list
		mustCreate(cms, fmt.Sprintf(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm-%03d"},"data":{"v":%q}}`, i, value))
	}

	// Compression: the admin client's transport neither asks nor undoes.
	raw := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{TLSClientConfig: target.adminTLS, DisableCompression: true}}
	for _, q := range []struct{ what, path, ae string }{
		{"list, Accept-Encoding gzip", cms, "gzip"},
		{"list, Accept-Encoding identity", cms, "identity"},
		{"list, Accept-Encoding gzip;q=0.5", cms, "gzip;q=0.5"},
		{"list, Accept-Encoding deflate, gzip, br", cms, "deflate, gzip, br"},
		{"list of 2, Accept-Encoding gzip", cms + "?limit=2", "gzip"},
		{"get, Accept-Encoding gzip", cms + "/cm-001", "gzip"},
	} {
		resp, _ := send(raw, "GET", q.path, "", "Accept-Encoding", q.ae)
		enc := resp.Header.Get("Content-Encoding")
		if enc == "" {
			enc = "-"
		}
		out["gzip: "+q.what] = fmt.Sprintf("%d %s", resp.StatusCode, enc)
	}

	// The deprecated /watch/ paths.
	firstEvent := func(resp *http.Response) string {
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Sprint(resp.StatusCode)
		}
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		if !sc.Scan() {
			return "200 no event"
		}
		var ev struct {
			Type   string
			Object struct{ Metadata struct{ Name string } }
		}
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			return "200 bad line"
		}
		return fmt.Sprintf("200 %s %s", ev.Type, ev.Object.Metadata.Name)
	}
	open := func(c *http.Client, path string, header ...string) *http.Response {
		t.Helper()
		req, _ := http.NewRequest("GET", target.url+path, nil)
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		resp, err := c.Do(req)
		if err != nil {
			t.Fatalf("%s: GET %s: %v", target.name, path, err)
		}
		return resp
	}
	out["/watch/ path: GET one name"] = firstEvent(open(raw, "/api/v1/watch/namespaces/"+ns+"/configmaps/cm-001?timeoutSeconds=2"))
	out["/watch/ path: GET collection, fieldSelector"] = firstEvent(open(raw, "/api/v1/watch/namespaces/"+ns+"/configmaps?timeoutSeconds=2&fieldSelector=metadata.name%3Dcm-002"))
	resp, _ := send(raw, "GET", "/api/v1/watch/namespaces/"+ns+"/configmaps/cm-001?fieldSelector=metadata.name%3Dcm-002", "")
	out["/watch/ path: conflicting fieldSelector"] = fmt.Sprint(resp.StatusCode)
	resp, _ = send(raw, "POST", "/api/v1/watch/namespaces/"+ns+"/configmaps", `{}`)
	out["/watch/ path: POST"] = fmt.Sprint(resp.StatusCode)
	resp = open(raw, cms+"?watch=1&timeoutSeconds=2", "Accept-Encoding", "gzip")
	out["gzip: watch, Accept-Encoding gzip"] = fmt.Sprintf("%d %q", resp.StatusCode, resp.Header.Get("Content-Encoding"))
	resp.Body.Close()

	// A Role naming one ConfigMap, bound to nobody.
	mustCreate("/apis/rbac.authorization.k8s.io/v1/namespaces/"+ns+"/roles",
		`{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"Role","metadata":{"name":"one"},"rules":[{"apiGroups":[""],"resources":["configmaps"],"resourceNames":["cm-001"],"verbs":["get","list","watch"]}]}`)
	mustCreate("/apis/rbac.authorization.k8s.io/v1/namespaces/"+ns+"/rolebindings",
		`{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"RoleBinding","metadata":{"name":"one"},"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"Role","name":"one"},"subjects":[{"kind":"User","apiGroup":"rbac.authorization.k8s.io","name":"nobody"}]}`)
	nobody := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{TLSClientConfig: target.tls}}
	asNobody := func(path string) *http.Response {
		return open(nobody, path, "Authorization", "Bearer "+nobodyToken)
	}
	// The binding reaches the authorizer's cache within moments.
	deadline := time.Now().Add(20 * time.Second)
	for {
		resp := asNobody(cms + "/cm-001")
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	for _, q := range []struct{ what, path string }{
		{"list fieldSelector cm-001", cms + "?fieldSelector=metadata.name%3Dcm-001"},
		{"list fieldSelector cm-002", cms + "?fieldSelector=metadata.name%3Dcm-002"},
		{"list fieldSelector ==cm-001 and namespace", cms + "?fieldSelector=metadata.namespace%3D" + ns + ",metadata.name%3D%3Dcm-001"},
		{"list fieldSelector !=cm-002", cms + "?fieldSelector=metadata.name!%3Dcm-002"},
		{"list", cms},
		{"/watch/ path cm-001", "/api/v1/watch/namespaces/" + ns + "/configmaps/cm-001?timeoutSeconds=1"},
		{"/watch/ path collection", "/api/v1/watch/namespaces/" + ns + "/configmaps?timeoutSeconds=1"},
	} {
		resp := asNobody(q.path)
		resp.Body.Close()
		out["rbac: nobody "+q.what] = fmt.Sprint(resp.StatusCode)
	}
	resp = asNobody(cms + "/cm-001?watch=true")
	var obj struct{ Kind string }
	if err := json.NewDecoder(resp.Body).Decode(&obj); err == nil && obj.Kind == "ConfigMap" {
		out["rbac: nobody GET cm-001?watch=true"] = fmt.Sprintf("%d object", resp.StatusCode)
	} else {
		out["rbac: nobody GET cm-001?watch=true"] = fmt.Sprintf("%d %v", resp.StatusCode, err)
	}
	resp.Body.Close()
	out["rbac: nobody watch fieldSelector cm-001"] = firstEvent(asNobody(cms + "?watch=1&timeoutSeconds=1&fieldSelector=metadata.name%3Dcm-001"))

	// Watches over a WebSocket.
	wsURL := "wss" + strings.TrimPrefix(target.url, "https") + cms + "?watch=1&resourceVersion=0&fieldSelector=metadata.name%3D"
	dial := func(name string, tlsConfig *tls.Config, protocols ...string) string {
		cfg, err := websocket.NewConfig(wsURL+name, "https://dashboard.example")
		if err != nil {
			t.Fatal(err)
		}
		cfg.TlsConfig = tlsConfig
		cfg.Protocol = protocols
		ws, err := websocket.DialConfig(cfg)
		if err != nil {
			return "refused"
		}
		defer ws.Close()
		_ = ws.SetReadDeadline(time.Now().Add(20 * time.Second))
		var msg string
		if err := websocket.Message.Receive(ws, &msg); err != nil {
			return "101 no message"
		}
		var ev struct {
			Type   string
			Object struct{ Metadata struct{ Name string } }
		}
		if err := json.Unmarshal([]byte(msg), &ev); err != nil {
			return "101 bad message"
		}
		framing := "no newline"
		if strings.HasSuffix(msg, "}\n") {
			framing = "line"
		}
		if len(protocols) > 0 {
			return fmt.Sprintf("101 %s %s %s", strings.Join(ws.Config().Protocol, ","), ev.Type, ev.Object.Metadata.Name)
		}
		return fmt.Sprintf("101 %s %s %s", ev.Type, ev.Object.Metadata.Name, framing)
	}
	out["websocket: admin watch"] = dial("cm-000", target.adminTLS)
	token := "base64url.bearer.authorization.k8s.io." + base64.RawURLEncoding.EncodeToString([]byte(nobodyToken))
	out["websocket: nobody's token, fieldSelector"] = dial("cm-001", target.tls, "base64.binary.k8s.io", token)
	out["websocket: nobody's token, another name"] = dial("cm-002", target.tls, "base64.binary.k8s.io", token)
	out["websocket: token as the only subprotocol"] = dial("cm-001", target.tls, token)
	// The handshake without an Origin, by hand (x/net's client always
	// sends one).
	resp, _ = send(raw, "GET", cms+"?watch=1&timeoutSeconds=1", "", "Connection", "Upgrade", "Upgrade", "websocket",
		"Sec-WebSocket-Version", "13", "Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ==")
	out["websocket: no Origin"] = fmt.Sprint(resp.StatusCode)
	return out
}

// managedFieldsAnswers creates built-in objects whose structs are atomic
// in k8s.io/api (an Event's ObjectReference, a RoleBinding's RoleRef) and
// answers with the fields their creator was found to own.
func managedFieldsAnswers(t *testing.T, target parityTarget) map[string]string {
	out := map[string]string{}
	for what, q := range map[string]struct{ path, body string }{
		"Event": {"/api/v1/namespaces/default/events",
			`{"apiVersion":"v1","kind":"Event","metadata":{"name":"mf"},"involvedObject":{"kind":"ConfigMap","name":"x","namespace":"default"},"reason":"R"}`},
		"RoleBinding": {"/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings",
			`{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"RoleBinding","metadata":{"name":"mf"},"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"view"},"subjects":[{"kind":"User","apiGroup":"rbac.authorization.k8s.io","name":"u"}]}`},
	} {
		req, _ := http.NewRequest("POST", target.url+q.path, strings.NewReader(q.body))
		req.Header.Set("Content-Type", "application/json")
		resp, err := target.admin.Do(req)
		if err != nil {
			t.Fatalf("%s: create %s: %v", target.name, what, err)
		}
		var obj struct {
			Metadata struct {
				ManagedFields []struct{ FieldsV1 json.RawMessage }
			}
		}
		err = json.NewDecoder(resp.Body).Decode(&obj)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusCreated || len(obj.Metadata.ManagedFields) != 1 {
			out["managedFields: "+what] = fmt.Sprintf("%d %v %d entries", resp.StatusCode, err, len(obj.Metadata.ManagedFields))
			continue
		}
		out["managedFields: "+what] = string(obj.Metadata.ManagedFields[0].FieldsV1)
	}
	// kubectl get's tables of built-in kinds: columns and cells but ages.
	for what, path := range map[string]string{
		"RoleBinding":    "/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings?fieldSelector=metadata.name%3Dmf",
		"ServiceAccount": "/api/v1/namespaces/default/serviceaccounts?fieldSelector=metadata.name%3Ddefault",
		"Event":          "/api/v1/namespaces/default/events?fieldSelector=metadata.name%3Dmf",
	} {
		req, _ := http.NewRequest("GET", target.url+path, nil)
		req.Header.Set("Accept", "application/json;as=Table;v=v1;g=meta.k8s.io")
		resp, err := target.admin.Do(req)
		if err != nil {
			t.Fatalf("%s: table of %s: %v", target.name, what, err)
		}
		var table struct {
			ColumnDefinitions []struct {
				Name     string
				Priority int
			}
			Rows []struct{ Cells []any }
		}
		err = json.NewDecoder(resp.Body).Decode(&table)
		resp.Body.Close()
		var cols, cells []string
		for i, c := range table.ColumnDefinitions {
			cols = append(cols, fmt.Sprintf("%s/%d", c.Name, c.Priority))
			for _, r := range table.Rows {
				if i < len(r.Cells) && !strings.Contains(c.Name, "Age") && !strings.Contains(c.Name, "Seen") {
					cells = append(cells, fmt.Sprint(r.Cells[i]))
				}
			}
		}
		out["table: "+what] = fmt.Sprintf("%d %v %s | %s", resp.StatusCode, err, strings.Join(cols, ","), strings.Join(cells, ","))
	}
	return out
}
