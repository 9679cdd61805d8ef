package storage

import (
	"context"
	"encoding/base64"
	"fmt"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/watch"

	"github.com/kubeforge/kubeforge/runtime/encryption"
)

func encryptionConfig(t *testing.T, keys ...string) *encryption.Config {
	t.Helper()
	var b strings.Builder
	b.WriteString("apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\nresources:\n- resources: [widgets.test.kubeforge.dev]\n  providers:\n  - aesgcm:\n      keys:\n")
	for _, k := range keys {
		// 32 bytes of the key's name, base64.
		fmt.Fprintf(&b, "      - name: %s\n        secret: %s\n", k, b64(strings.Repeat(k[:1], 32)))
	}
	b.WriteString("  - identity: {}\n")
	c, err := encryption.Parse([]byte(b.String()))
	if err != nil {
		t.Fatalf("parse encryption config: %v\n%s", err, b.String())
	}
	return c
}

func encryptedFixture(t *testing.T, prefix string, c *encryption.Config) *fixture {
	b := NewBackend(testEtcd.Client(), prefix, BackendOptions{WatchCache: testWatchCache, Transformer: c.TransformerFor})
	return &fixture{b: b, st: NewStore(b, widgetStrategy(true, false)), prefix: prefix}
}

// TestEncryptionAtRest: values are ciphertext in etcd, plaintext through
// every read path, a value moved to another key does not decrypt, and a
// new first key rewrites old values on an unchanged update.
func TestEncryptionAtRest(t *testing.T) {
	ctx := context.Background()
	p := fmt.Sprintf("/t%d", prefixSeq.Add(1))
	plain := NewBackend(testEtcd.Client(), p, BackendOptions{})
	old := &fixture{b: plain, st: NewStore(plain, widgetStrategy(true, false)), prefix: p}
	mustCreate(t, old, widget("a", "before", 1)) // written before encryption was on

	f := encryptedFixture(t, p, encryptionConfig(t, "k1"))
	w := widget("a", "secret", 7)
	w.Spec.Color = "ultraviolet"
	mustCreate(t, f, w)
	raw := f.raw(t)
	stored := raw[f.st.key("a", "secret")]
	if !strings.Contains(stored, ":k8s:enc:aesgcm:v1:k1:") || strings.Contains(stored, "ultraviolet") {
		t.Fatalf("stored value is not aesgcm ciphertext: %q", stored)
	}
	if !strings.Contains(raw[f.st.key("a", "before")], "\"size\":1") {
		t.Fatalf("value written without encryption changed: %q", raw[f.st.key("a", "before")])
	}

	got, err := f.st.Get(ctx, "a", "secret", GetOptions{})
	if err != nil || got.Spec.Color != "ultraviolet" {
		t.Fatalf("get: %+v %v", got, err)
	}
	if js, err := f.st.GetJSON(ctx, "a", "secret", GetOptions{}); err != nil || !strings.Contains(string(js), "ultraviolet") {
		t.Fatalf("get json: %s %v", js, err)
	}
	l, err := f.st.List(ctx, "a", ListOptions{})
	if err != nil || len(l.Items) != 2 {
		t.Fatalf("list: %+v %v", l, err)
	}
	wch, err := f.st.Watch(ctx, "a", WatchOptions{ListOptions: ListOptions{ResourceVersion: l.ResourceVersion}})
	if err != nil {
		t.Fatal(err)
	}
	jl, _, err := f.st.ListJSON(ctx, "a", ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(jl.page); n != 2 {
		t.Fatalf("list json: %d items", n)
	}
	if _, err := f.st.GuaranteedUpdate(ctx, "a", "secret", "", func(cur *Widget) (*Widget, error) {
		cur.Spec.Size = 8
		return cur, nil
	}, UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	select {
	case ev := <-wch:
		if ev.Type != watch.Modified || ev.Object.Spec.Size != 8 || ev.Object.Spec.Color != "ultraviolet" {
			t.Fatalf("watch event %s %+v", ev.Type, ev.Object)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no watch event")
	}

	// A ciphertext copied to another key fails authentication: 500, not
	// another object's data.
	if _, err := testEtcd.Client().Put(ctx, f.st.key("a", "copy"), strings.SplitN(raw[f.st.key("a", "secret")], ":", 2)[1]); err != nil {
		t.Fatal(err)
	}
	_, err = f.st.Get(ctx, "a", "copy", GetOptions{})
	wantStatus(t, err, 500, "InternalError", "~decrypt stored widgets.test.kubeforge.dev")
	if _, err := testEtcd.Client().Delete(ctx, f.st.key("a", "copy")); err != nil {
		t.Fatal(err)
	}

	// Rotation: k2 first, k1 still reads; an unchanged update rewrites
	// with k2, and an unchanged update of a k2 value writes nothing.
	r := encryptedFixture(t, p, encryptionConfig(t, "k2", "k1"))
	before := r.raw(t)[r.st.key("a", "secret")]
	for _, name := range []string{"secret", "before"} {
		if _, err := r.st.GuaranteedUpdate(ctx, "a", name, "", func(cur *Widget) (*Widget, error) { return cur, nil }, UpdateOptions{}); err != nil {
			t.Fatalf("rewrite %s: %v", name, err)
		}
	}
	after := r.raw(t)
	for _, name := range []string{"secret", "before"} {
		if !strings.Contains(after[r.st.key("a", name)], ":k8s:enc:aesgcm:v1:k2:") {
			t.Fatalf("%s not rewritten with k2: %q", name, after[r.st.key("a", name)])
		}
	}
	if before == after[r.st.key("a", "secret")] {
		t.Fatal("rotation did not rewrite")
	}
	if _, err := r.st.GuaranteedUpdate(ctx, "a", "secret", "", func(cur *Widget) (*Widget, error) { return cur, nil }, UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if again := r.raw(t)[r.st.key("a", "secret")]; again != after[r.st.key("a", "secret")] {
		t.Fatalf("an unchanged update of a current value wrote: %q", again)
	}

	// Without the key nothing reads.
	gone := encryptedFixture(t, p, encryptionConfig(t, "k3"))
	_, err = gone.st.Get(ctx, "a", "secret", GetOptions{})
	wantStatus(t, err, 500, "InternalError", "~decrypt stored")
}

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
