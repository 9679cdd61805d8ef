package storage

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
)

// listPage is one page of a list as a client sees it: the list's
// metadata and each item's JSON, or the Status of its error.
type listPage struct {
	rv, cont  string
	remaining *int64
	items     []string
	status    string
}

func (p listPage) String() string {
	rem := "nil"
	if p.remaining != nil {
		rem = fmt.Sprint(*p.remaining)
	}
	if p.status != "" {
		return "error " + p.status
	}
	return fmt.Sprintf("rv %s continue %q remaining %s, %d items:\n%s", p.rv, p.cont, rem, len(p.items), strings.Join(p.items, "\n"))
}

// statusOf is the JSON of err's Status (with its continue token), or of
// its text when it is no StatusError.
func statusOf(t *testing.T, err error) string {
	t.Helper()
	var se *apierrors.StatusError
	if !errors.As(err, &se) {
		return "not a Status: " + err.Error()
	}
	data, err := json.Marshal(se.Status())
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// typedPage is what the typed path reads: List, each item json.Marshal'd.
func typedPage(t *testing.T, st *Store[*Widget, *WidgetList], ns string, opts ListOptions) listPage {
	t.Helper()
	l, err := st.List(ctx, ns, opts)
	if err != nil {
		return listPage{status: statusOf(t, err)}
	}
	p := listPage{rv: l.ResourceVersion, cont: l.Continue, remaining: l.RemainingItemCount}
	for i := range l.Items {
		data, err := json.Marshal(&l.Items[i])
		if err != nil {
			t.Fatal(err)
		}
		p.items = append(p.items, string(data))
	}
	return p
}

// jsonReadPage is what ListJSON reads for the same options.
func jsonReadPage(t *testing.T, st *Store[*Widget, *WidgetList], ns string, opts ListOptions) listPage {
	t.Helper()
	jl, ok, err := st.ListJSON(ctx, ns, opts)
	if !ok {
		t.Fatalf("ListJSON(%q, %+v) declined", ns, opts)
	}
	if err != nil {
		return listPage{status: statusOf(t, err)}
	}
	p := listPage{rv: jl.ResourceVersion, cont: jl.Continue, remaining: jl.RemainingItemCount}
	for {
		item, ok, err := jl.Next(nil)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			break
		}
		p.items = append(p.items, string(item))
	}
	return p
}

func samePage(a, b listPage) bool { return a.String() == b.String() }

// walkPages lists ns with opts a page at a time from the stores in turn
// (st[0], st[1], ...: a token of one given to the next), reading each page
// both ways, and fails unless they are equal; between is called after
// each page. It returns the pages read.
func walkPages(t *testing.T, st []*Store[*Widget, *WidgetList], ns string, opts ListOptions, between func(page int)) []listPage {
	t.Helper()
	var pages []listPage
	for i := 0; ; i++ {
		s := st[i%len(st)]
		// The token of this page's JSON read continues the typed walk
		// and the typed read's the JSON walk, alternately.
		got, want := jsonReadPage(t, s, ns, opts), typedPage(t, s, ns, opts)
		if !samePage(got, want) {
			t.Fatalf("list %q %+v, page %d:\nListJSON %s\n    List %s", ns, opts, i, got, want)
		}
		pages = append(pages, got)
		if got.cont == "" || got.status != "" || i > 1000 {
			return pages
		}
		opts.Continue = got.cont
		if i%2 == 1 {
			opts.Continue = want.cont
		}
		if between != nil {
			between(i)
		}
	}
}

// pagesFixture fills a prefix with widgets of many shapes in three
// namespaces (with labels on some, objects written by other programs whose
// bytes are not what the typed path encodes), and returns a store with a
// watch cache and one without over it.
func pagesFixture(t *testing.T) (cached, direct *Store[*Widget, *WidgetList], f *fixture, m *cacheCounts) {
	t.Helper()
	f, m = cacheFixture(t, "", BackendOptions{})
	for _, ns := range []string{"ns0", "ns1"} {
		for _, w := range jsonWidgets(ns) {
			mustCreate(t, f, w)
		}
	}
	for i := range 40 {
		w := widget(fmt.Sprintf("ns%d", i%3), fmt.Sprintf("w%02d", i), i)
		if i%3 != 1 {
			w.Labels = map[string]string{"bench": "true", "tier": fmt.Sprint(i % 4)}
		}
		mustCreate(t, f, w)
	}
	for _, name := range []string{"f-order", "zz-foreign"} {
		v := fmt.Sprintf(`{"kind":"Widget","apiVersion":"test.kubeforge.dev/v1","spec":{"size":2},"metadata":{"namespace":"ns1","name":%q,"labels":{"bench":"true"}}}`, name)
		if _, err := testEtcd.Client().Put(context.Background(), f.st.key("ns1", name), v); err != nil {
			t.Fatal(err)
		}
	}
	b := NewBackend(testEtcd.Client(), f.prefix, BackendOptions{})
	t.Cleanup(b.Close)
	return f.st, NewStore(b, widgetStrategy(true, false)), f, m
}

