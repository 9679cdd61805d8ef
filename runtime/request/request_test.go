package request

import (
	"net/http/httptest"
	"testing"

	"k8s.io/apimachinery/pkg/api/validation/path"
	"k8s.io/apimachinery/pkg/fields"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		method, url                        string
		verb, resource, sub, ns, name, grp string
		resourceReq, long, mutating        bool
	}{
		{"GET", "/apis/g.dev/v1/namespaces/ns/widgets", "list", "widgets", "", "ns", "", "g.dev", true, false, false},
		{"GET", "/apis/g.dev/v1/namespaces/ns/widgets?watch=true", "watch", "widgets", "", "ns", "", "g.dev", true, true, false},
		{"GET", "/apis/g.dev/v1/widgets?watch=1", "watch", "widgets", "", "", "", "g.dev", true, true, false},
		// Any value but false and 0 is a watch, as kube-apiserver's parameter
		// codec reads it, for the filters and the handler alike.
		{"GET", "/apis/g.dev/v1/widgets?watch=yes", "watch", "widgets", "", "", "", "g.dev", true, true, false},
		{"GET", "/apis/g.dev/v1/widgets?watch=TRUE", "watch", "widgets", "", "", "", "g.dev", true, true, false},
		{"GET", "/apis/g.dev/v1/widgets?watch=False", "list", "widgets", "", "", "", "g.dev", true, false, false},
		{"GET", "/apis/g.dev/v1/widgets?watch=0", "list", "widgets", "", "", "", "g.dev", true, false, false},
		{"GET", "/apis/g.dev/v1/widgets?watch=", "watch", "widgets", "", "", "", "g.dev", true, true, false},
		{"GET", "/apis/g.dev/v1/namespaces/ns/widgets/w1", "get", "widgets", "", "ns", "w1", "g.dev", true, false, false},
		{"PATCH", "/apis/g.dev/v1/namespaces/ns/widgets/w1/status", "patch", "widgets", "status", "ns", "w1", "g.dev", true, false, true},
		{"POST", "/apis/g.dev/v1/zones", "create", "zones", "", "", "", "g.dev", true, false, true},
		{"PUT", "/apis/g.dev/v1/zones/z", "update", "zones", "", "", "z", "g.dev", true, false, true},
		{"DELETE", "/apis/g.dev/v1/namespaces/ns/widgets", "deletecollection", "widgets", "", "ns", "", "g.dev", true, false, true},
		{"GET", "/api/v1/namespaces/ns", "get", "namespaces", "", "ns", "ns", "", true, false, false},
		{"GET", "/apis/g.dev/v1", "get", "", "", "", "", "g.dev", false, false, false},
		{"GET", "/healthz", "get", "", "", "", "", "", false, false, false},
		// A named GET is a get, ?watch or not (kube's request info).
		{"GET", "/apis/g.dev/v1/namespaces/ns/widgets/w1?watch=true", "get", "widgets", "", "ns", "w1", "g.dev", true, false, false},
		// A list or watch narrowed to one name by field selector carries
		// the name (a role's resourceNames then apply); escapes undone.
		{"GET", "/api/v1/namespaces/ns/configmaps?fieldSelector=metadata.name%3Dcm", "list", "configmaps", "", "ns", "cm", "", true, false, false},
		{"GET", "/api/v1/namespaces/ns/configmaps?watch=1&fieldSelector=a%3Db,metadata.name%3D%3Dcm", "watch", "configmaps", "", "ns", "cm", "", true, true, false},
		{"GET", `/api/v1/configmaps?fieldSelector=metadata.name%3Da\,b`, "list", "configmaps", "", "", "a,b", "", true, false, false},
		{"GET", "/api/v1/configmaps?fieldSelector=metadata.name!%3Dcm", "list", "configmaps", "", "", "", "", true, false, false},
		{"GET", "/api/v1/configmaps?fieldSelector=metadata.name%3Da%3Db", "list", "configmaps", "", "", "", "", true, false, false},
		{"GET", "/api/v1/configmaps?fieldSelector=metadata.name%3Da,bad", "list", "configmaps", "", "", "", "", true, false, false},
		{"GET", "/api/v1/configmaps?fieldSelector=metadata.name%3D..", "list", "configmaps", "", "", "", "", true, false, false},
		{"GET", "/api/v1/configmaps?fieldSelector=metadata.name%3Da%2Fb", "list", "configmaps", "", "", "", "", true, false, false},
		{"DELETE", "/api/v1/namespaces/ns/configmaps?fieldSelector=metadata.name%3Dcm", "deletecollection", "configmaps", "", "ns", "", "", true, false, true},
		// The deprecated /watch/ paths.
		{"GET", "/apis/g.dev/v1/watch/namespaces/ns/widgets", "watch", "widgets", "", "ns", "", "g.dev", true, true, false},
		{"GET", "/apis/g.dev/v1/watch/namespaces/ns/widgets/w1", "watch", "widgets", "", "ns", "w1", "g.dev", true, true, false},
		{"GET", "/apis/g.dev/v1/watch/zones?fieldSelector=metadata.name%3Dz", "watch", "zones", "", "", "", "g.dev", true, true, false},
		{"GET", "/api/v1/watch/namespaces/ns", "watch", "namespaces", "", "ns", "ns", "", true, true, false},
		{"GET", "/api/v1/watch/namespaces", "watch", "namespaces", "", "", "", "", true, true, false},
	} {
		ri := Parse(httptest.NewRequest(tc.method, tc.url, nil))
		if ri.Verb != tc.verb || ri.Resource != tc.resource || ri.Subresource != tc.sub || ri.Namespace != tc.ns ||
			ri.Name != tc.name || ri.APIGroup != tc.grp || ri.IsResourceRequest != tc.resourceReq ||
			ri.IsLongRunning() != tc.long || ri.IsMutating() != tc.mutating {
			t.Errorf("%s %s = %+v", tc.method, tc.url, ri)
		}
	}
}

// FuzzExactName holds exactName to apimachinery's field selector parser:
// the name a selector requires (RequiresExactMatch of metadata.name), when
// it parses and the name could be a path segment, as kube's request info
// takes it.
func FuzzExactName(f *testing.F) {
	for _, s := range []string{"metadata.name=a", "metadata.name==a,x=y", `metadata.name=a\,b`, "metadata.name!=a",
		"x=1,metadata.name=b,metadata.name=c", "metadata.name=a=b", `metadata.name=a\`, "bad", " metadata.name =x", "metadata.name=..", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, sel string) {
		want, wantOK := "", false
		if parsed, err := fields.ParseSelector(sel); err == nil {
			if name, ok := parsed.RequiresExactMatch("metadata.name"); ok && len(path.IsValidPathSegmentName(name)) == 0 {
				want, wantOK = name, true
			}
		}
		got, ok := exactName(sel)
		if got != want || ok != wantOK {
			t.Fatalf("exactName(%q) = %q, %v; apimachinery: %q, %v", sel, got, ok, want, wantOK)
		}
	})
}
