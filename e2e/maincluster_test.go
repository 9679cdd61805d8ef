package e2e

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.etcd.io/etcd/server/v3/embed"

	"github.com/kubeforge/kubeforge/runtime/pki"
)

// mainCluster is a real kube-apiserver, built from the k8s.io/kubernetes
// module by ../hack/kube-apiserver.sh, on an etcd of its own, with the
// front-proxy flags an aggregator needs: the cluster this project runs
// behind in aggregated mode.
type mainCluster struct {
	dir        string
	url        string
	kubeconfig string // admin (system:masters)
	caPEM      []byte // verifies its serving certificate
	cmd        *exec.Cmd
	log        *syncWriter
	done       chan error
	etcd       *embed.Etcd
	// frontProxy is the aggregator's client certificate (CN
	// front-proxy-client, signed by the request-header CA).
	frontProxy tls.Certificate
	// tokens of the static users: viewer, nobody.
	tokens map[string]string
	// adminCert is a client certificate of the cluster's client CA in
	// system:masters; ca is that CA.
	adminCert pki.Pair
	ca        *pki.CA
	stopped   bool
}

// kubeAPIServerPath is the kube-apiserver binary: $KUBE_APISERVER, else
// the one ../hack/kube-apiserver.sh builds once per machine.
func kubeAPIServerPath(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("KUBE_APISERVER"); p != "" {
		return p
	}
	script, err := filepath.Abs(filepath.Join("..", "hack", "kube-apiserver.sh"))
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd := exec.Command("bash", script)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("hack/kube-apiserver.sh: %v\n%s", err, stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

// startMainCluster starts etcd and kube-apiserver and waits until it is
// ready; both stop when the test ends.
func startMainCluster(t *testing.T) *mainCluster {
	t.Helper()
	bin := kubeAPIServerPath(t)
	dir, err := os.MkdirTemp("", "kube-apiserver-e2e-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	mc := &mainCluster{dir: dir, log: &syncWriter{w: &bytes.Buffer{}}, done: make(chan error, 1), tokens: map[string]string{
		"viewer": "viewer-token-0123456789", "nobody": "nobody-token-0123456789",
	}}

	// Certificates: one CA for serving and clients, another for the
	// front proxy, as kubeadm lays them out.
	caDir, frontDir := filepath.Join(dir, "ca"), filepath.Join(dir, "front-proxy")
	ca, err := pki.EnsureCA(caDir)
	if err != nil {
		t.Fatal(err)
	}
	mc.caPEM, mc.ca = ca.PEM, ca
	if _, err := pki.Serving(caDir, "serving", ca, []string{"localhost", "127.0.0.1"}); err != nil {
		t.Fatal(err)
	}
	admin, err := pki.Client(caDir, "admin", ca, "kubernetes-admin", []string{"system:masters"})
	if err != nil {
		t.Fatal(err)
	}
	mc.adminCert = admin
	frontCA, err := pki.EnsureCA(frontDir)
	if err != nil {
		t.Fatal(err)
	}
	proxy, err := pki.Client(frontDir, "proxy", frontCA, "front-proxy-client", nil)
	if err != nil {
		t.Fatal(err)
	}
	if mc.frontProxy, err = proxy.TLS(); err != nil {
		t.Fatal(err)
	}
	saKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalECPrivateKey(saKey)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, "sa.key", string(pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: der})), 0o600)
	var tokens strings.Builder
	for user, token := range mc.tokens {
		fmt.Fprintf(&tokens, "%s,%s,%s-uid\n", token, user, user)
	}
	writeFile(t, dir, "tokens.csv", tokens.String(), 0o600)

	// etcd, in this process.
	client, peer := freeURL(t), freeURL(t)
	cfg := embed.NewConfig()
	cfg.Name, cfg.Dir = "main", filepath.Join(dir, "etcd")
	cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{peer}, []url.URL{peer}
	cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{client}, []url.URL{client}
	cfg.InitialCluster = "main=" + peer.String()
	cfg.LogLevel, cfg.Logger, cfg.LogOutputs = "error", "zap", []string{filepath.Join(dir, "etcd.log")}
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		t.Fatalf("start etcd: %v", err)
	}
	mc.etcd = e
	select {
	case <-e.Server.ReadyNotify():
	case <-time.After(60 * time.Second):
		e.Close()
		t.Fatal("etcd not ready")
	}

	port := freePort(t)
	mc.url = "https://127.0.0.1:" + strconv.Itoa(port)
	mc.cmd = exec.Command(bin,
		"--etcd-servers="+client.String(),
		"--bind-address=127.0.0.1", "--secure-port="+strconv.Itoa(port),
		"--cert-dir="+filepath.Join(dir, "certs"),
		"--tls-cert-file="+filepath.Join(caDir, "serving.crt"), "--tls-private-key-file="+filepath.Join(caDir, "serving.key"),
		"--client-ca-file="+filepath.Join(caDir, "ca.crt"),
		"--token-auth-file="+filepath.Join(dir, "tokens.csv"),
		"--authorization-mode=RBAC",
		"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
		"--service-account-key-file="+filepath.Join(dir, "sa.key"),
		"--service-account-signing-key-file="+filepath.Join(dir, "sa.key"),
		"--service-cluster-ip-range=10.96.0.0/16",
		"--requestheader-client-ca-file="+filepath.Join(frontDir, "ca.crt"),
		"--requestheader-allowed-names=front-proxy-client",
		"--requestheader-username-headers=X-Remote-User",
		"--requestheader-group-headers=X-Remote-Group",
		"--requestheader-extra-headers-prefix=X-Remote-Extra-",
		"--proxy-client-cert-file="+filepath.Join(frontDir, "proxy.crt"),
		"--proxy-client-key-file="+filepath.Join(frontDir, "proxy.key"),
		"--enable-priority-and-fairness=false",
		"--profiling=false",
		"--v=1",
	)
	mc.cmd.Stdout, mc.cmd.Stderr = mc.log, mc.log
	if err := mc.cmd.Start(); err != nil {
		e.Close()
		t.Fatalf("start kube-apiserver: %v", err)
	}
	go func() { mc.done <- mc.cmd.Wait() }()
	t.Cleanup(mc.stop)

	mc.kubeconfig = filepath.Join(dir, "admin.kubeconfig")
	writeKubeconfigFile(t, mc.kubeconfig, mc.url, mc.caPEM, admin.CertPEM, admin.KeyPEM, "")

	// Ready: /readyz answers ok to the admin.
	adminCert, err := admin.TLS()
	if err != nil {
		t.Fatal(err)
	}
	c := mc.client(adminCert)
	deadline := time.Now().Add(3 * time.Minute)
	for {
		resp, err := c.Get(mc.url + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
		}
		select {
		case err := <-mc.done:
			t.Fatalf("kube-apiserver exited: %v\n%s", err, mc.logs())
		case <-time.After(250 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("kube-apiserver not ready after 3 minutes\n%s", mc.logs())
		}
	}
	return mc
}

