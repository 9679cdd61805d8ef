package e2e

import (
	"bufio"
	"crypto/tls"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// TestNamedListsAndWatchPaths: a list or watch narrowed to one name by
// `fieldSelector=metadata.name=` is authorized as that name, so a Role
// whose rule names resources allows it (kubectl get NAME -w, and informers
// of one object, do this); a named GET with ?watch is a get; and the
// deprecated /watch/ paths kube-apiserver still serves are the list's
// watch, of a collection or of one name, as on kube-apiserver.
func TestNamedListsAndWatchPaths(t *testing.T) {
	s := newServer(t, "--token-auth-file", tokenFile(t, "carol-token,carol,uid-carol\n"))
	cs := kubernetes.NewForConfigOrDie(s.config)
	c := ctx(t, time.Minute)
	for _, name := range []string{"mine", "theirs"} {
		if _, err := cs.CoreV1().ConfigMaps("default").Create(c, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := cs.RbacV1().Roles("default").Create(c, &rbacv1.Role{
		ObjectMeta: metav1.ObjectMeta{Name: "one-configmap"},
		Rules:      []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"configmaps"}, ResourceNames: []string{"mine"}, Verbs: []string{"get", "list", "watch"}}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.RbacV1().RoleBindings("default").Create(c, &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "carol-one-configmap"},
		RoleRef:    rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: "one-configmap"},
		Subjects:   []rbacv1.Subject{{Kind: "User", APIGroup: "rbac.authorization.k8s.io", Name: "carol"}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	tc, err := rest.TLSConfigFor(s.config)
	if err != nil {
		t.Fatal(err)
	}
	carol := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: tc.RootCAs, ServerName: tc.ServerName}}}
	admin, err := rest.HTTPClientFor(s.config)
	if err != nil {
		t.Fatal(err)
	}
	const cms = "/api/v1/namespaces/default/configmaps"
	// open sends a GET and returns the response, its body unread.
	open := func(hc *http.Client, path string) *http.Response {
		t.Helper()
		req, err := http.NewRequestWithContext(c, "GET", s.config.Host+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		if hc == carol {
			req.Header.Set("Authorization", "Bearer carol-token")
		}
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
		return resp
	}
	status := func(hc *http.Client, path string) int {
		t.Helper()
		resp := open(hc, path)
		resp.Body.Close()
		return resp.StatusCode
	}
	// firstNames reads a watch until it has seen n events and returns
	// their objects' names.
	firstNames := func(resp *http.Response, n int) []string {
		t.Helper()
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("watch %s: %d", resp.Request.URL, resp.StatusCode)
		}
		var names []string
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for len(names) < n && sc.Scan() {
			var ev struct {
				Type   string
				Object struct{ Metadata struct{ Name string } }
			}
			if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
				t.Fatalf("watch %s: line %q: %v", resp.Request.URL, sc.Text(), err)
			}
			names = append(names, ev.Type+" "+ev.Object.Metadata.Name)
		}
		return names
	}

	for _, tc := range []struct {
		path string
		want int
	}{
		// Narrowed to the name her rule names: allowed, listed or watched.
		{cms + "?fieldSelector=metadata.name%3Dmine", http.StatusOK},
		{cms + "?fieldSelector=metadata.name%3D%3Dmine,metadata.namespace%3Ddefault", http.StatusOK},
		{cms + "/mine", http.StatusOK},
		{cms + "/mine?watch=true", http.StatusOK}, // a get, not a watch
		// Anything else: forbidden.
		{cms, http.StatusForbidden},
		{cms + "?fieldSelector=metadata.name%3Dtheirs", http.StatusForbidden},
		{cms + "?fieldSelector=metadata.name!%3Dtheirs", http.StatusForbidden},
		{cms + "/theirs", http.StatusForbidden},
		{"/api/v1/watch/namespaces/default/configmaps", http.StatusForbidden},
		{"/api/v1/watch/namespaces/default/configmaps/theirs", http.StatusForbidden},
	} {
		if got := status(carol, tc.path); got != tc.want {
			t.Errorf("carol GET %s: %d, want %d", tc.path, got, tc.want)
		}
	}
	// A named GET with ?watch answers the object, not a stream.
	resp := open(carol, cms+"/mine?watch=true")
	var cm corev1.ConfigMap
	if err := json.NewDecoder(resp.Body).Decode(&cm); err != nil || cm.Name != "mine" {
		t.Errorf("GET mine?watch=true: %v %q", err, cm.Name)
	}
	resp.Body.Close()

	// Her watch of the one name, by field selector and by the old path.
	for _, path := range []string{
		cms + "?watch=true&fieldSelector=metadata.name%3Dmine",
		"/api/v1/watch/namespaces/default/configmaps/mine",
	} {
		if got := firstNames(open(carol, path), 1); len(got) != 1 || got[0] != "ADDED mine" {
			t.Errorf("carol's watch %s: %q", path, got)
		}
	}
	// The admin's watch of the collection by the old paths sees both;
	// of one name, that one.
	for path, want := range map[string]int{
		"/api/v1/watch/namespaces/default/configmaps":                         2,
		"/api/v1/watch/configmaps?fieldSelector=metadata.namespace%3Ddefault": 2,
	} {
		got := firstNames(open(admin, path), want)
		if strings.Join(got, ",") != "ADDED mine,ADDED theirs" && strings.Join(got, ",") != "ADDED theirs,ADDED mine" {
			t.Errorf("admin's watch %s: %q", path, got)
		}
	}
	if got := firstNames(open(admin, "/api/v1/watch/namespaces/default/configmaps/theirs"), 1); len(got) != 1 || got[0] != "ADDED theirs" {
		t.Errorf("admin's watch of theirs: %q", got)
	}
	// A field selector that names another object is kube's 400.
	if got := status(admin, "/api/v1/watch/namespaces/default/configmaps/theirs?fieldSelector=metadata.name%3Dmine"); got != http.StatusBadRequest {
		t.Errorf("watch path with a conflicting field selector: %d, want 400", got)
	}
}
