package request

import (
	"net/http/httptest"
	"testing"
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
	} {
		ri := Parse(httptest.NewRequest(tc.method, tc.url, nil))
		if ri.Verb != tc.verb || ri.Resource != tc.resource || ri.Subresource != tc.sub || ri.Namespace != tc.ns ||
			ri.Name != tc.name || ri.APIGroup != tc.grp || ri.IsResourceRequest != tc.resourceReq ||
			ri.IsLongRunning() != tc.long || ri.IsMutating() != tc.mutating {
			t.Errorf("%s %s = %+v", tc.method, tc.url, ri)
		}
	}
}
