package endpoints_test

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubeforge/kubeforge/runtime/endpoints"
)

// TestWriteError drives WriteError and AddWarning the way a server filter
// does, over real HTTP.
func TestWriteError(t *testing.T) {
	notFound := apierrors.NewNotFound(schema.GroupResource{Group: testGroup, Resource: "widgets"}, "w")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		endpoints.AddWarning(w, "first line\nsecond line")
		endpoints.AddWarning(w, `say "hi"`)
		endpoints.AddWarning(w, `say "hi"`)
		switch r.URL.Path {
		case "/plain":
			endpoints.WriteError(w, r, errors.New("disk on fire"))
		case "/wrapped":
			endpoints.WriteError(w, r, fmt.Errorf("reading: %w", notFound))
		case "/retry":
			endpoints.WriteError(w, r, apierrors.NewTooManyRequests("slow down", 7))
		}
	}))
	defer srv.Close()
	get := func(path string) response {
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return response{code: resp.StatusCode, header: resp.Header, body: body}
	}

	r := get("/plain")
	wantStatus(t, r, http.StatusInternalServerError, metav1.StatusReasonInternalError, "disk on fire")
	if got := r.header.Values("Warning"); len(got) != 2 || got[0] != `299 - "first line second line"` || got[1] != `299 - "say \"hi\""` {
		t.Errorf("warnings %q", got)
	}
	st := wantStatus(t, get("/wrapped"), http.StatusNotFound, metav1.StatusReasonNotFound, `widgets.test.kubeforge.dev "w" not found`)
	if st.Details == nil || st.Details.Kind != "widgets" {
		t.Errorf("details %+v", st.Details)
	}
	r = get("/retry")
	wantStatus(t, r, http.StatusTooManyRequests, metav1.StatusReasonTooManyRequests, "slow down")
	if r.header.Get("Retry-After") != "7" {
		t.Errorf("Retry-After %q", r.header.Get("Retry-After"))
	}
}
