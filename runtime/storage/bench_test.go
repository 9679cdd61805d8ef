package storage

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/labels"
)

func BenchmarkCreate(b *testing.B) {
	f := newFixture(b, true, true)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		mustCreate(b, f, widget("ns", fmt.Sprintf("w%d", i), 1))
		i++
	}
}

func BenchmarkGet(b *testing.B) {
	f := newFixture(b, true, true)
	mustCreate(b, f, widget("ns", "w", 1))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := f.st.Get(ctx, "ns", "w", GetOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkList1k(b *testing.B) {
	f := newFixture(b, true, true)
	for i := 0; i < 1000; i++ {
		mustCreate(b, f, widget(fmt.Sprintf("ns%d", i%10), fmt.Sprintf("w%04d", i), i))
	}
	b.ReportAllocs()
	for b.Loop() {
		l, err := f.st.List(ctx, "", ListOptions{})
		if err != nil {
			b.Fatal(err)
		}
		if len(l.Items) != 1000 {
			b.Fatalf("%d items", len(l.Items))
		}
	}
}

func TestObserveLatency(t *testing.T) {
	var mu sync.Mutex
	seen := map[string]int{}
	b := NewBackend(testEtcd.Client(), fmt.Sprintf("/t%d", prefixSeq.Add(1)), BackendOptions{
		ObserveLatency: func(op, res string, d time.Duration) {
			mu.Lock()
			defer mu.Unlock()
			seen[op+" "+res]++
		},
	})
	st := NewStore(b, widgetStrategy(true, false))
	w, err := st.Create(ctx, widget("ns", "a", 1), CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := put(ctx, st, w, UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.List(ctx, "", ListOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := st.Delete(ctx, "ns", "a", DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, k := range []string{"create widgets.test.kubeforge.dev", "get widgets.test.kubeforge.dev", "list widgets.test.kubeforge.dev", "delete widgets.test.kubeforge.dev"} {
		if seen[k] == 0 {
			t.Fatalf("no latency observed for %q: %v", k, seen)
		}
	}
}

// BenchmarkList10k lists 10,000 labelled objects with a label selector (what
// cmd/bench's list phase asks for).
func BenchmarkList10k(b *testing.B) {
	f := newFixture(b, true, true)
	for i := 0; i < 10000; i++ {
		w := widget(fmt.Sprintf("ns%d", i%10), fmt.Sprintf("w%05d", i), i)
		w.Labels = map[string]string{"bench": "true", "app": "widgets"}
		w.Annotations = map[string]string{"note": "a benchmark object with a few metadata fields"}
		mustCreate(b, f, w)
	}
	sel, err := labels.Parse("bench=true")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		l, err := f.st.List(ctx, "", ListOptions{LabelSelector: sel})
		if err != nil {
			b.Fatal(err)
		}
		if len(l.Items) != 10000 {
			b.Fatalf("%d items", len(l.Items))
		}
	}
}
