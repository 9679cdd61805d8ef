package storage

import (
	"errors"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// FuzzContinue decodes arbitrary continue tokens: valid ones round-trip
// and stay under their prefix, the rest are errInvalidContinue.
func FuzzContinue(f *testing.F) {
	good, err := encodeContinue("/registry/g/things/ns/b\x00", "/registry/g/things/", 42)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add("eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MSwic3RhcnQiOiIuLi8uLi94In0")
	f.Add("")
	f.Add("%%%")
	f.Fuzz(func(t *testing.T, token string) {
		const prefix = "/registry/g/things/"
		key, rev, err := decodeContinue(token, prefix)
		if err != nil {
			if !errors.Is(err, errInvalidContinue) {
				t.Fatalf("%q: %v is not errInvalidContinue", token, err)
			}
			return
		}
		if !strings.HasPrefix(key, prefix) {
			t.Fatalf("%q: key %q escapes %q", token, key, prefix)
		}
		again, err := encodeContinue(key, prefix, rev)
		if err != nil {
			t.Fatalf("%q: re-encode: %v", token, err)
		}
		if k2, r2, err := decodeContinue(again, prefix); err != nil || k2 != key || r2 != rev {
			t.Fatalf("%q: round trip %q %d %v", token, k2, r2, err)
		}
	})
}

// FuzzNames builds keys from arbitrary namespaces and names: a 4xx Status
// or a key that stays under the resource's prefix.
func FuzzNames(f *testing.F) {
	f.Add("default", "a")
	f.Add("..", "x")
	f.Add("a", "../../secrets/kube-system/x")
	f.Add("", "a/b")
	st := NewStore(NewBackend(nil, "/registry", BackendOptions{}), widgetStrategy(true, false))
	f.Fuzz(func(t *testing.T, ns, name string) {
		key, err := st.readKey(ns, name)
		if err != nil {
			var se apierrors.APIStatus
			if !errors.As(err, &se) || se.Status().Code >= 500 {
				t.Fatalf("%q/%q: %v", ns, name, err)
			}
			return
		}
		if !strings.HasPrefix(key, st.listPrefix(ns)) || strings.Contains(strings.TrimPrefix(key, st.resourcePrefix()), "/..") {
			t.Fatalf("%q/%q: key %q", ns, name, key)
		}
	})
}
