package storage

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/watch"
)

// selectingFixture is a hub store whose strategy selects on spec.color
// (as a generated <kind>SelectableFields does) and the v1alpha1 spoke over
// it selecting on status.state, its name for the hub's status.phase.
func selectingFixture(t *testing.T) (*fixture, Interface[*AlphaWidget, *AlphaWidgetList]) {
	t.Helper()
	// The strategy is complete before the store (and its watch cache,
	// which reads it) starts.
	s := widgetStrategy(true, true)
	s.Info.SelectableFields = []string{"spec.color"}
	s.SelectableFields = func(w *Widget) fields.Set {
		return fields.Set{"metadata.name": w.Name, "metadata.namespace": w.Namespace, "spec.color": w.Spec.Color}
	}
	f := newFixtureWith(t, s)
	spoke := alphaStrategy()
	spoke.Info.SelectableFields = []string{"status.state"}
	spoke.SelectableFields = func(w *AlphaWidget) fields.Set {
		return fields.Set{"metadata.name": w.Name, "metadata.namespace": w.Namespace, "status.state": w.Status.State}
	}
	return f, NewConverted[*AlphaWidget, *AlphaWidgetList, *Widget, *WidgetList](f.st, spoke, alphaConverter())
}

func fieldSel(t *testing.T, s string) fields.Selector {
	t.Helper()
	sel, err := fields.ParseSelector(s)
	if err != nil {
		t.Fatal(err)
	}
	return sel
}

func widgetNames(ws []*Widget) string {
	var out []string
	for _, w := range ws {
		out = append(out, w.Name)
	}
	return strings.Join(out, ",")
}

// TestSelectableFieldsHub: the store matches field selectors on the
// strategy's field set (metadata-only selectors on metadata), paginates
// through non-matching objects and rejects labels the Info does not list.
func TestSelectableFieldsHub(t *testing.T) {
	f, _ := selectingFixture(t)
	ctx := context.Background()
	for i, c := range []string{"red", "blue", "red", "", "red"} {
		w := widget("ns", string(rune('a'+i)), i)
		w.Spec.Color = c
		mustCreate(t, f, w)
	}
	for sel, want := range map[string]string{
		"spec.color=red":                  "a,c,e",
		"spec.color!=red":                 "b,d",
		"spec.color=":                     "d",
		"spec.color=red,metadata.name!=c": "a,e",
		"metadata.name=b":                 "b",
	} {
		list, err := f.st.List(ctx, "ns", ListOptions{FieldSelector: fieldSel(t, sel)})
		if err != nil {
			t.Fatalf("list %s: %v", sel, err)
		}
		if got := widgetNames(f.st.s.GetItems(list)); got != want {
			t.Errorf("list %s: %q, want %q", sel, got, want)
		}
	}
	// Pages of one matching object each, at one revision.
	var got []string
	opts := ListOptions{FieldSelector: fieldSel(t, "spec.color=red"), Limit: 1}
	for range 4 {
		list, err := f.st.List(ctx, "ns", opts)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, widgetNames(f.st.s.GetItems(list)))
		if list.Continue == "" {
			break
		}
		if list.RemainingItemCount != nil {
			t.Errorf("a filtered page must not count the remaining items: %d", *list.RemainingItemCount)
		}
		opts.Continue = list.Continue
	}
	if strings.Join(got, " ") != "a c e" {
		t.Errorf("pages %q, want a c e", got)
	}
	_, err := f.st.List(ctx, "ns", ListOptions{FieldSelector: fieldSel(t, "status.phase=x")})
	wantStatus(t, err, http.StatusBadRequest, metav1.StatusReasonBadRequest, "field label not supported: status.phase")
	_, err = f.st.Watch(ctx, "ns", WatchOptions{ListOptions: ListOptions{FieldSelector: fieldSel(t, "spec.size=1")}})
	wantStatus(t, err, http.StatusBadRequest, metav1.StatusReasonBadRequest, "field label not supported: spec.size")

	// kube-apiserver's default field label conversion (built-in kinds
	// without one of their own).
	f.st.s.Info.DefaultFieldLabelConversion = true
	_, err = f.st.List(ctx, "ns", ListOptions{FieldSelector: fieldSel(t, "spec.color=red")})
	wantStatus(t, err, http.StatusBadRequest, metav1.StatusReasonBadRequest, `"spec.color" is not a known field selector: only "metadata.name", "metadata.namespace"`)
}

