package delegate

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kubeforge/kubeforge/runtime/auth"
	"github.com/kubeforge/kubeforge/runtime/pki"
	"github.com/kubeforge/kubeforge/runtime/request"
)

// TestParseTrust reads the ConfigMap as kube-apiserver writes it (header
// lists as JSON), and refuses what it cannot trust.
func TestParseTrust(t *testing.T) {
	ca, err := pki.EnsureCA(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	data := map[string]string{
		"client-ca-file":                     string(ca.PEM),
		"requestheader-client-ca-file":       string(ca.PEM),
		"requestheader-allowed-names":        `["front-proxy-client"]`,
		"requestheader-username-headers":     `["X-Remote-User"]`,
		"requestheader-group-headers":        `["X-Remote-Group"]`,
		"requestheader-extra-headers-prefix": `["X-Remote-Extra-"]`,
		"requestheader-uid-headers":          `["X-Remote-Uid"]`,
	}
	rh, clientCAs, err := ParseTrust(data)
	if err != nil {
		t.Fatal(err)
	}
	if clientCAs == nil || rh == nil || rh.CAs == nil {
		t.Fatalf("trust: %+v %v", rh, clientCAs)
	}
	if !slices.Equal(rh.AllowedNames, []string{"front-proxy-client"}) || !slices.Equal(rh.UsernameHeaders, []string{"X-Remote-User"}) ||
		!slices.Equal(rh.GroupHeaders, []string{"X-Remote-Group"}) || !slices.Equal(rh.ExtraHeaderPrefixes, []string{"X-Remote-Extra-"}) ||
		!slices.Equal(rh.UIDHeaders, []string{"X-Remote-Uid"}) {
		t.Errorf("front proxy: %+v", rh)
	}
	// Without a request-header CA there is no front proxy, and the client
	// CA alone is still read.
	rh, clientCAs, err = ParseTrust(map[string]string{"client-ca-file": string(ca.PEM)})
	if err != nil || rh != nil || clientCAs == nil {
		t.Errorf("client CA only: %+v %v %v", rh, clientCAs, err)
	}
	for key, bad := range map[string]string{
		"requestheader-client-ca-file":   "not PEM",
		"client-ca-file":                 "not PEM",
		"requestheader-allowed-names":    `front-proxy-client`,
		"requestheader-username-headers": `[1]`,
	} {
		d := map[string]string{}
		for k, v := range data {
			d[k] = v
		}
		d[key] = bad
		if _, _, err := ParseTrust(d); err == nil || !strings.Contains(err.Error(), key) {
			t.Errorf("%s=%q: want an error naming the key, got %v", key, bad, err)
		}
	}
}

// TestTTLCache: answers expire, and the cache never holds more than its
// bound whatever is put in.
func TestTTLCache(t *testing.T) {
	c := newTTLCache[int](100)
	c.put("a", 1, time.Hour)
	c.put("gone", 2, time.Nanosecond)
	c.put("never", 3, 0)
	time.Sleep(time.Millisecond)
	if v, ok := c.get("a"); !ok || v != 1 {
		t.Errorf("a: %v %v", v, ok)
	}
	if _, ok := c.get("gone"); ok {
		t.Error("an expired answer was served")
	}
	if _, ok := c.get("never"); ok {
		t.Error("a zero TTL was remembered")
	}
	for i := range 1000 {
		c.put(fmt.Sprint(i), i, time.Hour)
		if len(c.m) > 100 {
			t.Fatalf("%d entries, bound 100", len(c.m))
		}
	}
}

// TestReviewSpec: a request's attributes become the SubjectAccessReview
// kube-apiserver's webhook authorizer sends.
func TestReviewSpec(t *testing.T) {
	u := &auth.User{Name: "alice", UID: "1", Groups: []string{"dev"}, Extra: map[string][]string{"scopes": {"a"}}}
	s := reviewSpec(auth.Attributes{User: u, Info: request.Info{Verb: "create", IsResourceRequest: true, APIGroup: "g", APIVersion: "v1", Namespace: "ns", Resource: "things", Subresource: "status", Name: "x"}})
	if s.User != "alice" || s.UID != "1" || !slices.Equal(s.Groups, []string{"dev"}) || !slices.Equal([]string(s.Extra["scopes"]), []string{"a"}) {
		t.Errorf("subject: %+v", s)
	}
	if r := s.ResourceAttributes; r == nil || r.Verb != "create" || r.Group != "g" || r.Version != "v1" || r.Namespace != "ns" || r.Resource != "things" || r.Subresource != "status" || r.Name != "x" || s.NonResourceAttributes != nil {
		t.Errorf("resource attributes: %+v", s)
	}
	s = reviewSpec(auth.Attributes{User: u, Info: request.Info{Verb: "get", Path: "/version"}})
	if s.NonResourceAttributes == nil || s.NonResourceAttributes.Path != "/version" || s.NonResourceAttributes.Verb != "get" || s.ResourceAttributes != nil {
		t.Errorf("non-resource attributes: %+v", s)
	}
}