// client is an HTTPS client to the main cluster with cert (none if empty).
func (mc *mainCluster) client(cert tls.Certificate) *http.Client {
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(mc.caPEM)
	cfg := &tls.Config{RootCAs: pool}
	if len(cert.Certificate) > 0 {
		cfg.Certificates = []tls.Certificate{cert}
	}
	return &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{TLSClientConfig: cfg}}
}

func (mc *mainCluster) logs() string {
	mc.log.mu.Lock()
	defer mc.log.mu.Unlock()
	s := mc.log.w.String()
	if len(s) > 20000 {
		s = "...\n" + s[len(s)-20000:]
	}
	return s
}

func (mc *mainCluster) stop() {
	if mc.stopped {
		return
	}
	mc.stopped = true
	// Killed, not terminated: kube-apiserver's graceful shutdown waits
	// out its in-flight watches (20 s here), and a crash is the harder case
	// for the server behind it anyway.
	if mc.cmd.ProcessState == nil {
		_ = mc.cmd.Process.Kill()
		<-mc.done
	}
	mc.etcd.Close()
}

// writeKubeconfigFile writes a kubeconfig for server: a client
// certificate, or a bearer token when token is set.
func writeKubeconfigFile(t *testing.T, path, server string, caPEM, certPEM, keyPEM []byte, token string) {
	t.Helper()
	user := fmt.Sprintf("    token: %s\n", token)
	if token == "" {
		user = fmt.Sprintf("    client-certificate-data: %s\n    client-key-data: %s\n",
			base64.StdEncoding.EncodeToString(certPEM), base64.StdEncoding.EncodeToString(keyPEM))
	}
	kc := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: main
  cluster:
    server: %s
    certificate-authority-data: %s
users:
- name: user
  user:
%scontexts:
- name: main
  context: {cluster: main, user: user}
current-context: main
`, server, base64.StdEncoding.EncodeToString(caPEM), user)
	if err := os.WriteFile(path, []byte(kc), 0o600); err != nil {
		t.Fatal(err)
	}
}

// kubectl returns kubectl against the main cluster as the admin.
func (mc *mainCluster) kubectl(t *testing.T) *kubectl {
	t.Helper()
	return &kubectl{bin: kubectlPath(t), kubeconfig: mc.kubeconfig, cacheDir: kubectlTempDir(t)}
}

// waitFor runs f every 250 ms until it succeeds or d passes.
func waitFor(ctx context.Context, d time.Duration, f func() error) error {
	deadline := time.Now().Add(d)
	for {
		err := f()
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return errors.Join(err, ctx.Err())
		case <-time.After(250 * time.Millisecond):
		}
	}
}
