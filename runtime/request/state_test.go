package request_test

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/kubeforge/kubeforge/runtime/auth"
	"github.com/kubeforge/kubeforge/runtime/request"
)

// TestStateSlots: a value set in place in the request's State is what the
// package's accessor returns through every context derived from it, and a
// value set with the package's With... function on a context inside the
// state's shadows it, as a context value always does.
func TestStateSlots(t *testing.T) {
	type other struct{}
	outer := auth.WithUser(context.WithValue(context.Background(), other{}, "v"), &auth.User{Name: "outer"})
	ctx, st := request.WithState(outer, request.Info{Verb: "get", Resource: "configmaps"})
	if u, _ := auth.UserFrom(ctx); u == nil || u.Name != "outer" {
		t.Fatalf("before the state has a user, UserFrom = %v, want the outer context's", u)
	}
	if got := auth.SetUser(ctx, &auth.User{Name: "alice"}); got != ctx {
		t.Error("SetUser on a context with a state made a new context")
	}
	derived, cancel := context.WithCancel(ctx)
	defer cancel()
	if u, _ := auth.UserFrom(derived); u == nil || u.Name != "alice" {
		t.Errorf("UserFrom(derived) = %v, want alice (set in place)", u)
	}
	inner := auth.WithUser(derived, &auth.User{Name: "bob"})
	if u, _ := auth.UserFrom(inner); u == nil || u.Name != "bob" {
		t.Errorf("UserFrom(inner) = %v, want bob (a value inside the state shadows it)", u)
	}
	if request.StateFrom(inner) != st {
		t.Error("StateFrom does not find the state through derived contexts")
	}
	if ri, ok := request.InfoFrom(inner); !ok || ri != &st.Info || ri.Resource != "configmaps" {
		t.Errorf("InfoFrom = %v, %v; want the state's info", ri, ok)
	}
	if inner.Value(other{}) != "v" {
		t.Error("values of the state's parent are lost")
	}
	if request.StateFrom(context.Background()) != nil {
		t.Error("StateFrom found a state where none was placed")
	}
	// Without a state, SetUser is WithUser.
	if u, _ := auth.UserFrom(auth.SetUser(context.Background(), &auth.User{Name: "carol"})); u == nil || u.Name != "carol" {
		t.Errorf("SetUser without a state: %v", u)
	}
	if st.Handled() {
		t.Error("a new state is handled")
	}
	st.MarkHandled()
	if !request.StateFrom(inner).Handled() {
		t.Error("MarkHandled is not seen")
	}
}

// TestParseWatchEscaped: a query the watch check skips parsing is never a
// watch, and an escaped key still is one.
func TestParseWatchEscaped(t *testing.T) {
	for url, verb := range map[string]string{
		"/api/v1/namespaces/a/configmaps?w%61tch=1":           "watch",
		"/api/v1/namespaces/a/configmaps?watch=1":             "watch",
		"/api/v1/namespaces/a/configmaps?limit=5":             "list",
		"/api/v1/namespaces/a/configmaps/x?resourceVersion=0": "get",
	} {
		var ri request.Info
		request.ParseInto(httptest.NewRequest("GET", url, nil), &ri)
		if ri.Verb != verb {
			t.Errorf("%s: verb %q, want %q", url, ri.Verb, verb)
		}
	}
}
