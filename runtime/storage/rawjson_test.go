package storage

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"go.etcd.io/etcd/api/v3/mvccpb"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
)

// jsonWidgets are objects of many shapes: every metadata field before
// resourceVersion present or not, managedFields, empty and omitted
// fields, unicode and characters json.Marshal escapes.
func jsonWidgets(ns string) []*Widget {
	ts := metav1.NewTime(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	var out []*Widget
	add := func(name string, f func(w *Widget)) {
		w := widget(ns, name, len(out))
		f(w)
		out = append(out, w)
	}
	add("plain", func(w *Widget) {})
	add("labels", func(w *Widget) { w.Labels = map[string]string{"a": "1", "bench": "true"} })
	add("generate", func(w *Widget) { w.Name = ""; w.GenerateName = "gen-" })
	add("unicode", func(w *Widget) {
		w.Labels = map[string]string{"bench": "true"}
		w.Annotations = map[string]string{"note": "héllo \u2028 <b>&</b> \"quoted\" \\ \t tab 日本語 😀", "empty": ""}
		w.Spec.Color = "grün\u0000\x7f"
	})
	add("managed", func(w *Widget) {
		w.Labels = map[string]string{"bench": "true", "x": ""}
		w.Finalizers = []string{"kubeforge.dev/f"}
		w.OwnerReferences = []metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: "o", UID: types.UID("u-1")}}
		w.ManagedFields = []metav1.ManagedFieldsEntry{{
			Manager: "kubectl", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "test.kubeforge.dev/v1", Time: &ts,
			FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:metadata":{"f:labels":{".":{},"f:bench":{}}},"f:spec":{"f:size":{}}}`)},
		}}
	})
	add("status", func(w *Widget) { w.Status.Phase = "Ready"; w.Spec.Size = 0 })
	add("big", func(w *Widget) {
		w.Spec.Size = 1 << 40
		w.Annotations = map[string]string{"long": strings.Repeat("}{][\",:", 200)}
	})
	return out
}

// typedJSON is what the typed path encodes: json.Marshal of Get's result.
func typedJSON(t *testing.T, f *fixture, ns, name string) []byte {
	t.Helper()
	obj, err := f.st.Get(ctx, ns, name, GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// cacheSpliced reports whether f's watch cache (if any) serves kv's version
// from its stored bytes (the watch cache proves that as it takes a change
// in, so its proofs are not all in the store's memory of checked versions).
func cacheSpliced(f *fixture, kv *mvccpb.KeyValue) bool {
	r, ok := f.st.reads.(cacheReader[*Widget, *WidgetList])
	if !ok {
		return false
	}
	e, ok := r.c.entry(string(kv.Key))
	if !ok || e.rev != kv.ModRevision {
		return false
	}
	_, _ = e.listItem(f.st.raw) // the once that guards spliced
	return e.spliced
}

// listItemsJSON returns ListJSON's items and json.Marshal of each item List
// returns for the same options.
func listItemsJSON(t *testing.T, f *fixture, ns string, opts ListOptions) (got, want []string, rv, wantRV string) {
	t.Helper()
	jl, ok, err := f.st.ListJSON(ctx, ns, opts)
	if err != nil || !ok {
		t.Fatalf("ListJSON: ok=%v err=%v", ok, err)
	}
	for {
		item, ok, err := jl.Next(nil)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			break
		}
		got = append(got, string(item))
	}
	l, err := f.st.List(ctx, ns, opts)
	if err != nil {
		t.Fatal(err)
	}
	for i := range l.Items {
		data, err := json.Marshal(&l.Items[i])
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, string(data))
	}
	return got, want, jl.ResourceVersion, l.ResourceVersion
}

