package server

import (
	"encoding/json"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestAPIServerAddressIgnoresHost: /api reports the server's advertised
// address in serverAddressByClientCIDRs, whatever Host the client sends
// (it echoed the Host header, so a client could make it name any server).
func TestAPIServerAddressIgnoresHost(t *testing.T) {
	ts := startServer(t, t.TempDir(), func(c *Config) { c.BindAddress = "127.0.0.1" })
	u, err := url.Parse(ts.url)
	if err != nil {
		t.Fatal(err)
	}
	want := net.JoinHostPort("127.0.0.1", u.Port())
	for _, host := range []string{"", "evil.example:8443", "evil.example"} {
		req, _ := http.NewRequest(http.MethodGet, ts.url+"/api", nil)
		if host != "" {
			req.Host = host
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var v metav1.APIVersions
		err = json.NewDecoder(resp.Body).Decode(&v)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		if len(v.ServerAddressByClientCIDRs) != 1 || v.ServerAddressByClientCIDRs[0].ServerAddress != want || v.ServerAddressByClientCIDRs[0].ClientCIDR != "0.0.0.0/0" {
			t.Errorf("Host %q: serverAddressByClientCIDRs %+v, want %s for 0.0.0.0/0", host, v.ServerAddressByClientCIDRs, want)
		}
	}

	// --advertise-address wins over the bind address.
	ts2 := startServer(t, t.TempDir(), func(c *Config) { c.BindAddress = "127.0.0.1"; c.AdvertiseAddress = "192.0.2.7" })
	u2, _ := url.Parse(ts2.url)
	_, body := ts2.get(t, "/api", "Host", "evil.example:8443")
	var v metav1.APIVersions
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatal(err)
	}
	if port, _ := strconv.Atoi(u2.Port()); len(v.ServerAddressByClientCIDRs) != 1 || v.ServerAddressByClientCIDRs[0].ServerAddress != net.JoinHostPort("192.0.2.7", strconv.Itoa(port)) {
		t.Errorf("advertised 192.0.2.7: %s", body)
	}
}
