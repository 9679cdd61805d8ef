package storage

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/kubeforge/kubeforge/runtime/resource"
)

// TestDeleteAdmitsCachedGuess: a delete with validating admission takes
// the watch cache's copy as its first guess, as one without does (no etcd
// read when it is current), and a refusal of the guess is checked on
// etcd's object without asking admission twice about the same revision.
func TestDeleteAdmitsCachedGuess(t *testing.T) {
	if !testWatchCache {
		t.Skip("needs the watch cache")
	}
	var mu sync.Mutex
	gets := 0
	b := NewBackend(testEtcd.Client(), fmt.Sprintf("/t%d", prefixSeq.Add(1)), BackendOptions{
		WatchCache: true,
		ObserveLatency: func(op, _ string, _ time.Duration) {
			if op == "get" {
				mu.Lock()
				gets++
				mu.Unlock()
			}
		},
	})
	t.Cleanup(b.Close)
	st := NewStore(b, widgetStrategy(true, false))
	getsNow := func() int {
		mu.Lock()
		defer mu.Unlock()
		return gets
	}
	var asked []string
	admit := func(_ context.Context, obj, old resource.Object) error {
		if obj != nil {
			t.Errorf("delete admission got an object: %v", obj)
		}
		asked = append(asked, old.GetName()+"@"+old.GetResourceVersion())
		if old.GetLabels()["deny"] == "yes" {
			return apierrors.NewForbidden(st.s.Info.GroupResource(), old.GetName(), fmt.Errorf("denied"))
		}
		return nil
	}
	for _, tc := range []struct {
		name    string
		deny    bool
		getsAdd int
	}{{"allowed", false, 0}, {"denied", true, 1}} {
		w := widget("ns", tc.name, 1)
		if tc.deny {
			w.Labels = map[string]string{"deny": "yes"}
		}
		created, err := st.Create(ctx, w, CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		key := st.key("ns", tc.name)
		waitFor(t, func() bool {
			_, _, rev, ok := st.cachedCurrent(key, true)
			return ok && fmt.Sprint(rev) == created.GetResourceVersion()
		})
		asked = nil
		before := getsNow()
		_, deleted, err := st.Delete(ctx, "ns", tc.name, DeleteOptions{Admit: admit})
		if tc.deny != (err != nil) || deleted == tc.deny {
			t.Fatalf("%s: deleted %v, err %v", tc.name, deleted, err)
		}
		if want := []string{tc.name + "@" + created.GetResourceVersion()}; fmt.Sprint(asked) != fmt.Sprint(want) {
			t.Errorf("%s: admission asked about %q, want %q", tc.name, asked, want)
		}
		if got := getsNow() - before; got != tc.getsAdd {
			t.Errorf("%s: %d etcd reads, want %d", tc.name, got, tc.getsAdd)
		}
	}
}