func TestJSONReaderMatchesTypedPath(t *testing.T) {
	f := newFixture(t, true, true)
	var names []string
	for _, w := range jsonWidgets("ns") {
		out := mustCreate(t, f, w)
		names = append(names, out.Name)
	}
	// Objects written by someone else: unknown and removed fields, other
	// key order, escapes json.Marshal would not write, spaces, a
	// resourceVersion stored by mistake, no metadata at all.
	foreign := map[string]string{
		"f-unknown":   `{"apiVersion":"test.kubeforge.dev/v1","kind":"Widget","metadata":{"name":"f-unknown","namespace":"ns","labels":{"bench":"true"}},"spec":{"size":1,"gone":true}}`,
		"f-order":     `{"kind":"Widget","apiVersion":"test.kubeforge.dev/v1","spec":{"size":2},"metadata":{"namespace":"ns","name":"f-order","labels":{"bench":"true"}}}`,
		"f-escape":    `{"apiVersion":"test.kubeforge.dev/v1","kind":"Widget","metadata":{"name":"f-escape","namespace":"ns","labels":{"bench":"true"},"annotations":{"a":"\u00e9\/"}},"spec":{"size":3}}`,
		"f-spaces":    `{ "apiVersion": "test.kubeforge.dev/v1", "kind": "Widget", "metadata": { "name": "f-spaces", "namespace": "ns" }, "spec": { "size": 4 } }`,
		"f-rv":        `{"apiVersion":"test.kubeforge.dev/v1","kind":"Widget","metadata":{"name":"f-rv","namespace":"ns","resourceVersion":"7"},"spec":{"size":5}}`,
		"f-nometa":    `{"apiVersion":"test.kubeforge.dev/v1","kind":"Widget","spec":{"size":6}}`,
		"f-case":      `{"apiVersion":"test.kubeforge.dev/v1","kind":"Widget","metadata":{"name":"f-case","namespace":"ns","Labels":{"bench":"true"}},"spec":{"Size":7}}`,
		"f-null":      `{"apiVersion":"test.kubeforge.dev/v1","kind":"Widget","metadata":{"name":"f-null","namespace":"ns","labels":null},"spec":{"size":8,"color":null}}`,
		"f-canonical": `{"kind":"Widget","apiVersion":"test.kubeforge.dev/v1","metadata":{"name":"f-canonical","namespace":"ns","labels":{"bench":"true"}},"spec":{"size":9},"status":{}}`,
	}
	for name, v := range foreign {
		if _, err := testEtcd.Client().Put(context.Background(), f.st.key("ns", name), v); err != nil {
			t.Fatal(err)
		}
		names = append(names, name)
	}
	check := func(round string) {
		t.Helper()
		for _, name := range names {
			got, err := f.st.GetJSON(ctx, "ns", name, GetOptions{})
			if err != nil {
				t.Fatalf("%s: GetJSON %s: %v", round, name, err)
			}
			if want := typedJSON(t, f, "ns", name); !bytes.Equal(got, want) {
				t.Errorf("%s: GetJSON %s:\n got %s\nwant %s", round, name, got, want)
			}
		}
		for _, opts := range []ListOptions{
			{},
			{LabelSelector: labels.SelectorFromSet(labels.Set{"bench": "true"})},
			{LabelSelector: labels.SelectorFromSet(labels.Set{"x": ""})},
			{FieldSelector: fields.OneTermEqualSelector("metadata.name", "unicode")},
			{FieldSelector: fields.OneTermNotEqualSelector("metadata.namespace", "other")},
		} {
			for _, ns := range []string{"ns", ""} {
				got, want, rv, wantRV := listItemsJSON(t, f, ns, opts)
				if strings.Join(got, "\n") != strings.Join(want, "\n") {
					t.Errorf("%s: ListJSON(%q, %+v) items differ:\n got %s\nwant %s", round, ns, opts, got, want)
				}
				if rv != wantRV {
					t.Errorf("%s: ListJSON resourceVersion %s, List %s", round, rv, wantRV)
				}
			}
		}
	}
	check("first read")
	check("remembered")
	// The canonical foreign object is served from its bytes; the others
	// are not remembered.
	for name, remembered := range map[string]bool{"f-canonical": true, "plain": true, "managed": true, "unicode": true, "f-unknown": false, "f-order": false, "f-escape": false, "f-spaces": false, "f-rv": false, "f-case": false} {
		resp, err := testEtcd.Client().Get(context.Background(), f.st.key("ns", name))
		if err != nil || len(resp.Kvs) != 1 {
			t.Fatalf("read %s: %v", name, err)
		}
		if got := f.st.raw.lookup(resp.Kvs[0]) != nil || cacheSpliced(f, resp.Kvs[0]); got != remembered {
			t.Errorf("%s remembered: %v, want %v", name, got, remembered)
		}
	}
	// A new version of a remembered object is checked again.
	cur, err := f.st.Get(ctx, "ns", "plain", GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cur.Spec.Color = "blue"
	if _, err := put(ctx, f.st, cur, UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	// The same key and revision with other bytes (another etcd) is not
	// taken for the checked one.
	resp, err := testEtcd.Client().Get(context.Background(), f.st.key("ns", "managed"))
	if err != nil {
		t.Fatal(err)
	}
	kv := &mvccpb.KeyValue{Key: resp.Kvs[0].Key, ModRevision: resp.Kvs[0].ModRevision,
		Value: bytes.Replace(resp.Kvs[0].Value, []byte(`"size":4`), []byte(`"size":5`), 1)}
	if f.st.raw.lookup(kv) != nil {
		t.Error("a changed value at the same revision was taken for the checked one")
	}
	check("after update")
	// Deleted objects are forgotten.
	if _, _, err := f.st.Delete(ctx, "ns", "labels", DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, ok := f.st.raw.m[f.st.key("ns", "labels")]; ok {
		t.Error("deleted object still remembered")
	}
	if _, err := f.st.GetJSON(ctx, "ns", "labels", GetOptions{}); err == nil {
		t.Error("GetJSON of a deleted object succeeded")
	}
}

func TestListJSONDeclines(t *testing.T) {
	f := newFixture(t, true, false)
	mustCreate(t, f, widget("ns", "a", 1))
	// Declined unchecked (List checks it): a converted view's options.
	conv := ListOptions{FieldSelector: fields.OneTermEqualSelector("status.state", "x"), selectable: &selectable{info: f.st.s.Info}}
	if _, ok, _ := f.st.ListJSON(ctx, "ns", conv); ok {
		t.Errorf("ListJSON of a converted view's options served; want it to decline")
	}
	// Errors are the typed path's.
	for _, opts := range []ListOptions{
		{ResourceVersion: "x"},
		{Continue: "x"},
		{Limit: 1, Continue: "x"},
		// A field label the kind does not support.
		{FieldSelector: fields.OneTermEqualSelector("spec.size", "1")},
		{FieldSelector: fields.OneTermEqualSelector("metadata.name", "a"), ResourceVersion: "x"},
		{ResourceVersion: "0", ResourceVersionMatch: metav1.ResourceVersionMatchExact},
		{ResourceVersion: fmt.Sprint(currentRev(t) + 1000), ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan},
		{ResourceVersion: fmt.Sprint(currentRev(t) + 1000), ResourceVersionMatch: metav1.ResourceVersionMatchExact},
	} {
		_, ok, err := f.st.ListJSON(ctx, "ns", opts)
		_, terr := f.st.List(ctx, "ns", opts)
		if !ok || err == nil || terr == nil || err.Error() != terr.Error() {
			t.Errorf("ListJSON(%+v): ok=%v err=%v; List: %v", opts, ok, err, terr)
		}
	}
	_, err := f.st.GetJSON(ctx, "ns", "missing", GetOptions{})
	_, terr := f.st.Get(ctx, "ns", "missing", GetOptions{})
	if err == nil || terr == nil || err.Error() != terr.Error() {
		t.Errorf("GetJSON of a missing object: %v; Get: %v", err, terr)
	}
}

func TestSpliceOffset(t *testing.T) {
	for _, tc := range []struct {
		in, want string
	}{
		{`{"metadata":{}}`, `{"metadata":{"resourceVersion":"5"}}`},
		{`{"metadata":{"name":"a"}}`, `{"metadata":{"name":"a","resourceVersion":"5"}}`},
		{`{"metadata":{"name":"a","uid":"u","generation":1}}`, `{"metadata":{"name":"a","uid":"u","resourceVersion":"5","generation":1}}`},
		{`{"kind":"K","metadata":{"labels":{"name":"x"}},"spec":{"metadata":{}}}`, `{"kind":"K","metadata":{"resourceVersion":"5","labels":{"name":"x"}},"spec":{"metadata":{}}}`},
		{`{"a":{"metadata":{}},"b":["}",{"x":"\"}"}],"metadata":{"namespace":"n\"s"}}`, `{"a":{"metadata":{}},"b":["}",{"x":"\"}"}],"metadata":{"namespace":"n\"s","resourceVersion":"5"}}`},
	} {
		off, mode, ok := spliceOffset([]byte(tc.in))
		if !ok {
			t.Errorf("%s: no offset", tc.in)
			continue
		}
		if got := string(appendSpliced(nil, []byte(tc.in), off, mode, 5)); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.in, got, tc.want)
		}
		if len(tc.want) != len(tc.in)+spliceLen(mode, 5) {
			t.Errorf("%s: spliceLen %d, want %d", tc.in, spliceLen(mode, 5), len(tc.want)-len(tc.in))
		}
	}
	for _, in := range []string{``, `[]`, `{"spec":{}}`, `{"metadata":[]}`, `{"metadata":{"resourceVersion":"1"}}`, `{"metadata":{"name":"a"`, `{"metadata":{"name":`} {
		if _, _, ok := spliceOffset([]byte(in)); ok {
			t.Errorf("%s: offset found", in)
		}
	}
}

// TestListJSONPages lists more objects than one etcd page, with some
// versions remembered and some not, and objects changing between the
// pages of a list (which must not show: every page is read at the list's
// revision).
func TestListJSONPages(t *testing.T) {
	f := newFixture(t, true, false)
	n := 2*jsonListPage + 317
	for i := range n {
		w := widget(fmt.Sprintf("ns%d", i%3), fmt.Sprintf("w%05d", i), i)
		if i%2 == 0 {
			w.Labels = map[string]string{"bench": "true"}
		}
		mustCreate(t, f, w)
	}
	// Remember about half of the versions.
	for i := 0; i < n; i += 2 {
		if _, err := f.st.GetJSON(ctx, fmt.Sprintf("ns%d", i%3), fmt.Sprintf("w%05d", i), GetOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	for _, opts := range []ListOptions{{}, {LabelSelector: labels.SelectorFromSet(labels.Set{"bench": "true"})}} {
		for _, ns := range []string{"", "ns1"} {
			got, want, rv, wantRV := listItemsJSON(t, f, ns, opts)
			if len(got) == 0 || strings.Join(got, "\n") != strings.Join(want, "\n") || rv != wantRV {
				t.Errorf("ListJSON(%q, %+v): %d items at %s, List %d at %s; equal: %v", ns, opts, len(got), rv, len(want), wantRV, strings.Join(got, "\n") == strings.Join(want, "\n"))
			}
		}
	}
	jl, ok, err := f.st.ListJSON(ctx, "", ListOptions{})
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	// Change the last object and add one after the first page was read.
	last, err := f.st.Get(ctx, "ns0", fmt.Sprintf("w%05d", n-1), GetOptions{})
	if err == nil {
		last.Spec.Color = "changed"
		_, err = put(ctx, f.st, last, UpdateOptions{})
	}
	if err != nil {
		t.Fatal(err)
	}
	mustCreate(t, f, widget("ns9", "late", 1))
	var items int
	for {
		item, ok, err := jl.Next(nil)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			break
		}
		items++
		if bytes.Contains(item, []byte("changed")) || bytes.Contains(item, []byte(`"late"`)) {
			t.Errorf("a write after the list's revision shows: %s", item)
		}
	}
	if items != n {
		t.Errorf("%d items, want %d", items, n)
	}
}
