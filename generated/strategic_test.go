package generated_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	openapi_v2 "github.com/google/gnostic-models/openapiv2"
	"google.golang.org/protobuf/proto"
)

const smp = "application/strategic-merge-patch+json"

func parcelNames(o obj) []string {
	var out []string
	for _, p := range o["spec"].(obj)["parcels"].([]any) {
		out = append(out, p.(obj)["name"].(string))
	}
	return out
}

func tags(o obj) []any {
	t, _ := o["spec"].(obj)["tags"].([]any)
	return t
}

// TestStrategicMergePatchOwnKinds: a shipment's +listType=map parcels
// merge by name and its +listType=set tags merge by value, through both
// served versions, with kube's directives; malformed patches are 4xx and
// store nothing.
func TestStrategicMergePatchOwnKinds(t *testing.T) {
	base := startServer(t)
	spec := obj{
		"origin":      obj{"street": "A 1", "city": "Bonn"},
		"destination": obj{"street": "B 2", "city": "Köln"},
		"parcels":     []any{obj{"name": "a", "count": 1}, obj{"name": "b", "count": 2}},
		"tags":        []any{"x", "y"},
	}
	mustCall(t, http.StatusCreated, "POST", base+v1Path, v1Shipment("s1", spec), "")
	u := base + v1Path + "/s1"

	// A new parcel is merged in by name, an existing one changes in place.
	got := mustCall(t, http.StatusOK, "PATCH", u, obj{"spec": obj{"parcels": []any{obj{"name": "b", "count": 5}, obj{"name": "c"}}}}, smp)
	if names := parcelNames(got); !reflect.DeepEqual(names, []string{"a", "b", "c"}) {
		t.Errorf("parcels after merge = %v, want [a b c]", names)
	}
	if n := got["spec"].(obj)["parcels"].([]any)[1].(obj)["count"]; n != float64(5) {
		t.Errorf("parcel b count = %v, want 5", n)
	}
	// Defaults apply to the merged-in item, as on any write.
	if n := got["spec"].(obj)["parcels"].([]any)[2].(obj)["count"]; n != float64(1) {
		t.Errorf("parcel c count = %v, want the default 1", n)
	}
	// A merge patch replaces the list: the contrast that shows the strategy.
	// $patch: delete removes one item by key.
	got = mustCall(t, http.StatusOK, "PATCH", u, obj{"spec": obj{"parcels": []any{obj{"name": "a", "$patch": "delete"}}}}, smp)
	if names := parcelNames(got); !reflect.DeepEqual(names, []string{"b", "c"}) {
		t.Errorf("parcels after $patch: delete = %v, want [b c]", names)
	}
	// $setElementOrder reorders.
	got = mustCall(t, http.StatusOK, "PATCH", u, obj{"spec": obj{"$setElementOrder/parcels": []any{obj{"name": "c"}, obj{"name": "b"}}}}, smp)
	if names := parcelNames(got); !reflect.DeepEqual(names, []string{"c", "b"}) {
		t.Errorf("parcels after $setElementOrder = %v, want [c b]", names)
	}
	// Sets merge by value; $deleteFromPrimitiveList removes values.
	// (Without $setElementOrder the patch's items come first, as in
	// kube-apiserver; kubectl sends the order it wants.)
	got = mustCall(t, http.StatusOK, "PATCH", u, obj{"spec": obj{"tags": []any{"z"}}}, smp)
	if tg := tags(got); !reflect.DeepEqual(tg, []any{"z", "x", "y"}) {
		t.Errorf("tags after merge = %v, want [z x y]", tg)
	}
	got = mustCall(t, http.StatusOK, "PATCH", u, obj{"spec": obj{"$deleteFromPrimitiveList/tags": []any{"x"}}}, smp)
	if tg := tags(got); !reflect.DeepEqual(tg, []any{"z", "y"}) {
		t.Errorf("tags after $deleteFromPrimitiveList = %v, want [z y]", tg)
	}
	// $patch: replace on a list replaces it.
	got = mustCall(t, http.StatusOK, "PATCH", u, obj{"spec": obj{"parcels": []any{obj{"name": "d", "count": 1}, obj{"$patch": "replace"}}}}, smp)
	if names := parcelNames(got); !reflect.DeepEqual(names, []string{"d"}) {
		t.Errorf("parcels after $patch: replace = %v, want [d]", names)
	}
	rv := got["metadata"].(obj)["resourceVersion"]

	// Through v1alpha1: the same parcels list merges by name there too.
	got = mustCall(t, http.StatusOK, "PATCH", base+alphaPath+"/s1", obj{"spec": obj{"parcels": []any{obj{"name": "e", "count": 1}}}}, smp)
	if names := parcelNames(got); !reflect.DeepEqual(names, []string{"e", "d"}) {
		t.Errorf("v1alpha1 parcels after merge = %v, want [e d]", names)
	}
	rv = got["metadata"].(obj)["resourceVersion"]

	// Malformed patches: 4xx, never 5xx, nothing stored.
	for _, bad := range []struct {
		body string
		code int
		msg  string
	}{
		{`[1,2]`, 400, "must be a JSON object"},
		{`{"spec":{"parcels":[{"name":"d","$patch":"bogus"}]}}`, 0, ""},
		{`{"spec":{"$retainKeys":"x"}}`, 0, ""},
		{`{"spec":{"parcels":[{"count":3}]}}`, 0, ""},
		{`{"spec":{"priority":"Nope"}}`, 422, "spec.priority"},
		{`{"metadata":{"name":"other"}}`, 400, "does not match the name"},
	} {
		code, status := callRaw(t, "PATCH", u, bad.body, smp)
		if code < 400 || code >= 500 || (bad.code != 0 && code != bad.code) {
			t.Errorf("patch %s: %d %v, want a 4xx", bad.body, code, status)
			continue
		}
		if status["kind"] != "Status" || (bad.msg != "" && !strings.Contains(fmt.Sprint(status["message"]), bad.msg)) {
			t.Errorf("patch %s: status %v, want a Status saying %q", bad.body, status, bad.msg)
		}
	}
	cur := mustCall(t, http.StatusOK, "GET", u, nil, "")
	if cur["metadata"].(obj)["resourceVersion"] != rv {
		t.Errorf("a rejected patch changed the shipment: resourceVersion %v, want %v", cur["metadata"].(obj)["resourceVersion"], rv)
	}
}