// TestSelectableFieldsConverted: the spoke selects on its own labels and
// fields, the stored objects converted one by one, in list, pagination,
// watch and deletecollection; the hub's labels are not the spoke's.
func TestSelectableFieldsConverted(t *testing.T) {
	f, sp := selectingFixture(t)
	ctx := context.Background()
	for i, state := range []string{"Ready", "", "Ready"} {
		w := widget("ns", string(rune('a'+i)), i)
		w.Spec.Color = "red"
		w = mustCreate(t, f, w)
		if state != "" {
			w.Status.Phase = state
			if _, err := put(ctx, f.st, w, UpdateOptions{Subresource: "status"}); err != nil {
				t.Fatal(err)
			}
		}
	}
	names := func(l *AlphaWidgetList) string {
		var out []string
		for _, w := range l.Items {
			out = append(out, w.Name)
		}
		return strings.Join(out, ",")
	}
	list, err := sp.List(ctx, "ns", ListOptions{FieldSelector: fieldSel(t, "status.state=Ready")})
	if err != nil {
		t.Fatal(err)
	}
	if got := names(list); got != "a,c" {
		t.Errorf("spoke list status.state=Ready: %q", got)
	}
	page, err := sp.List(ctx, "ns", ListOptions{FieldSelector: fieldSel(t, "status.state=Ready"), Limit: 1})
	if err != nil || names(page) != "a" || page.Continue == "" {
		t.Fatalf("first page: %v %v %q", names(page), err, page.Continue)
	}
	page, err = sp.List(ctx, "ns", ListOptions{FieldSelector: fieldSel(t, "status.state=Ready"), Limit: 1, Continue: page.Continue})
	if err != nil || names(page) != "c" {
		t.Fatalf("second page: %v %v", names(page), err)
	}
	_, err = sp.List(ctx, "ns", ListOptions{FieldSelector: fieldSel(t, "spec.color=red")})
	wantStatus(t, err, http.StatusBadRequest, metav1.StatusReasonBadRequest, "field label not supported: spec.color")
	_, err = f.st.List(ctx, "ns", ListOptions{FieldSelector: fieldSel(t, "status.state=Ready")})
	wantStatus(t, err, http.StatusBadRequest, metav1.StatusReasonBadRequest, "field label not supported: status.state")

	// Watch: b starts matching (ADDED), a stops (DELETED), c is deleted.
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ch, err := sp.Watch(wctx, "ns", WatchOptions{ListOptions: ListOptions{FieldSelector: fieldSel(t, "status.state=Ready"), ResourceVersion: list.ResourceVersion}})
	if err != nil {
		t.Fatal(err)
	}
	next := func(typ watch.EventType, name, state string) {
		t.Helper()
		select {
		case ev := <-ch:
			if ev.Type != typ || ev.Object.Name != name || ev.Object.Status.State != state || ev.Object.GroupVersionKind() != alphaGVK {
				t.Fatalf("event %s %s %q (%s), want %s %s %q", ev.Type, ev.Object.Name, ev.Object.Status.State, ev.Object.GroupVersionKind(), typ, name, state)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("no %s event for %s", typ, name)
		}
	}
	setPhase := func(name, phase string) {
		t.Helper()
		if _, err := f.st.GuaranteedUpdate(ctx, "ns", name, "status", func(cur *Widget) (*Widget, error) {
			cur.Status.Phase = phase
			return cur, nil
		}, UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	setPhase("b", "Ready")
	next(watch.Added, "b", "Ready")
	setPhase("a", "Lost")
	next(watch.Deleted, "a", "Ready") // the last state that matched
	if _, _, err := f.st.Delete(ctx, "ns", "c", DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	next(watch.Deleted, "c", "Ready")

	// A stored object the spoke cannot convert fails the selection with a
	// 500 (a bug), not a silent mismatch; metadata-only selectors need no
	// conversion.
	bad := widget("ns", "x", 9)
	bad.Spec.Color = "unconvertible"
	mustCreate(t, f, bad)
	_, err = sp.List(ctx, "ns", ListOptions{FieldSelector: fieldSel(t, "status.state=Ready")})
	wantStatus(t, err, http.StatusInternalServerError, metav1.StatusReasonInternalError, `~color "unconvertible" has no v1alpha1 form`)
	if _, err := f.st.List(ctx, "ns", ListOptions{FieldSelector: fieldSel(t, "metadata.name=x")}); err != nil {
		t.Errorf("hub list metadata.name=x: %v", err)
	}
	if _, _, err := f.st.Delete(ctx, "ns", "x", DeleteOptions{}); err != nil {
		t.Fatal(err)
	}

	// deletecollection through the spoke on its own labels.
	out, err := sp.DeleteCollection(ctx, "ns", ListOptions{FieldSelector: fieldSel(t, "status.state=Ready")}, DeleteOptions{})
	if err != nil || names(out) != "b" {
		t.Fatalf("deletecollection status.state=Ready: %q %v, want b", names(out), err)
	}
	left, err := f.st.List(ctx, "ns", ListOptions{})
	if err != nil || widgetNames(f.st.s.GetItems(left)) != "a" {
		t.Fatalf("left after deletecollection: %v %v", widgetNames(f.st.s.GetItems(left)), err)
	}
}
