package endpoints

import (
	"encoding/json"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestWriteEncoded: a JSON response is json.Marshal's bytes and a
// newline, the pooled buffer reused across responses of different sizes
// without one leaking into another; a value that does not encode is a
// 500 Status.
func TestWriteEncoded(t *testing.T) {
	for _, v := range []any{
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "big"}, Data: map[string]string{"k": strings.Repeat("<v>", 3000)}},
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "small"}},
		map[string]any{"n": 1.5, "s": "\u2028"},
	} {
		rec := httptest.NewRecorder()
		writeEncoded(rec, httptest.NewRequest("GET", "/", nil), http.StatusCreated, outputFormat{}, v)
		want, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if rec.Code != http.StatusCreated || rec.Body.String() != string(want)+"\n" || rec.Header().Get("Content-Type") != mediaJSON {
			t.Fatalf("%d %q %q, want %s", rec.Code, rec.Header().Get("Content-Type"), rec.Body, want)
		}
	}
	rec := httptest.NewRecorder()
	writeEncoded(rec, httptest.NewRequest("GET", "/", nil), http.StatusOK, outputFormat{}, map[string]any{"nan": math.NaN()})
	if rec.Code != http.StatusInternalServerError || !strings.Contains(rec.Body.String(), `"kind":"Status"`) || !strings.Contains(rec.Body.String(), "unsupported value: NaN") {
		t.Fatalf("a NaN: %d %s", rec.Code, rec.Body)
	}
}