// TestStrategicMergePatchBuiltinKinds: Leases and Namespaces take strategic
// merge patches as on kube-apiserver, which merges by k8s.io/api's struct
// tags (ownerReferences by uid, finalizers as a set).
func TestStrategicMergePatchBuiltinKinds(t *testing.T) {
	base := startServer(t)
	leases := base + "/apis/coordination.k8s.io/v1/namespaces/default/leases"
	mustCall(t, http.StatusCreated, "POST", leases, obj{"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
		"metadata": obj{"name": "l1", "finalizers": []any{"a.dev/x"}},
		"spec":     obj{"holderIdentity": "a", "leaseDurationSeconds": 10}}, "")
	got := mustCall(t, http.StatusOK, "PATCH", leases+"/l1", obj{"spec": obj{"holderIdentity": "c"}, "metadata": obj{"finalizers": []any{"b.dev/y"}}}, smp)
	spec := got["spec"].(obj)
	if spec["holderIdentity"] != "c" || spec["leaseDurationSeconds"] != float64(10) {
		t.Errorf("lease spec = %v, want holder c, duration kept", spec)
	}
	if f := got["metadata"].(obj)["finalizers"]; !reflect.DeepEqual(f, []any{"b.dev/y", "a.dev/x"}) {
		t.Errorf("finalizers = %v, want merged [b.dev/y a.dev/x]", f)
	}
	owner := func(uid string) obj {
		return obj{"apiVersion": "v1", "kind": "ConfigMap", "name": "cm-" + uid, "uid": uid}
	}
	mustCall(t, http.StatusOK, "PATCH", leases+"/l1", obj{"metadata": obj{"ownerReferences": []any{owner("u1")}}}, smp)
	got = mustCall(t, http.StatusOK, "PATCH", leases+"/l1", obj{"metadata": obj{"ownerReferences": []any{owner("u2")}, "finalizers": nil}}, smp)
	if refs := got["metadata"].(obj)["ownerReferences"].([]any); len(refs) != 2 {
		t.Errorf("ownerReferences = %v, want u1 and u2 merged by uid", refs)
	}

	ns := base + "/api/v1/namespaces"
	mustCall(t, http.StatusCreated, "POST", ns, obj{"apiVersion": "v1", "kind": "Namespace", "metadata": obj{"name": "smp", "labels": obj{"a": "1"}}}, "")
	got = mustCall(t, http.StatusOK, "PATCH", ns+"/smp", obj{"metadata": obj{"labels": obj{"b": "2"}}}, smp)
	if l := got["metadata"].(obj)["labels"].(obj); l["a"] != "1" || l["b"] != "2" {
		t.Errorf("namespace labels = %v, want a and b", l)
	}
}

