package storage

import (
	"encoding/base64"
	"fmt"
	"strconv"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
)

func mustSelector(t testing.TB, s string) labels.Selector {
	t.Helper()
	sel, err := labels.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return sel
}

func names(l *WidgetList) []string {
	out := []string{}
	for _, it := range l.Items {
		out = append(out, it.Namespace+"/"+it.Name)
	}
	return out
}

func TestListBasics(t *testing.T) {
	f := newFixture(t, true, false)
	empty, err := f.st.List(ctx, "", ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if empty.Items == nil || len(empty.Items) != 0 || empty.Kind != "WidgetList" || empty.APIVersion != "test.kubeforge.dev/v1" {
		t.Fatalf("empty list = %#v", empty)
	}
	for _, ns := range []string{"a", "b"} {
		for i := 0; i < 3; i++ {
			w := widget(ns, fmt.Sprintf("w%d", i), i)
			w.Labels = map[string]string{"i": strconv.Itoa(i)}
			mustCreate(t, f, w)
		}
	}
	rev := currentRev(t)
	l, err := f.st.List(ctx, "", ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Items) != 6 || l.ResourceVersion != strconv.FormatInt(rev, 10) {
		t.Fatalf("list = %v rv %s (etcd %d)", names(l), l.ResourceVersion, rev)
	}
	// The list RV is the header revision, not the newest item's.
	mustCreate(t, newFixture(t, true, false), widget("x", "elsewhere", 1))
	l, _ = f.st.List(ctx, "a", ListOptions{})
	if fmt.Sprint(names(l)) != "[a/w0 a/w1 a/w2]" || l.ResourceVersion != strconv.FormatInt(rev+1, 10) {
		t.Fatalf("list a = %v rv %s", names(l), l.ResourceVersion)
	}
	l, _ = f.st.List(ctx, "", ListOptions{LabelSelector: mustSelector(t, "i in (0,2)")})
	if fmt.Sprint(names(l)) != "[a/w0 a/w2 b/w0 b/w2]" {
		t.Fatalf("label selector = %v", names(l))
	}
	l, _ = f.st.List(ctx, "", ListOptions{FieldSelector: fields.OneTermEqualSelector("metadata.name", "w1")})
	if fmt.Sprint(names(l)) != "[a/w1 b/w1]" {
		t.Fatalf("field selector = %v", names(l))
	}
	l, _ = f.st.List(ctx, "", ListOptions{FieldSelector: fields.ParseSelectorOrDie("metadata.namespace=b,metadata.name!=w1")})
	if fmt.Sprint(names(l)) != "[b/w0 b/w2]" {
		t.Fatalf("field selector = %v", names(l))
	}
	_, err = f.st.List(ctx, "", ListOptions{FieldSelector: fields.OneTermEqualSelector("spec.size", "1")})
	wantStatus(t, err, 400, metav1.StatusReasonBadRequest, "field label not supported: spec.size")
	// "a" is not a prefix of "ab".
	mustCreate(t, f, widget("ab", "w9", 1))
	l, _ = f.st.List(ctx, "a", ListOptions{})
	if len(l.Items) != 3 {
		t.Fatalf("namespace a sees %v", names(l))
	}
}

func TestListResourceVersion(t *testing.T) {
	f := newFixture(t, true, false)
	w := mustCreate(t, f, widget("ns", "a", 1))
	rv1 := w.ResourceVersion
	w.Spec.Size = 2
	if _, err := put(ctx, f.st, w, UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	b := mustCreate(t, f, widget("ns", "b", 1))

	l, err := f.st.List(ctx, "ns", ListOptions{ResourceVersion: rv1, ResourceVersionMatch: metav1.ResourceVersionMatchExact})
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Items) != 1 || l.Items[0].Spec.Size != 1 || l.ResourceVersion != rv1 {
		t.Fatalf("exact list = %+v", l)
	}
	// Not older than b's: a state with b (at rv1 a watch cache may not
	// have it yet, and need not).
	l, err = f.st.List(ctx, "ns", ListOptions{ResourceVersion: b.ResourceVersion, ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan})
	if err != nil || len(l.Items) != 2 {
		t.Fatalf("not older than = %v %v", l, err)
	}
	// Legacy RV with limit is exact.
	l, err = f.st.List(ctx, "ns", ListOptions{ResourceVersion: rv1, Limit: 10})
	if err != nil || len(l.Items) != 1 || l.ResourceVersion != rv1 {
		t.Fatalf("legacy exact = %v %v", l, err)
	}
	if l, err = f.st.List(ctx, "ns", ListOptions{ResourceVersion: "0"}); err != nil || len(l.Items) != 2 {
		t.Fatalf("rv 0 = %v %v", l, err)
	}

	future := strconv.FormatInt(currentRev(t)+1000, 10)
	for _, m := range []metav1.ResourceVersionMatch{metav1.ResourceVersionMatchNotOlderThan, metav1.ResourceVersionMatchExact, ""} {
		_, err = f.st.List(ctx, "ns", ListOptions{ResourceVersion: future, ResourceVersionMatch: m})
		se := wantStatus(t, err, 504, metav1.StatusReasonTimeout, "~Too large resource version: "+future)
		if c := se.ErrStatus.Details.Causes; len(c) != 1 || c[0].Type != metav1.CauseTypeResourceVersionTooLarge {
			t.Fatalf("causes = %+v", c)
		}
	}
	_, err = f.st.List(ctx, "ns", ListOptions{ResourceVersionMatch: metav1.ResourceVersionMatchExact})
	wantStatus(t, err, 422, metav1.StatusReasonInvalid, "~resourceVersionMatch is forbidden unless resourceVersion is provided")
	_, err = f.st.List(ctx, "ns", ListOptions{ResourceVersion: "0", ResourceVersionMatch: metav1.ResourceVersionMatchExact})
	wantStatus(t, err, 422, metav1.StatusReasonInvalid, "~resourceVersionMatch \"exact\" is forbidden for resourceVersion \"0\"")
	_, err = f.st.List(ctx, "ns", ListOptions{ResourceVersion: "1", ResourceVersionMatch: "Sometimes"})
	wantStatus(t, err, 422, metav1.StatusReasonInvalid, "")
	_, err = f.st.List(ctx, "ns", ListOptions{ResourceVersion: "abc"})
	wantStatus(t, err, 400, metav1.StatusReasonBadRequest, "")

	// Compaction: an exact list below the compacted revision is 410.
	compactTo(t, currentRev(t))
	_, err = f.st.List(ctx, "ns", ListOptions{ResourceVersion: rv1, ResourceVersionMatch: metav1.ResourceVersionMatchExact})
	wantStatus(t, err, 410, metav1.StatusReasonExpired, "The resourceVersion for the provided list is too old.")
}

func compactTo(t testing.TB, rev int64) {
	t.Helper()
	if _, err := testEtcd.Client().Compact(ctx, rev); err != nil && !isCompacted(err) {
		t.Fatal(err)
	}
}

func TestListPagination(t *testing.T) {
	f := newFixture(t, true, false)
	const n = 50
	for i := 0; i < n; i++ {
		mustCreate(t, f, widget(fmt.Sprintf("ns%d", i%3), fmt.Sprintf("w%02d", i), i))
	}
	for limit := int64(1); limit <= 7; limit++ {
		seen := map[string]int{}
		first, err := f.st.List(ctx, "", ListOptions{Limit: limit})
		if err != nil {
			t.Fatal(err)
		}
		listRV := first.ResourceVersion
		page := first
		pages := 0
		for {
			pages++
			if page.ResourceVersion != listRV {
				t.Fatalf("limit %d page %d rv %s != %s", limit, pages, page.ResourceVersion, listRV)
			}
			if int64(len(page.Items)) > limit {
				t.Fatalf("limit %d page has %d", limit, len(page.Items))
			}
			for _, it := range page.Items {
				seen[it.Namespace+"/"+it.Name]++
			}
			if page.Continue == "" {
				if page.RemainingItemCount != nil {
					t.Fatalf("last page has remainingItemCount")
				}
				break
			}
			if page.RemainingItemCount == nil || *page.RemainingItemCount != int64(n-len(seen)) {
				t.Fatalf("limit %d remainingItemCount = %v after %d", limit, page.RemainingItemCount, len(seen))
			}
			// Writes between pages do not show up.
			if pages == 1 {
				mustCreate(t, f, widget("ns0", fmt.Sprintf("late%d", limit), 1))
			}
			page, err = f.st.List(ctx, "", ListOptions{Limit: limit, Continue: page.Continue})
			if err != nil {
				t.Fatal(err)
			}
		}
		if len(seen) != n {
			t.Fatalf("limit %d saw %d items", limit, len(seen))
		}
		for k, c := range seen {
			if c != 1 {
				t.Fatalf("limit %d saw %s %d times", limit, k, c)
			}
		}
		if want := (n + int(limit) - 1) / int(limit); pages != want {
			t.Fatalf("limit %d: %d pages, want %d", limit, pages, want)
		}
		for i := int64(0); i < limit; i++ {
			if _, _, err := f.st.Delete(ctx, "ns0", fmt.Sprintf("late%d", limit), DeleteOptions{}); err != nil && i == 0 {
				t.Fatal(err)
			}
		}
	}
}

func TestListPaginationWithSelector(t *testing.T) {
	f := newFixture(t, true, false)
	for i := 0; i < 40; i++ {
		w := widget("ns", fmt.Sprintf("w%02d", i), i)
		w.Labels = map[string]string{"even": strconv.FormatBool(i%2 == 0)}
		mustCreate(t, f, w)
	}
	sel := mustSelector(t, "even=true")
	var got []string
	opts := ListOptions{LabelSelector: sel, Limit: 3}
	for {
		l, err := f.st.List(ctx, "ns", opts)
		if err != nil {
			t.Fatal(err)
		}
		if l.RemainingItemCount != nil {
			t.Fatal("remainingItemCount with a selector")
		}
		if l.Continue != "" && len(l.Items) != 3 {
			t.Fatalf("page with continue has %d items (want limit matches)", len(l.Items))
		}
		got = append(got, names(l)...)
		if l.Continue == "" {
			break
		}
		opts.Continue = l.Continue
	}
	if len(got) != 20 {
		t.Fatalf("got %d: %v", len(got), got)
	}
}

// TestListOneName: a field selector naming one object in a namespace
// reads that object alone, as kube's registry does (MatchesSingle): no
// continue token whatever the limit, from etcd and from the cache. Across
// namespaces the name may match one object in each, and pages as usual.
func TestListOneName(t *testing.T) {
	f := newFixture(t, true, false)
	for _, ns := range []string{"a", "b"} {
		for i := 0; i < 3; i++ {
			mustCreate(t, f, widget(ns, fmt.Sprintf("w%d", i), i))
		}
	}
	mustCreate(t, f, widget("a", "w0x", 1)) // read with w0's key, dropped
	rev := strconv.FormatInt(currentRev(t), 10)
	name := fields.OneTermEqualSelector("metadata.name", "w0")
	for _, opts := range []ListOptions{
		{FieldSelector: name, Limit: 1},
		{FieldSelector: name, Limit: 1, ResourceVersion: "0"},
		{FieldSelector: name, Limit: 1, ResourceVersion: rev},
		{FieldSelector: name, Limit: 1, ResourceVersion: rev, ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan},
	} {
		l, err := f.st.List(ctx, "a", opts)
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(names(l)) != "[a/w0]" || l.Continue != "" || l.RemainingItemCount != nil {
			t.Errorf("%+v: %v continue %q remaining %v", opts, names(l), l.Continue, l.RemainingItemCount)
		}
		j, handled, err := f.st.ListJSON(ctx, "a", opts)
		if err != nil {
			t.Fatal(err)
		}
		if handled && j.Continue != "" {
			t.Errorf("%+v: ListJSON continue %q", opts, j.Continue)
		}
	}
	l, err := f.st.List(ctx, "", ListOptions{FieldSelector: name, Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(names(l)) != "[a/w0]" || l.Continue == "" {
		t.Errorf("all namespaces: %v continue %q", names(l), l.Continue)
	}
}

func TestListContinueErrors(t *testing.T) {
	f := newFixture(t, true, false)
	for i := 0; i < 5; i++ {
		mustCreate(t, f, widget("ns", fmt.Sprintf("w%d", i), i))
	}
	l, err := f.st.List(ctx, "ns", ListOptions{Limit: 2})
	if err != nil || l.Continue == "" {
		t.Fatal(l, err)
	}
	raw, err := base64.RawURLEncoding.DecodeString(l.Continue)
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf(`{"v":"meta.k8s.io/v1","rv":%s,"start":"w1\u0000"}`, l.ResourceVersion)
	if string(raw) != want {
		t.Fatalf("token %s; want %s", raw, want)
	}
	enc := func(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }
	for _, tok := range []string{
		"!!!",
		enc("not json"),
		enc(`{"v":"meta.k8s.io/v2","rv":5,"start":"w1"}`),
		enc(`{"v":"meta.k8s.io/v1","rv":0,"start":"w1"}`),
		enc(`{"v":"meta.k8s.io/v1","rv":5,"start":""}`),
		enc(`{"v":"meta.k8s.io/v1","rv":5,"start":"../../other"}`),
	} {
		_, err := f.st.List(ctx, "ns", ListOptions{Limit: 2, Continue: tok})
		wantStatus(t, err, 400, metav1.StatusReasonBadRequest, "~invalid continue token: continue key is not valid")
	}
	_, err = f.st.List(ctx, "ns", ListOptions{Limit: 2, Continue: l.Continue, ResourceVersion: "5"})
	wantStatus(t, err, 400, metav1.StatusReasonBadRequest, "specifying resource version is not allowed when using continue")
	if _, err := f.st.List(ctx, "ns", ListOptions{Limit: 2, Continue: l.Continue, ResourceVersion: "0"}); err != nil {
		t.Fatal(err)
	}
	// Compacted: 410 with a fresh token that continues at the latest revision.
	mustCreate(t, f, widget("ns", "w9", 9))
	compactTo(t, currentRev(t))
	_, err = f.st.List(ctx, "ns", ListOptions{Limit: 2, Continue: l.Continue})
	se := wantStatus(t, err, 410, metav1.StatusReasonExpired, inconsistentListMsg)
	tok := se.ErrStatus.ListMeta.Continue
	if tok == "" {
		t.Fatal("no fresh continue token")
	}
	var rest []string
	opts := ListOptions{Limit: 2, Continue: tok}
	for {
		p, err := f.st.List(ctx, "ns", opts)
		if err != nil {
			t.Fatal(err)
		}
		rest = append(rest, names(p)...)
		if p.Continue == "" {
			break
		}
		opts.Continue = p.Continue
	}
	if fmt.Sprint(rest) != "[ns/w2 ns/w3 ns/w4 ns/w9]" {
		t.Fatalf("rest = %v", rest)
	}
}
