package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
)

const shipmentsPath = "/apis/shipping.kubeforge.dev/v1/namespaces/bad-input/shipments"

// validShipmentJSON is a valid body with the given metadata fields spliced in.
func validShipmentJSON(meta string) string {
	return `{"apiVersion":"shipping.kubeforge.dev/v1","kind":"Shipment","metadata":{` + meta + `},` +
		`"spec":{"origin":{"street":"a","city":"b"},"destination":{"street":"c","city":"d"},"parcels":[{"name":"p","weight":"1"}]}}`
}

// TestBadInput sends malformed or invalid requests over raw HTTP. Every one
// must get a Kubernetes Status with a 4xx code (never a 500), and nothing may
// be stored.
//
// The embedded etcd belongs to the apiserver process while it runs, so this
// test cannot read it directly; it proves that nothing was stored with
// quorum lists (resourceVersion unset) through the API before and after each
// request. The storage and endpoint unit tests in the main module read etcd
// directly.
func TestBadInput(t *testing.T) {
	s := sharedServer(t)
	s.ensureNamespaces(t, "bad-input")
	httpc, err := rest.HTTPClientFor(s.config)
	if err != nil {
		t.Fatalf("http client: %v", err)
	}
	httpc.Timeout = 30 * time.Second

	do := func(method, path, contentType string, body []byte) (int, []byte) {
		t.Helper()
		req, err := http.NewRequest(method, s.config.Host+path, bytes.NewReader(body))
		if err != nil {
			t.Fatalf("request: %v", err)
		}
		if contentType != "" {
			req.Header.Set("Content-Type", contentType)
		}
		req.Header.Set("Accept", "application/json")
		resp, err := httpc.Do(req)
		if err != nil {
			t.Fatalf("%s %s: %v", method, path, err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatalf("%s %s: read body: %v", method, path, err)
		}
		return resp.StatusCode, b
	}

	// The target of the patch cases.
	code, b := do("POST", shipmentsPath, "application/json", []byte(validShipmentJSON(`"name":"target"`)))
	if code != http.StatusCreated {
		t.Fatalf("create target: %d %s", code, b)
	}

	// snapshot is every stored shipment and warehouse, name -> resourceVersion,
	// read with quorum lists.
	snapshot := func() map[string]string {
		t.Helper()
		out := map[string]string{}
		for _, p := range []string{"/apis/shipping.kubeforge.dev/v1/shipments", "/apis/infra.kubeforge.dev/v1/warehouses"} {
			code, b := do("GET", p, "", nil)
			if code != http.StatusOK {
				t.Fatalf("list %s: %d %s", p, code, b)
			}
			var l metav1.PartialObjectMetadataList
			if err := json.Unmarshal(b, &l); err != nil {
				t.Fatalf("decode list %s: %v", p, err)
			}
			for _, it := range l.Items {
				out[p+" "+it.Namespace+"/"+it.Name] = it.ResourceVersion
			}
		}
		return out
	}

	big := validShipmentJSON(`"name":"big","annotations":{"a":"` + strings.Repeat("x", 3<<20) + `"}`)
	cases := []struct {
		name        string
		method      string
		path        string
		contentType string
		body        string
	}{
		{"malformed JSON", "POST", shipmentsPath, "application/json", `{"apiVersion":"shipping.kubeforge.dev/v1","kind":"Shipment","metadata":{"name":"mal"`},
		{"JSON of the wrong shape", "POST", shipmentsPath, "application/json", `{"apiVersion":"shipping.kubeforge.dev/v1","kind":"Shipment","metadata":{"name":"shape"},"spec":{"parcels":"many"}}`},
		{"YAML with tabs", "POST", shipmentsPath, "application/yaml",
			"apiVersion: shipping.kubeforge.dev/v1\nkind: Shipment\nmetadata:\n\tname: tabs\nspec:\n\torigin: {street: a, city: b}\n"},
		{"kind mismatch with the URL", "POST", shipmentsPath, "application/json",
			`{"apiVersion":"infra.kubeforge.dev/v1","kind":"Warehouse","metadata":{"name":"wrongkind"},"spec":{"region":"x"}}`},
		{"apiVersion mismatch with the URL", "POST", shipmentsPath, "application/json",
			strings.Replace(validShipmentJSON(`"name":"wrongversion"`), "shipping.kubeforge.dev/v1", "shipping.kubeforge.dev/v9", 1)},
		{"namespace in body differs from URL", "POST", shipmentsPath, "application/json", validShipmentJSON(`"name":"otherns","namespace":"elsewhere"`)},
		{"uppercase name", "POST", shipmentsPath, "application/json", validShipmentJSON(`"name":"Upper"`)},
		{"name with a slash", "POST", shipmentsPath, "application/json", validShipmentJSON(`"name":"a/b"`)},
		{"name ..", "POST", shipmentsPath, "application/json", validShipmentJSON(`"name":".."`)},
		{"name of 254 characters", "POST", shipmentsPath, "application/json", validShipmentJSON(`"name":"` + strings.Repeat("a", 254) + `"`)},
		{"body over 3 MiB", "POST", shipmentsPath, "application/json", big},
		{"invalid object (enum)", "POST", shipmentsPath, "application/json",
			strings.Replace(validShipmentJSON(`"name":"badenum"`), `"spec":{`, `"spec":{"priority":"Whenever",`, 1)},
		{"PUT name differs from URL", "PUT", shipmentsPath + "/target", "application/json", validShipmentJSON(`"name":"other","resourceVersion":"1"`)},
		{"bad label selector", "GET", shipmentsPath + "?labelSelector=" + url.QueryEscape("tier in (gold"), "", ""},
		{"unsupported field selector", "GET", shipmentsPath + "?fieldSelector=" + url.QueryEscape("spec.priority=Low"), "", ""},
		{"non-numeric resourceVersion", "GET", shipmentsPath + "?resourceVersion=abc", "", ""},
		{"non-numeric resourceVersion on get", "GET", shipmentsPath + "/target?resourceVersion=abc", "", ""},
		{"corrupt continue token", "GET", shipmentsPath + "?limit=1&continue=" + url.QueryEscape("not-a-token!"), "", ""},
		{"unknown patch type", "PATCH", shipmentsPath + "/target", "application/x-unknown-patch", `{"spec":{"priority":"Low"}}`},
		{"JSON patch whose test op fails", "PATCH", shipmentsPath + "/target", "application/json-patch+json",
			`[{"op":"test","path":"/spec/priority","value":"Urgent"},{"op":"replace","path":"/spec/priority","value":"Low"}]`},
		{"malformed merge patch", "PATCH", shipmentsPath + "/target", "application/merge-patch+json", `{"spec":`},
		{"merge patch to an invalid object", "PATCH", shipmentsPath + "/target", "application/merge-patch+json", `{"spec":{"parcels":[]}}`},
		{"bad dryRun value", "POST", shipmentsPath + "?dryRun=Sometimes", "application/json", validShipmentJSON(`"name":"dry"`)},
		{"strict decoding with an unknown field", "POST", shipmentsPath + "?fieldValidation=Strict", "application/json",
			strings.Replace(validShipmentJSON(`"name":"strict"`), `"spec":{`, `"spec":{"replcas":3,`, 1)},
	}
	before := snapshot()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, b := do(tc.method, tc.path, tc.contentType, []byte(tc.body))
			if code < 400 || code >= 500 {
				t.Fatalf("%s %s: HTTP %d, want 4xx; body: %.300s", tc.method, tc.path, code, b)
			}
			var st metav1.Status
			if err := json.Unmarshal(b, &st); err != nil {
				t.Fatalf("HTTP %d body is not a Status: %v: %.300s", code, err, b)
			}
			if st.Kind != "Status" || st.APIVersion != "v1" || st.Status != metav1.StatusFailure || int(st.Code) != code || st.Message == "" {
				t.Fatalf("Status: kind=%q apiVersion=%q status=%q code=%d (HTTP %d) message=%q", st.Kind, st.APIVersion, st.Status, st.Code, code, st.Message)
			}
			after := snapshot()
			if diff := diffSnapshots(before, after); diff != "" {
				t.Fatalf("the request changed what is stored: %s", diff)
			}
		})
	}
}

func diffSnapshots(before, after map[string]string) string {
	var out []string
	for k, v := range after {
		if w, ok := before[k]; !ok {
			out = append(out, "added "+k)
		} else if w != v {
			out = append(out, fmt.Sprintf("changed %s (rv %s -> %s)", k, w, v))
		}
	}
	for k := range before {
		if _, ok := after[k]; !ok {
			out = append(out, "removed "+k)
		}
	}
	return strings.Join(out, "; ")
}
