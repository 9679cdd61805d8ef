package authn

import (
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubeforge/kubeforge/runtime/auth"
)

// TestTokenFileAndAnonymous: kube's CSV token file; a known token is its
// user plus system:authenticated, an unknown one is refused even when
// anonymous requests are allowed, none is anonymous or refused.
func TestTokenFileAndAnonymous(t *testing.T) {
	p := filepath.Join(t.TempDir(), "tokens.csv")
	if err := os.WriteFile(p, []byte("# comment\nsecret1,alice,1001,\"dev,ops\"\nsecret2,bob,1002\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tf, err := LoadTokenFile(p)
	if err != nil {
		t.Fatal(err)
	}
	a := &Authenticator{Tokens: []TokenAuthenticator{tf}, Anonymous: true}
	req := func(token string) *http.Request {
		r, _ := http.NewRequestWithContext(context.Background(), "GET", "https://x/api", nil)
		if token != "" {
			r.Header.Set("Authorization", "Bearer "+token)
		}
		return r
	}
	u, err := a.Authenticate(req("secret1"))
	if err != nil || u.Name != "alice" || u.UID != "1001" || strings.Join(u.Groups, ",") != "dev,ops,"+auth.AllAuthenticated {
		t.Errorf("alice: %+v %v", u, err)
	}
	if _, err := a.Authenticate(req("nope")); !errors.Is(err, ErrUnauthorized) {
		t.Errorf("unknown token: %v", err)
	}
	u, err = a.Authenticate(req(""))
	if err != nil || u.Name != auth.Anonymous || !u.InGroup(auth.AllUnauthenticated) {
		t.Errorf("anonymous: %+v %v", u, err)
	}
	a.Anonymous = false
	if _, err := a.Authenticate(req("")); !errors.Is(err, ErrUnauthorized) {
		t.Errorf("anonymous off: %v", err)
	}
	for _, bad := range []string{"onlytoken,user\n", "t,u,1\nt,v,2\n", ",u,1\n"} {
		if err := os.WriteFile(p, []byte(bad), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := LoadTokenFile(p); err == nil {
			t.Errorf("token file %q: want an error", bad)
		}
	}
}
