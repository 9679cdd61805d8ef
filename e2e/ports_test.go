package e2e

import (
	"net/url"
	"strconv"
	"testing"

	"github.com/kubeforge/kubeforge/internal/freeport"
)

// freePort is a port for a server the test starts with a port number
// (internal/freeport says why not one from listening on :0).
func freePort(t *testing.T) int {
	t.Helper()
	p, err := freeport.Pick()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func freeURL(t *testing.T) url.URL {
	t.Helper()
	return url.URL{Scheme: "http", Host: "127.0.0.1:" + strconv.Itoa(freePort(t))}
}