// pageSelectors are the selectors paginated lists are checked with: none,
// labels (equality, indexed by the cache; existence; one that selects
// nothing) and metadata fields.
func pageSelectors(t *testing.T) []ListOptions {
	return []ListOptions{
		{},
		{LabelSelector: mustSelector(t, "bench=true")},
		{LabelSelector: mustSelector(t, "tier")},
		{LabelSelector: mustSelector(t, "tier=3,bench")},
		{LabelSelector: mustSelector(t, "missing=x")},
		{FieldSelector: fields.OneTermNotEqualSelector("metadata.name", "w05")},
		{FieldSelector: fields.OneTermEqualSelector("metadata.namespace", "ns2"), LabelSelector: labels.Everything()},
	}
}

// TestListJSONPagesMatchTyped: every page of a paginated list read through
// ListJSON (from the watch cache, and from etcd) is the typed path's page:
// the same resourceVersion, continue token, remainingItemCount (only
// without selectors) and items, byte for byte, for every selector, limit
// and resourceVersion, with writes between the pages, continue tokens
// given from one path to the other and from one store to the other.
func TestListJSONPagesMatchTyped(t *testing.T) {
	cached, direct, f, m := pagesFixture(t)
	sawEmptyLast, sawRemaining := false, false
	for _, sel := range pageSelectors(t) {
		for _, ns := range []string{"", "ns1"} {
			for _, limit := range []int64{1, 4, 9, 500} {
				opts := sel
				opts.Limit = limit
				for _, st := range [][]*Store[*Widget, *WidgetList]{{cached}, {direct}, {cached, direct}, {direct, cached}} {
					pages := walkPages(t, st, ns, opts, nil)
					last := pages[len(pages)-1]
					sawEmptyLast = sawEmptyLast || (len(pages) > 1 && len(last.items) == 0)
					sawRemaining = sawRemaining || pages[0].remaining != nil
				}
			}
		}
	}
	if !sawEmptyLast || !sawRemaining {
		t.Errorf("no walk ended on an empty page (%v) or had a remainingItemCount (%v)", sawEmptyLast, sawRemaining)
	}
	if m.read("list/etcd") != 0 || m.read("list/cache") == 0 {
		t.Errorf("the cached store's pages: %d from the cache, %d from etcd", m.read("list/cache"), m.read("list/etcd"))
	}
	// Writes between the pages do not show: later pages are read at the
	// first page's revision, from the cache's kept state or from etcd.
	n := 0
	var created []string
	between := func(page int) {
		n++
		name := fmt.Sprintf("late%03d", n)
		mustCreate(t, f, widget("ns1", name, n))
		created = append(created, fmt.Sprintf(`"name":%q`, name))
		if _, _, err := f.st.Delete(ctx, "ns0", fmt.Sprintf("w%02d", 3*page), DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			t.Fatal(err)
		}
	}
	for _, st := range [][]*Store[*Widget, *WidgetList]{{cached}, {direct}, {cached, direct}} {
		created = nil
		pages := walkPages(t, st, "", ListOptions{Limit: 5}, between)
		for _, p := range pages {
			if p.rv != pages[0].rv {
				t.Fatalf("page at %s, first page at %s", p.rv, pages[0].rv)
			}
			for _, it := range p.items {
				for _, c := range created {
					if strings.Contains(it, c) {
						t.Fatalf("a write after the first page shows in a page: %s", it)
					}
				}
			}
		}
		if len(created) < 3 {
			t.Fatalf("%d writes between pages", len(created))
		}
	}
}

