package storage

import (
	"fmt"
	"reflect"
	"runtime"
	"testing"
)

// TestCacheDecodesOnDemand: the cache keeps stored bytes only, so a typed
// read decodes them; what it returns is what etcd's read returns (defaults
// and resourceVersion included), shared while someone holds it, and the
// same again once the garbage collector has freed it.
func TestCacheDecodesOnDemand(t *testing.T) {
	f, _ := cacheFixture(t, "", BackendOptions{})
	for i := range 3 {
		w := widget("ns", fmt.Sprintf("w%d", i), i)
		w.Labels = map[string]string{"app": "web"}
		mustCreate(t, f, w)
	}
	// A consistent list: the cache has every object from here on.
	if _, err := f.st.List(ctx, "ns", ListOptions{}); err != nil {
		t.Fatal(err)
	}
	rv0 := GetOptions{ResourceVersion: "0"}
	fromEtcd, err := f.st.Get(ctx, "ns", "w1", GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	held, err := f.st.Get(ctx, "ns", "w1", rv0)
	if err != nil {
		t.Fatal(err)
	}
	again, err := f.st.Get(ctx, "ns", "w1", rv0)
	if err != nil {
		t.Fatal(err)
	}
	if held != again {
		t.Fatal("two typed reads while the first object is held decoded twice")
	}
	if !reflect.DeepEqual(held, fromEtcd) {
		t.Fatalf("cache read %+v, etcd read %+v", held, fromEtcd)
	}
	held, again = nil, nil
	runtime.GC()
	runtime.GC()
	cold, err := f.st.Get(ctx, "ns", "w1", rv0)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(cold, fromEtcd) {
		t.Fatalf("cache read after a collection %+v, etcd read %+v", cold, fromEtcd)
	}
	// A write's first guess is its own copy: changing it changes nothing
	// a reader holds.
	guess, _, _, ok := f.st.reads.guess(f.st.key("ns", "w1"))
	if !ok {
		t.Fatal("no first guess from the cache")
	}
	guess.Labels["app"] = "changed"
	if cold.Labels["app"] != "web" {
		t.Fatal("the first guess shares the object readers hold")
	}
}
