package endpoints

import (
	"net/url"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeforge/kubeforge/runtime/storage"
)

// TestParseGetOptionsAsCodec: parseGetOptions reads a get's query as
// apimachinery's parameter codec decodes it into metav1.GetOptions
// (first value, other parameters ignored), then checks it the same way.
func TestParseGetOptionsAsCodec(t *testing.T) {
	for _, raw := range []string{"", "resourceVersion=0", "resourceVersion=", "resourceVersion=12&resourceVersion=0",
		"resourceVersion", "pretty=1&resourceVersion=7", "resourceversion=3", "resourceVersion=abc", "resourceVersion=-1",
		"resourceVersion=%30", "watch=1", "resourceVersion=1&resourceVersionMatch=Exact"} {
		q, err := url.ParseQuery(raw)
		if err != nil {
			t.Fatal(err)
		}
		var o metav1.GetOptions
		var want storage.GetOptions
		wantErr := decodeParams(q, &o)
		if wantErr == nil {
			if wantErr = storage.CheckResourceVersion(o.ResourceVersion); wantErr == nil {
				want.ResourceVersion = o.ResourceVersion
			}
		}
		got, err := parseGetOptions(q)
		if got != want || (err == nil) != (wantErr == nil) || (err != nil && err.Error() != wantErr.Error()) {
			t.Errorf("%q: got %+v, %v; want %+v, %v", raw, got, err, want, wantErr)
		}
	}
}

// TestPlainJSONAccept: the Accept headers negotiateOutput takes for plain
// JSON without parsing them are those its parse chooses plain JSON for,
// for reads and watches, pretty or not.
func TestPlainJSONAccept(t *testing.T) {
	for _, h := range []string{"", " ", "application/json", "application/json, */*"} {
		if !plainJSONAccept(h) {
			t.Errorf("%q is not taken as plain JSON", h)
		}
		for _, watch := range []bool{false, true} {
			for _, pretty := range []bool{false, true} {
				f := outputFormat{pretty: pretty}
				if strings.TrimSpace(h) == "" {
					continue // the parse is never asked about an empty header
				}
				if got, err := negotiateClauses(h, f, watch); got != f || err != nil {
					t.Errorf("%q (watch %v, pretty %v): parsed as %+v, %v", h, watch, pretty, got, err)
				}
			}
		}
	}
	for _, h := range []string{"application/yaml", "application/json;as=Table;v=v1;g=meta.k8s.io", "*/*", "application/json;pretty=1", "text/html"} {
		if plainJSONAccept(h) {
			t.Errorf("%q taken as plain JSON", h)
		}
	}
}