// TestListJSONPagesResourceVersion: a paginated list at a resourceVersion
// (exact, not older than, any, the legacy exact one of a paginated list)
// and a continue token without a limit read the typed path's pages.
func TestListJSONPagesResourceVersion(t *testing.T) {
	cached, direct, f, _ := pagesFixture(t)
	rv := fmt.Sprint(currentRev(t))
	mustCreate(t, f, widget("ns0", "after", 1))
	first := jsonReadPage(t, cached, "", ListOptions{Limit: 3})
	for _, opts := range []ListOptions{
		{ResourceVersion: rv, ResourceVersionMatch: metav1.ResourceVersionMatchExact, Limit: 7},
		{ResourceVersion: rv, ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan, Limit: 7},
		{ResourceVersion: rv, Limit: 7},
		{ResourceVersion: "0", Limit: 7},
		{Continue: first.cont},
		{Continue: first.cont, ResourceVersion: "0", LabelSelector: mustSelector(t, "bench=true")},
	} {
		for _, st := range [][]*Store[*Widget, *WidgetList]{{cached}, {direct}, {cached, direct}} {
			pages := walkPages(t, st, "", opts, nil)
			if opts.ResourceVersionMatch != metav1.ResourceVersionMatchNotOlderThan && opts.ResourceVersion == rv && pages[0].rv != rv {
				t.Errorf("%+v: list at %s, want %s", opts, pages[0].rv, rv)
			}
		}
	}
}

// TestListJSONPagesErrors: a bad continue token, a token with a
// resourceVersion, a token whose revision was compacted (410 with a token
// that continues at the latest revision, which both paths then follow)
// are answered by ListJSON with List's Status.
func TestListJSONPagesErrors(t *testing.T) {
	cached, direct, f, _ := pagesFixture(t)
	enc := func(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }
	first := jsonReadPage(t, cached, "ns1", ListOptions{Limit: 4})
	for _, opts := range []ListOptions{
		{Limit: 2, Continue: "!!!"},
		{Limit: 2, Continue: enc("not json")},
		{Limit: 2, Continue: enc(`{"v":"meta.k8s.io/v2","rv":5,"start":"w1"}`)},
		{Limit: 2, Continue: enc(`{"v":"meta.k8s.io/v1","rv":0,"start":"w1"}`)},
		{Limit: 2, Continue: enc(`{"v":"meta.k8s.io/v1","rv":5,"start":""}`)},
		{Limit: 2, Continue: enc(`{"v":"meta.k8s.io/v1","rv":5,"start":"../../other"}`)},
		{Limit: 2, Continue: first.cont, ResourceVersion: "5"},
		{Limit: 2, Continue: first.cont, ResourceVersion: "5", ResourceVersionMatch: metav1.ResourceVersionMatchExact},
		{Limit: 2, ResourceVersion: "x"},
		{Limit: 2, ResourceVersion: fmt.Sprint(currentRev(t) + 1000), ResourceVersionMatch: metav1.ResourceVersionMatchExact},
		{Limit: 2, ResourceVersion: fmt.Sprint(currentRev(t) + 1000), ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan},
	} {
		for _, st := range []*Store[*Widget, *WidgetList]{cached, direct} {
			got, want := jsonReadPage(t, st, "ns1", opts), typedPage(t, st, "ns1", opts)
			if got.status == "" || !samePage(got, want) {
				t.Errorf("%+v:\nListJSON %s\n    List %s", opts, got, want)
			}
			if opts.ResourceVersion != "x" && !strings.Contains(got.status, `"code":400`) && !strings.Contains(got.status, `"code":504`) && !strings.Contains(got.status, `"code":422`) {
				t.Errorf("%+v: %s, want a 4xx or the 504 of a resourceVersion too large", opts, got.status)
			}
		}
	}
	// Compacted past the token's revision: 410 Expired with a token that
	// continues at the latest revision.
	mustCreate(t, f, widget("ns1", "w99", 99))
	compactTo(t, currentRev(t))
	var fresh string
	for _, st := range []*Store[*Widget, *WidgetList]{cached, direct} {
		got, want := jsonReadPage(t, st, "ns1", ListOptions{Limit: 4, Continue: first.cont}), typedPage(t, st, "ns1", ListOptions{Limit: 4, Continue: first.cont})
		if !samePage(got, want) {
			t.Fatalf("compacted:\nListJSON %s\n    List %s", got, want)
		}
		_, err := st.List(ctx, "ns1", ListOptions{Limit: 4, Continue: first.cont})
		se := wantStatus(t, err, 410, metav1.StatusReasonExpired, inconsistentListMsg)
		if fresh = se.ErrStatus.ListMeta.Continue; fresh == "" {
			t.Fatal("no fresh continue token")
		}
	}
	for _, st := range [][]*Store[*Widget, *WidgetList]{{cached}, {direct}, {cached, direct}} {
		pages := walkPages(t, st, "ns1", ListOptions{Limit: 4, Continue: fresh}, nil)
		var names []string
		for _, p := range pages {
			names = append(names, p.items...)
		}
		if !strings.Contains(strings.Join(names, ""), `"name":"w99"`) {
			t.Errorf("the walk after compaction misses the latest object")
		}
	}
}

