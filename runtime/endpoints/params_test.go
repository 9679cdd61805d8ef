package endpoints

import (
	"net/url"
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
