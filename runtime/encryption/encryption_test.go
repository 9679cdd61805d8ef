package encryption

import (
	"context"
	"encoding/base64"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/storage/value"
)

func key(n int, c string) string {
	return base64.StdEncoding.EncodeToString([]byte(strings.Repeat(c, n)))
}

const header = "apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\n"

func TestProvidersRoundTrip(t *testing.T) {
	ctx := context.Background()
	cfg := header + `resources:
- resources: [secrets, "*.shipping.kubeforge.dev"]
  providers:
  - aesgcm: {keys: [{name: g1, secret: ` + key(16, "g") + `}]}
  - aescbc: {keys: [{name: c1, secret: ` + key(32, "c") + `}]}
  - secretbox: {keys: [{name: s1, secret: ` + key(32, "s") + `}]}
  - identity: {}
- resources: ["*.*"]
  providers:
  - secretbox: {keys: [{name: all, secret: ` + key(32, "a") + `}]}
`
	c, err := Parse([]byte(cfg))
	if err != nil {
		t.Fatal(err)
	}
	secrets := c.TransformerFor(schema.GroupResource{Resource: "secrets"})
	if secrets == nil || c.TransformerFor(schema.GroupResource{Group: "shipping.kubeforge.dev", Resource: "shipments"}) != secrets {
		t.Fatal("secrets and the shipping group must share the first entry")
	}
	other := c.TransformerFor(schema.GroupResource{Group: "apps", Resource: "deployments"})
	if other == nil || other == secrets {
		t.Fatal("*.* must cover every other resource")
	}
	dataCtx := value.DefaultContext("/registry/secrets/default/s")
	plain := []byte(`{"kind":"Secret"}`)
	out, err := secrets.TransformToStorage(ctx, plain, dataCtx)
	if err != nil || !strings.HasPrefix(string(out), "k8s:enc:aesgcm:v1:g1:") {
		t.Fatalf("write: %q %v", out, err)
	}
	back, stale, err := secrets.TransformFromStorage(ctx, out, dataCtx)
	if err != nil || stale || string(back) != string(plain) {
		t.Fatalf("read: %q %v %v", back, stale, err)
	}
	if _, _, err := secrets.TransformFromStorage(ctx, out, value.DefaultContext("/registry/secrets/default/other")); err == nil {
		t.Fatal("aesgcm must bind the value to its key")
	}
	// Values written by the later providers (and plaintext, through
	// identity) read back, stale.
	for _, w := range []value.Transformer{mustOne(t, "aescbc", key(32, "c"), "c1"), mustOne(t, "secretbox", key(32, "s"), "s1"), nil} {
		enc := plain
		if w != nil {
			if enc, err = w.TransformToStorage(ctx, plain, dataCtx); err != nil {
				t.Fatal(err)
			}
		}
		back, stale, err := secrets.TransformFromStorage(ctx, enc, dataCtx)
		if err != nil || !stale || string(back) != string(plain) {
			t.Fatalf("read %q: %q stale=%v %v", enc[:min(len(enc), 24)], back, stale, err)
		}
	}
	// *.* has no identity: plaintext does not read.
	if _, _, err := other.TransformFromStorage(ctx, plain, dataCtx); err == nil {
		t.Fatal("plaintext read without an identity provider")
	}
}

func mustOne(t *testing.T, provider, secret, name string) value.Transformer {
	t.Helper()
	c, err := Parse([]byte(header + "resources:\n- resources: [x]\n  providers:\n  - " + provider + ": {keys: [{name: " + name + ", secret: " + secret + "}]}\n"))
	if err != nil {
		t.Fatal(err)
	}
	return c.TransformerFor(schema.GroupResource{Resource: "x"})
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct{ body, want string }{
		{"apiVersion: v1\nkind: EncryptionConfiguration\nresources: []\n", "want apiVersion apiserver.config.k8s.io/v1"},
		{header + "resources: []\n", "resources: must list at least one"},
		{header + "resources:\n- resources: [secrets]\n  providers: []\n", "resources[0].providers: must list"},
		{header + "resources:\n- resources: [secrets]\n  providers:\n  - aesgcm: {keys: [{name: a, secret: " + key(20, "x") + "}]}\n", "20 bytes, want 16 or 24 or 32"},
		{header + "resources:\n- resources: [secrets]\n  providers:\n  - aescbc: {keys: [{name: a, secret: " + key(16, "x") + "}]}\n", "16 bytes, want 32"},
		{header + "resources:\n- resources: [secrets]\n  providers:\n  - secretbox: {keys: [{name: a, secret: '%%%'}]}\n", "not base64"},
		{header + "resources:\n- resources: [secrets]\n  providers:\n  - secretbox: {keys: [{name: 'a:b', secret: " + key(32, "x") + "}]}\n", "contain no ':'"},
		{header + "resources:\n- resources: [secrets]\n  providers:\n  - secretbox: {keys: []}\n", "must list at least one key"},
		{header + "resources:\n- resources: [secrets]\n  providers:\n  - kms: {name: k, endpoint: unix:///x}\n", "kms: not supported"},
		{header + "resources:\n- resources: [secrets]\n  providers:\n  - {identity: {}, secretbox: {keys: [{name: a, secret: " + key(32, "x") + "}]}}\n", "exactly one of"},
		{header + "resources:\n- resources: [Secrets]\n  providers:\n  - identity: {}\n", "lowercase"},
		{header + "resources:\n- resources: ['*']\n  providers:\n  - identity: {}\n", "must name a group"},
		{header + "resources:\n- resources: [secrets, secrets]\n  providers:\n  - identity: {}\n", "listed twice"},
		{header + "resources:\n- resources: [secrets]\n  providers:\n  - identity: {}\n  extra: 1\n", "unknown field"},
	} {
		_, err := Parse([]byte(tc.body))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want it to contain %q", tc.body, err, tc.want)
		}
	}
}