// TestListPagesUnreadable: stored values that do not decode are left out
// of every page, typed or JSON, and the page still fills up to its limit
// with the objects after them (the typed path read past what it had
// decoded ahead of an unreadable value and panicked: index out of range).
func TestListPagesUnreadable(t *testing.T) {
	f := newFixture(t, true, false)
	for i := range 6 {
		mustCreate(t, f, widget("ns", fmt.Sprintf("w%d", i), i))
	}
	// Two, so that the second page's etcd read, past the first limit
	// keys, starts with one.
	for _, name := range []string{"w1a", "w1b"} {
		if _, err := testEtcd.Client().Put(context.Background(), f.st.key("ns", name), `{"kind":`); err != nil {
			t.Fatal(err)
		}
	}
	b := NewBackend(testEtcd.Client(), f.prefix, BackendOptions{})
	t.Cleanup(b.Close)
	direct := NewStore(b, widgetStrategy(true, false))
	for _, st := range []*Store[*Widget, *WidgetList]{f.st, direct} {
		for _, opts := range []ListOptions{{Limit: 3}, {Limit: 3, LabelSelector: labels.Everything(), FieldSelector: fields.OneTermNotEqualSelector("metadata.name", "x")}} {
			pages := walkPages(t, []*Store[*Widget, *WidgetList]{st}, "ns", opts, nil)
			var items int
			for _, p := range pages {
				items += len(p.items)
			}
			if items != 6 || len(pages[0].items) != 3 {
				t.Errorf("%+v: %d items in %d pages (first %d), want 6 from pages of 3", opts, items, len(pages), len(pages[0].items))
			}
		}
	}
}

// TestListJSONSelectableFields: a field selector on a kind's selectable
// fields is served by ListJSON too (the cache reads the fields it keeps,
// etcd reads decode remembered versions without encoding them), every
// page and whole list equal to the typed path's.
func TestListJSONSelectableFields(t *testing.T) {
	f, _ := selectingFixture(t)
	for i := range 30 {
		w := widget(fmt.Sprintf("ns%d", i%2), fmt.Sprintf("w%02d", i), i)
		w.Spec.Color = []string{"red", "blue", "green"}[i%3]
		if i%4 == 0 {
			w.Labels = map[string]string{"bench": "true"}
		}
		mustCreate(t, f, w)
	}
	s := widgetStrategy(true, true)
	s.Info.SelectableFields = []string{"spec.color"}
	s.SelectableFields = func(w *Widget) fields.Set {
		return fields.Set{"metadata.name": w.Name, "metadata.namespace": w.Namespace, "spec.color": w.Spec.Color}
	}
	b := NewBackend(testEtcd.Client(), f.prefix, BackendOptions{})
	t.Cleanup(b.Close)
	direct := NewStore(b, s)
	for _, sel := range []string{"spec.color=red", "spec.color!=blue,metadata.namespace=ns1", "spec.color=purple"} {
		for _, limit := range []int64{0, 1, 4, 500} {
			opts := ListOptions{FieldSelector: fieldSel(t, sel), Limit: limit}
			for round := range 2 { // first read checks, second serves remembered versions
				for _, st := range [][]*Store[*Widget, *WidgetList]{{f.st}, {direct}, {f.st, direct}} {
					pages := walkPages(t, st, "", opts, nil)
					if sel == "spec.color=red" && limit == 4 && round == 1 && (len(pages) < 3 || len(pages[0].items) != 4) {
						t.Errorf("%s, limit 4: %d pages, first of %d items", sel, len(pages), len(pages[0].items))
					}
				}
			}
		}
		opts := ListOptions{FieldSelector: fieldSel(t, sel), LabelSelector: mustSelector(t, "bench=true"), Limit: 2}
		walkPages(t, []*Store[*Widget, *WidgetList]{f.st, direct}, "", opts, nil)
	}
}
