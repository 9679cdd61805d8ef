package server_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestNamespaceNamedAsLabel: a namespace's name is a DNS-1123 label, and
// a name that is not one is refused with kube-apiserver's label message,
// whether or not it would pass as another object's name (a subdomain).
func TestNamespaceNamedAsLabel(t *testing.T) {
	s := startSecureServer(t, "ns-user")
	for name, ok := range map[string]bool{"team-a": true, "Bad_Name": false, "a.b": false, strings.Repeat("n", 64): false} {
		resp, err := s.admin.Post(s.url+"/api/v1/namespaces", "application/json",
			strings.NewReader(`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"`+name+`"}}`))
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if ok {
			if resp.StatusCode != http.StatusCreated {
				t.Errorf("%s: %d %s", name, resp.StatusCode, body)
			}
			continue
		}
		var st struct{ Message string }
		_ = json.Unmarshal(body, &st)
		// apimachinery's IsDNS1123Label messages: the pattern, dots, length.
		if resp.StatusCode != http.StatusUnprocessableEntity || strings.Contains(st.Message, "subdomain") ||
			name == "Bad_Name" && !strings.Contains(st.Message, "RFC 1123 label") {
			t.Errorf("%s: %d %s, want kube's 422 for a label", name, resp.StatusCode, st.Message)
		}
	}
}