// callRaw sends body as is (it may be malformed) and decodes the answer.
func callRaw(t *testing.T, method, url, body, contentType string) (int, obj) {
	t.Helper()
	code, out, _ := callHeaders(t, method, url, body, contentType)
	return code, out
}

// callHeaders is callRaw that also returns the response's headers.
func callHeaders(t *testing.T, method, url, body, contentType string) (int, obj, http.Header) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", contentType)
	req.Header.Set("Accept", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	var out obj
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatalf("%s %s: %d, body is not JSON: %v", method, url, resp.StatusCode, err)
	}
	return resp.StatusCode, out, resp.Header
}

// TestOpenAPIV2Protobuf: the whole generated API, built-in kinds included,
// is served as the protobuf OpenAPI v2 document kubectl before 1.27 reads,
// with v3-only schemas (IntOrString, Quantity) written as kube-apiserver
// writes them in v2, and the patch strategies kubectl computes patches with.
func TestOpenAPIV2Protobuf(t *testing.T) {
	base := startServer(t)
	req, err := http.NewRequest("GET", base+"/openapi/v2", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "application/com.github.proto-openapi.spec.v2@v1.0+protobuf")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("GET /openapi/v2 protobuf: %d %v", resp.StatusCode, err)
	}
	doc := &openapi_v2.Document{}
	if err := proto.Unmarshal(body, doc); err != nil {
		t.Fatal(err)
	}
	defs := map[string]*openapi_v2.Schema{}
	for _, d := range doc.GetDefinitions().GetAdditionalProperties() {
		defs[d.Name] = d.Value
	}
	ios := defs["io.k8s.apimachinery.pkg.util.intstr.IntOrString"]
	if ios == nil || strings.Join(ios.GetType().GetValue(), ",") != "string" || ios.Format != "int-or-string" {
		t.Errorf("IntOrString in v2 = %v, want type string, format int-or-string", ios)
	}
	if q := defs["io.k8s.apimachinery.pkg.api.resource.Quantity"]; q == nil || strings.Join(q.GetType().GetValue(), ",") != "string" {
		t.Errorf("Quantity in v2 = %v, want type string", q)
	}
	spec := defs["dev.kubeforge.shipping.v1.ShipmentSpec"]
	if spec == nil {
		t.Fatal("no ShipmentSpec definition")
	}
	var parcels *openapi_v2.Schema
	for _, p := range spec.GetProperties().GetAdditionalProperties() {
		if p.Name == "parcels" {
			parcels = p.Value
		}
	}
	ext := map[string]string{}
	for _, e := range parcels.GetVendorExtension() {
		ext[e.Name] = strings.TrimSpace(e.GetValue().GetYaml())
	}
	if ext["x-kubernetes-patch-strategy"] != "merge" || ext["x-kubernetes-patch-merge-key"] != "name" {
		t.Errorf("parcels extensions = %v, want patch strategy merge by name", ext)
	}
	if len(doc.GetPaths().GetPath()) == 0 {
		t.Error("no paths")
	}
}

// TestWatchParamIsOneDecision: ?watch=yes is a watch for the filters and
// the handler alike (kube-apiserver reads any value but false and 0 as
// true): it streams the current state and ends with its timeoutSeconds,
// not after the list's request timeout with a 504.
func TestWatchParamIsOneDecision(t *testing.T) {
	base := startServer(t)
	mustCall(t, http.StatusCreated, "POST", base+v1Path, v1Shipment("w", obj{
		"origin": obj{"street": "a", "city": "b"}, "destination": obj{"street": "c", "city": "d"},
		"parcels": []any{obj{"name": "p"}}}), "")
	for _, v := range []string{"yes", "TRUE", "on"} {
		// A watch streams: its first event comes at once, long before its
		// timeoutSeconds; a list-shaped request would be buffered whole by
		// the request-timeout filter and arrive only at the end.
		start := time.Now()
		resp, err := http.Get(base + v1Path + "?watch=" + v + "&timeoutSeconds=4")
		if err != nil {
			t.Fatal(err)
		}
		line, err := bufio.NewReader(resp.Body).ReadString('\n')
		first := time.Since(start)
		resp.Body.Close()
		if resp.StatusCode != 200 || err != nil || !strings.Contains(line, `"type":"ADDED"`) || first > 2*time.Second {
			t.Errorf("watch=%s: %d, first event after %v: %.200s (%v)", v, resp.StatusCode, first, line, err)
		}
	}
	resp, err := http.Get(base + v1Path + "?watch=false")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(body), `"kind":"ShipmentList"`) {
		t.Errorf("watch=false: %.200s, want a list", body)
	}
}
