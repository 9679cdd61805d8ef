package storage

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"sync"
	"testing"
)

// packValues are values a cache may hold: empty, shorter than a
// dictionary, a typical object, incompressible, larger than a dictionary.
func packValues(r *rand.Rand) [][]byte {
	random := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(r.IntN(256))
		}
		return b
	}
	obj := func(i int, note string) []byte {
		return fmt.Appendf(nil, `{"apiVersion":"test.kubeforge.dev/v1","kind":"Widget","metadata":{"name":"w%d","namespace":"ns","uid":"%x","annotations":{"note":%q}},"spec":{"size":%d}}`, i, r.Uint64(), note, i)
	}
	return [][]byte{
		{}, []byte("{}"), []byte("0123456789abcde"),
		obj(1, "a"), obj(2, "b"), obj(3, strings.Repeat("repeated text ", 10000)),
		random(100), random(70000), obj(4, string(random(300))),
		append(random(5000), obj(5, "after noise")...),
	}
}

// TestPackRoundTrip: whatever is packed unpacks to the same bytes, spliced
// or not, behind whatever the buffer already holds.
func TestPackRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for first := range packValues(r) {
		var p packer
		vals := packValues(r)
		// The first value packed is the dictionary, when it can be one.
		vals[0], vals[first] = vals[first], vals[0]
		for i, v := range vals {
			out, packed := p.pack(v)
			if !packed {
				if !bytes.Equal(out, v) {
					t.Fatalf("dict %d, value %d: not packed but changed", first, i)
				}
				continue
			}
			if len(out) >= len(v) {
				t.Errorf("dict %d, value %d: packed %d bytes from %d", first, i, len(out), len(v))
			}
			got, err := p.appendUnpacked([]byte("prefix"), out)
			if err != nil || !bytes.Equal(got, append([]byte("prefix"), v...)) {
				t.Fatalf("dict %d, value %d: unpacked %d bytes (%v), want %d", first, i, len(got), err, len(v)+6)
			}
			for _, off := range []int{0, len(v) / 2, len(v)} {
				for _, mode := range []byte{spliceBeforeKey, spliceAtEnd, spliceEmpty} {
					want := appendSpliced([]byte("x"), v, off, mode, 12345)
					got, err := appendStoredSpliced([]byte("x"), &p, out, off, mode, 12345)
					if err != nil || !bytes.Equal(got, want) {
						t.Fatalf("dict %d, value %d: spliced at %d mode %d differs (%v)", first, i, off, mode, err)
					}
				}
			}
		}
	}
	var p packer
	if _, packed := p.pack(bytes.Repeat([]byte("x"), packMinDict-1)); packed || p.dict.Load() != nil {
		t.Error("a value too short for a dictionary is neither packed nor the dictionary")
	}
	if _, err := p.appendUnpacked(nil, []byte{5, 1, 2}); err == nil {
		t.Error("unpacking without a dictionary succeeds")
	}
	typical := packValues(r)[3]
	if out, packed := p.pack(typical); !packed || len(out) > len(typical)/4 {
		t.Errorf("a value packed against itself: %d bytes from %d", len(out), len(typical))
	}
}

// TestPackConcurrent: goroutines packing and unpacking with one packer
// from its first value on (run with -race).
func TestPackConcurrent(t *testing.T) {
	var p packer
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(g), 5))
			for range 20 {
				for _, v := range packValues(r) {
					out, packed := p.pack(v)
					if !packed {
						continue
					}
					got, err := p.appendUnpacked(nil, out)
					if err != nil || !bytes.Equal(got, v) {
						t.Errorf("goroutine %d: round trip of %d bytes failed: %v", g, len(v), err)
						return
					}
				}
			}
		})
	}
	wg.Wait()
}

// TestCachePackedReads: objects the cache keeps packed read the same from
// it as from etcd: typed, as JSON, listed, watched, and as a write's first
// guess (an update that changes nothing keeps its resourceVersion).
func TestCachePackedReads(t *testing.T) {
	f, _ := cacheFixture(t, "", BackendOptions{})
	r := rand.New(rand.NewPCG(7, 8))
	notes := []string{"", "short", strings.Repeat("a long and repetitive annotation ", 4000), fmt.Sprintf("%x", r.Uint64())}
	var names []string
	for i, note := range notes {
		w := widget("ns", fmt.Sprintf("p%d", i), i)
		if note != "" {
			w.Annotations = map[string]string{"note": note}
		}
		names = append(names, mustCreate(t, f, w).Name)
	}
	got, want, _, _ := listItemsJSON(t, f, "ns", ListOptions{}) // caught up
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("ListJSON from the cache differs from the typed path")
	}
	packed := 0
	for _, name := range names {
		e, ok := cacheOf(f.st).entry(f.st.key("ns", name))
		if !ok {
			t.Fatalf("%s not cached", name)
		}
		if e.packed {
			packed++
		}
		if got, want := mustGetJSON(t, f, name, "0"), mustGetJSON(t, f, name, ""); !bytes.Equal(got, want) {
			t.Errorf("%s: GetJSON from the cache %s, from etcd %s", name, got, want)
		}
		cached, err := f.st.Get(ctx, "ns", name, GetOptions{ResourceVersion: "0"})
		if err != nil {
			t.Fatal(err)
		}
		quorum, err := f.st.Get(ctx, "ns", name, GetOptions{})
		if err != nil || !reflect.DeepEqual(cached, quorum) {
			t.Errorf("%s: typed get from the cache %+v, from etcd %+v (%v)", name, cached, quorum, err)
		}
		// Unchanged: the cache's stored bytes, unpacked, equal the new ones.
		out, err := put(ctx, f.st, quorum, UpdateOptions{})
		if err != nil || out.ResourceVersion != quorum.ResourceVersion {
			t.Errorf("%s: an update that changes nothing moved resourceVersion %s to %s (%v)", name, quorum.ResourceVersion, out.ResourceVersion, err)
		}
	}
	if packed < 2 {
		t.Errorf("%d of %d cached objects packed", packed, len(names))
	}
	// A deletion's event carries the packed object as it was.
	ch, err := f.st.Watch(ctx, "ns", WatchOptions{ListOptions: ListOptions{ResourceVersion: "0"}})
	if err != nil {
		t.Fatal(err)
	}
	for range names {
		<-ch // the initial ADDED events
	}
	before, err := f.st.Get(ctx, "ns", names[2], GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.st.Delete(ctx, "ns", names[2], DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	ev := <-ch
	if ev.Type != "DELETED" || ev.Object.Annotations["note"] != before.Annotations["note"] || ev.Object.UID != before.UID {
		t.Errorf("DELETED event %s of %s: the object differs from the one deleted", ev.Type, ev.Object.Name)
	}
}
