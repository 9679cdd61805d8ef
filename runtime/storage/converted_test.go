package storage

import (
	"context"
	"errors"
	"fmt"
	"github.com/kubeforge/kubeforge/runtime/presence"
	"net/http"
	"reflect"
	"strconv"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kubeforge/kubeforge/runtime/resource"
)

// *Store is what the handlers and generated code take as an Interface.
var _ Interface[*Widget, *WidgetList] = (*Store[*Widget, *WidgetList])(nil)

// AlphaWidget is Widget in a spoke version test.kubeforge.dev/v1alpha1:
// spec.width is the hub's spec.size, status.state the hub's status.phase,
// and the hub-only spec.color is kept in an annotation.
type AlphaWidget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              AlphaWidgetSpec   `json:"spec,omitempty"`
	Status            AlphaWidgetStatus `json:"status,omitempty"`
}

type AlphaWidgetSpec struct {
	Width int `json:"width"`
}

type AlphaWidgetStatus struct {
	State string `json:"state,omitempty"`
}

func (w *AlphaWidget) DeepCopyObject() runtime.Object {
	out := *w
	w.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	return &out
}

type AlphaWidgetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []AlphaWidget `json:"items"`
}

func (l *AlphaWidgetList) DeepCopyObject() runtime.Object {
	out := *l
	l.ListMeta.DeepCopyInto(&out.ListMeta)
	out.Items = nil
	for i := range l.Items {
		out.Items = append(out.Items, *l.Items[i].DeepCopyObject().(*AlphaWidget))
	}
	return &out
}

const colorAnnotation = "test.kubeforge.dev/color"

var alphaGVK = schema.GroupVersionKind{Group: "test.kubeforge.dev", Version: "v1alpha1", Kind: "Widget"}

func alphaStrategy() *resource.Strategy[*AlphaWidget, *AlphaWidgetList] {
	info := &resource.Info{
		Group: "test.kubeforge.dev", Version: "v1alpha1", Kind: "Widget", ListKind: "WidgetList",
		Plural: "widgets", Singular: "widget", Namespaced: true, StorageVersion: "v1",
		Subresources: []string{"status"},
	}
	return &resource.Strategy[*AlphaWidget, *AlphaWidgetList]{
		Info:    info,
		New:     func() *AlphaWidget { return &AlphaWidget{} },
		NewList: func() *AlphaWidgetList { return &AlphaWidgetList{} },
		SetItems: func(l *AlphaWidgetList, items []*AlphaWidget) {
			l.Items = make([]AlphaWidget, len(items))
			for i, it := range items {
				l.Items[i] = *it
			}
		},
		GetItems: func(l *AlphaWidgetList) []*AlphaWidget {
			out := make([]*AlphaWidget, len(l.Items))
			for i := range l.Items {
				out[i] = &l.Items[i]
			}
			return out
		},
		Validate: func(w *AlphaWidget, _ presence.Node) field.ErrorList {
			var errs field.ErrorList
			if w.Name == "" {
				errs = append(errs, field.Required(field.NewPath("metadata", "name"), "name or generateName is required"))
			}
			if w.Spec.Width > 100 {
				errs = append(errs, field.Invalid(field.NewPath("spec", "width"), w.Spec.Width, "must be less than or equal to 100"))
			}
			if w.Status.State == "Bogus" {
				errs = append(errs, field.NotSupported(field.NewPath("status", "state"), w.Status.State, []string{"Ready"}))
			}
			return errs
		},
		ResetStatus: func(w *AlphaWidget) { w.Status = AlphaWidgetStatus{} },
		CopyStatus:  func(dst, src *AlphaWidget) { dst.Status = src.Status },
		SpecChanged: func(o, n *AlphaWidget) bool { return !reflect.DeepEqual(o.Spec, n.Spec) },
	}
}

func alphaConverter() Converter[*AlphaWidget, *AlphaWidgetList, *Widget, *WidgetList] {
	toHub := func(in *AlphaWidget) (*Widget, error) {
		if in.Spec.Width == 13 {
			return nil, errors.New("spec.width: 13 has no size")
		}
		out := &Widget{Spec: WidgetSpec{Size: in.Spec.Width}, Status: WidgetStatus{Phase: in.Status.State}}
		in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
		out.Spec.Color = out.Annotations[colorAnnotation]
		delete(out.Annotations, colorAnnotation)
		if len(out.Annotations) == 0 {
			out.Annotations = nil
		}
		out.APIVersion, out.Kind = "test.kubeforge.dev/v1", "Widget"
		return out, nil
	}
	fromHub := func(in *Widget) (*AlphaWidget, error) {
		if in.Spec.Color == "unconvertible" {
			return nil, fmt.Errorf("widget %q: color %q has no v1alpha1 form", in.Name, in.Spec.Color)
		}
		out := &AlphaWidget{Spec: AlphaWidgetSpec{Width: in.Spec.Size}, Status: AlphaWidgetStatus{State: in.Status.Phase}}
		in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
		if in.Spec.Color != "" {
			if out.Annotations == nil {
				out.Annotations = map[string]string{}
			}
			out.Annotations[colorAnnotation] = in.Spec.Color
		}
		out.APIVersion, out.Kind = "test.kubeforge.dev/v1alpha1", "Widget"
		return out, nil
	}
	return Converter[*AlphaWidget, *AlphaWidgetList, *Widget, *WidgetList]{
		ToHub:   toHub,
		FromHub: fromHub,
		ListFromHub: func(in *WidgetList) (*AlphaWidgetList, error) {
			out := &AlphaWidgetList{}
			// List metadata is the adapter's job: leave it out here.
			for i := range in.Items {
				item, err := fromHub(&in.Items[i])
				if err != nil {
					return nil, err
				}
				out.Items = append(out.Items, *item)
			}
			return out, nil
		},
	}
}

// newConverted returns a hub fixture (namespaced, with status) and the
// spoke served over its store.
func newConverted(t *testing.T) (*fixture, Interface[*AlphaWidget, *AlphaWidgetList]) {
	t.Helper()
	f := newFixture(t, true, true)
	return f, NewConverted[*AlphaWidget, *AlphaWidgetList, *Widget, *WidgetList](f.st, alphaStrategy(), alphaConverter())
}

func alpha(ns, name string, width int) *AlphaWidget {
	return &AlphaWidget{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: AlphaWidgetSpec{Width: width}}
}

func wantAlpha(t *testing.T, w *AlphaWidget, name string, width int) {
	t.Helper()
	if w.Name != name || w.Spec.Width != width || w.GroupVersionKind() != alphaGVK {
		t.Fatalf("got %s %q width %d; want %s %q width %d", w.GroupVersionKind(), w.Name, w.Spec.Width, alphaGVK, name, width)
	}
}

func TestConvertedCreateGetDelete(t *testing.T) {
	f, sp := newConverted(t)
	ctx := context.Background()

	in := alpha("ns", "a", 5)
	in.Annotations = map[string]string{colorAnnotation: "red"}
	in.Status.State = "Ready" // create drops status
	created, err := sp.Create(ctx, in, CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	wantAlpha(t, created, "a", 5)
	if created.UID == "" || created.ResourceVersion == "" || created.Generation != 1 || created.Status.State != "" {
		t.Fatalf("created %+v: want uid, resourceVersion, generation 1 and no status", created.ObjectMeta)
	}
	if created.Annotations[colorAnnotation] != "red" {
		t.Fatalf("created annotations %v: the hub-only color must come back", created.Annotations)
	}
	if in.UID != "" {
		t.Fatal("Create modified its argument")
	}
	// Stored as the hub: size and color, no annotation.
	hub, err := f.st.Get(ctx, "ns", "a", GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if hub.Spec.Size != 5 || hub.Spec.Color != "red" || len(hub.Annotations) != 0 || hub.ResourceVersion != created.ResourceVersion {
		t.Fatalf("hub object %+v %+v: want size 5, color red, no annotations, rv %s", hub.Spec, hub.Annotations, created.ResourceVersion)
	}

	got, err := sp.Get(ctx, "ns", "a", GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	wantAlpha(t, got, "a", 5)
	_, err = sp.Get(ctx, "ns", "missing", GetOptions{})
	wantStatus(t, err, http.StatusNotFound, metav1.StatusReasonNotFound, `widgets.test.kubeforge.dev "missing" not found`)

	// generateName: validated with the name the hub store will generate.
	gen := alpha("ns", "", 1)
	gen.GenerateName = "gen-"
	g, err := sp.Create(ctx, gen, CreateOptions{})
	if err != nil {
		t.Fatalf("create with generateName: %v", err)
	}
	if len(g.Name) != len("gen-")+5 {
		t.Fatalf("generated name %q", g.Name)
	}

	// Spoke validation: 422 with the spoke's field path. The hub's own
	// markers do not run on a spoke's write (each version validates its
	// requests by its own rules, as kube-apiserver does), its hand-written
	// hooks do: 422 with the hub's path. Nothing stored.
	_, err = sp.Create(ctx, alpha("ns", "wide", 101), CreateOptions{})
	se := wantStatus(t, err, http.StatusUnprocessableEntity, metav1.StatusReasonInvalid, "~spec.width")
	if c := se.ErrStatus.Details.Causes; len(c) != 1 || c[0].Field != "spec.width" {
		t.Fatalf("causes %+v: want spec.width", c)
	}
	neg, err := sp.Create(ctx, alpha("ns", "negative", -1), CreateOptions{})
	if err != nil || neg.Spec.Width != -1 {
		t.Fatalf("a width the spoke allows, though the hub's Validate would not: %v %+v", err, neg)
	}
	forbidden := alpha("ns", "forbidden", 1)
	forbidden.Annotations = map[string]string{colorAnnotation: "forbidden"}
	_, err = sp.Create(ctx, forbidden, CreateOptions{})
	wantStatus(t, err, http.StatusUnprocessableEntity, metav1.StatusReasonInvalid, "~spec.color")
	// A conversion failure caused by the request: 400.
	_, err = sp.Create(ctx, alpha("ns", "unlucky", 13), CreateOptions{})
	wantStatus(t, err, http.StatusBadRequest, metav1.StatusReasonBadRequest, "~13 has no size")
	for _, name := range []string{"wide", "forbidden", "unlucky"} {
		if _, err := f.st.Get(ctx, "ns", name, GetOptions{}); !apierrors.IsNotFound(err) {
			t.Fatalf("%s was stored: %v", name, err)
		}
	}
	// Dry run: nothing stored.
	if _, err := sp.Create(ctx, alpha("ns", "dry", 1), CreateOptions{DryRun: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.st.Get(ctx, "ns", "dry", GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("dry run stored: %v", err)
	}

	// A stored object that does not convert is a 500.
	bad := widget("ns", "bad", 1)
	bad.Spec.Color = "unconvertible"
	mustCreate(t, f, bad)
	_, err = sp.Get(ctx, "ns", "bad", GetOptions{})
	wantStatus(t, err, http.StatusInternalServerError, metav1.StatusReasonInternalError, "~color \"unconvertible\" has no v1alpha1 form")

	deleted, ok, err := sp.Delete(ctx, "ns", "a", DeleteOptions{})
	if err != nil || !ok {
		t.Fatalf("delete: %v %v", ok, err)
	}
	wantAlpha(t, deleted, "a", 5)
	if _, err := f.st.Get(ctx, "ns", "a", GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("deleted object still stored: %v", err)
	}
	_, _, err = sp.Delete(ctx, "ns", "a", DeleteOptions{})
	wantStatus(t, err, http.StatusNotFound, metav1.StatusReasonNotFound, "")
}

func TestConvertedUpdate(t *testing.T) {
	f, sp := newConverted(t)
	ctx := context.Background()
	hubIn := widget("ns", "u", 1)
	hubIn.Spec.Color = "blue"
	hubIn.Labels = map[string]string{"app": "x"}
	created := mustCreate(t, f, hubIn)
	if _, err := f.st.GuaranteedUpdate(ctx, "ns", "u", "status", func(w *Widget) (*Widget, error) {
		w.Status.Phase = "Ready"
		return w, nil
	}, UpdateOptions{}); err != nil {
		t.Fatal(err)
	}

	// Read-modify-write through the spoke keeps the hub-only color.
	cur, err := sp.Get(ctx, "ns", "u", GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if cur.Status.State != "Ready" || cur.Annotations[colorAnnotation] != "blue" {
		t.Fatalf("read through the spoke: %+v %v", cur.Status, cur.Annotations)
	}
	cur.Spec.Width = 7
	cur.Status.State = "Ignored" // main resource: status is kept
	updated, err := put(ctx, sp, cur, UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	wantAlpha(t, updated, "u", 7)
	if updated.Generation != 2 || updated.Status.State != "Ready" || updated.Annotations[colorAnnotation] != "blue" {
		t.Fatalf("updated: generation %d status %q annotations %v", updated.Generation, updated.Status.State, updated.Annotations)
	}
	hub, err := f.st.Get(ctx, "ns", "u", GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if hub.Spec.Size != 7 || hub.Spec.Color != "blue" || hub.Status.Phase != "Ready" || hub.UID != created.UID {
		t.Fatalf("hub after the spoke update: %+v %+v", hub.Spec, hub.Status)
	}

	// Stale resourceVersion: 409; none: 422; malformed: 400; too wide: 422
	// with the spoke's path; unconvertible: 400.
	stale := cur.DeepCopyObject().(*AlphaWidget)
	_, err = put(ctx, sp, stale, UpdateOptions{})
	wantStatus(t, err, http.StatusConflict, metav1.StatusReasonConflict, "~the object has been modified")
	none := updated.DeepCopyObject().(*AlphaWidget)
	none.ResourceVersion = ""
	_, err = put(ctx, sp, none, UpdateOptions{})
	wantStatus(t, err, http.StatusUnprocessableEntity, metav1.StatusReasonInvalid, "~must be specified for an update")
	bad := updated.DeepCopyObject().(*AlphaWidget)
	bad.ResourceVersion = "x"
	_, err = put(ctx, sp, bad, UpdateOptions{})
	wantStatus(t, err, http.StatusBadRequest, metav1.StatusReasonBadRequest, "")
	wide := updated.DeepCopyObject().(*AlphaWidget)
	wide.Spec.Width = 500
	_, err = put(ctx, sp, wide, UpdateOptions{})
	wantStatus(t, err, http.StatusUnprocessableEntity, metav1.StatusReasonInvalid, "~spec.width")
	wide.Spec.Width = 13
	_, err = put(ctx, sp, wide, UpdateOptions{})
	wantStatus(t, err, http.StatusBadRequest, metav1.StatusReasonBadRequest, "~13 has no size")

	// GuaranteedUpdate: tryUpdate sees the current object as the spoke.
	var seen *AlphaWidget
	patched, err := sp.GuaranteedUpdate(ctx, "ns", "u", "", func(c *AlphaWidget) (*AlphaWidget, error) {
		seen = c.DeepCopyObject().(*AlphaWidget)
		c.Spec.Width++
		return c, nil
	}, UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if seen.GroupVersionKind() != alphaGVK || seen.Spec.Width != 7 || seen.Annotations[colorAnnotation] != "blue" {
		t.Fatalf("tryUpdate saw %s width %d annotations %v", seen.GroupVersionKind(), seen.Spec.Width, seen.Annotations)
	}
	wantAlpha(t, patched, "u", 8)
	// tryUpdate's errors pass through unchanged.
	boom := apierrors.NewForbidden(schema.GroupResource{Resource: "widgets"}, "u", errors.New("no"))
	_, err = sp.GuaranteedUpdate(ctx, "ns", "u", "", func(*AlphaWidget) (*AlphaWidget, error) { return nil, boom }, UpdateOptions{})
	if err != boom {
		t.Fatalf("tryUpdate error: got %v", err)
	}

	// Status subresource through the spoke: only status changes, and the
	// spoke validation sees the merged object.
	st, err := sp.GuaranteedUpdate(ctx, "ns", "u", "status", func(c *AlphaWidget) (*AlphaWidget, error) {
		c.Status.State = "Done"
		c.Spec.Width = 99
		return c, nil
	}, UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if st.Status.State != "Done" || st.Spec.Width != 8 {
		t.Fatalf("status update: state %q width %d; want Done 8", st.Status.State, st.Spec.Width)
	}
	_, err = sp.GuaranteedUpdate(ctx, "ns", "u", "status", func(c *AlphaWidget) (*AlphaWidget, error) {
		c.Status.State = "Bogus"
		c.Spec.Width = 1000 // ignored: not part of a status update
		return c, nil
	}, UpdateOptions{})
	se := wantStatus(t, err, http.StatusUnprocessableEntity, metav1.StatusReasonInvalid, "")
	if c := se.ErrStatus.Details.Causes; len(c) != 1 || c[0].Field != "status.state" {
		t.Fatalf("causes %+v: want only status.state", c)
	}
	stObj := st.DeepCopyObject().(*AlphaWidget)
	stObj.Status.State = "Put"
	put, err := put(ctx, sp, stObj, UpdateOptions{Subresource: "status"})
	if err != nil || put.Status.State != "Put" {
		t.Fatalf("status PUT: %v %+v", err, put)
	}
}

func TestConvertedListPaginationSelectors(t *testing.T) {
	f, sp := newConverted(t)
	ctx := context.Background()
	for i := 0; i < 5; i++ {
		w := widget("ns", fmt.Sprintf("w%d", i), i)
		w.Labels = map[string]string{"app": "x"}
		if i == 4 {
			w.Labels["app"] = "y"
		}
		mustCreate(t, f, w)
	}
	mustCreate(t, f, widget("other", "w9", 9))

	var names []string
	var listRV, cont string
	for page := 0; ; page++ {
		l, err := sp.List(ctx, "ns", ListOptions{Limit: 2, Continue: cont, LabelSelector: mustSelector(t, "app=x")})
		if err != nil {
			t.Fatal(err)
		}
		if l.GroupVersionKind() != alphaGVK.GroupVersion().WithKind("WidgetList") {
			t.Fatalf("list kind %s", l.GroupVersionKind())
		}
		if page == 0 {
			listRV = l.ResourceVersion
		} else if l.ResourceVersion != listRV {
			t.Fatalf("page %d resourceVersion %s, want %s", page, l.ResourceVersion, listRV)
		}
		if listRV == "" {
			t.Fatal("list without resourceVersion")
		}
		for _, it := range l.Items {
			if it.Spec.Width != int(mustInt(t, it.Name[1:])) {
				t.Fatalf("item %s width %d", it.Name, it.Spec.Width)
			}
			names = append(names, it.Name)
		}
		if l.Continue == "" {
			break
		}
		cont = l.Continue
		if page > 3 {
			t.Fatal("pagination does not end")
		}
	}
	if fmt.Sprint(names) != "[w0 w1 w2 w3]" {
		t.Fatalf("paged names %v", names)
	}
	// Without a selector the hub counts the keys left: kept by the spoke.
	hl, err := f.st.List(ctx, "ns", ListOptions{Limit: 2})
	if err != nil {
		t.Fatal(err)
	}
	sl, err := sp.List(ctx, "ns", ListOptions{Limit: 2, ResourceVersion: hl.ResourceVersion, ResourceVersionMatch: metav1.ResourceVersionMatchExact})
	if err != nil {
		t.Fatal(err)
	}
	if sl.RemainingItemCount == nil || *sl.RemainingItemCount != 3 || sl.Continue == "" || sl.ResourceVersion != hl.ResourceVersion {
		t.Fatalf("spoke list metadata %+v; want remainingItemCount 3, a continue token and rv %s", sl.ListMeta, hl.ResourceVersion)
	}

	byName, err := sp.List(ctx, "", ListOptions{FieldSelector: fields.OneTermEqualSelector("metadata.name", "w9")})
	if err != nil || len(byName.Items) != 1 || byName.Items[0].Spec.Width != 9 {
		t.Fatalf("field selector: %v %+v", err, byName)
	}
	empty, err := sp.List(ctx, "nobody", ListOptions{})
	if err != nil || empty.Items == nil || len(empty.Items) != 0 {
		t.Fatalf("empty list: %v items %#v, want []", err, empty.Items)
	}
	_, err = sp.List(ctx, "ns", ListOptions{Continue: "garbage"})
	wantStatus(t, err, http.StatusBadRequest, metav1.StatusReasonBadRequest, "")

	gone, err := sp.DeleteCollection(ctx, "ns", ListOptions{LabelSelector: mustSelector(t, "app=y")}, DeleteOptions{})
	if err != nil || len(gone.Items) != 1 || gone.Items[0].Name != "w4" || gone.Items[0].Spec.Width != 4 || gone.ResourceVersion == "" {
		t.Fatalf("delete collection: %v %+v", err, gone)
	}
	if _, err := f.st.Get(ctx, "ns", "w4", GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("w4 not deleted: %v", err)
	}
}

func nextAlpha(t *testing.T, ch <-chan Event[*AlphaWidget], skipBookmarks bool) Event[*AlphaWidget] {
	t.Helper()
	for {
		select {
		case ev, ok := <-ch:
			if !ok {
				t.Fatal("watch closed")
			}
			if skipBookmarks && ev.Type == watch.Bookmark {
				continue
			}
			return ev
		case <-time.After(10 * time.Second):
			t.Fatal("no watch event in 10 s")
		}
	}
}

func TestConvertedWatch(t *testing.T) {
	f, sp := newConverted(t)
	ctx := context.Background()
	mustCreate(t, f, widget("ns", "before", 1))
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	yes := true
	ch, err := sp.Watch(wctx, "ns", WatchOptions{
		ListOptions:       ListOptions{ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan},
		SendInitialEvents: &yes, AllowBookmarks: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	ev := nextAlpha(t, ch, false)
	if ev.Type != watch.Added {
		t.Fatalf("first event %s", ev.Type)
	}
	wantAlpha(t, ev.Object, "before", 1)
	ev = nextAlpha(t, ch, false)
	if ev.Type != watch.Bookmark || ev.Object.GroupVersionKind() != alphaGVK || ev.Object.Annotations[InitialEventsAnnotation] != "true" || ev.Object.ResourceVersion == "" || ev.Object.Name != "" {
		t.Fatalf("initial-events-end bookmark: %s %s %+v", ev.Type, ev.Object.GroupVersionKind(), ev.Object.ObjectMeta)
	}

	// Writes through the hub arrive converted.
	c := mustCreate(t, f, widget("ns", "w", 2))
	ev = nextAlpha(t, ch, true)
	if ev.Type != watch.Added || ev.Object.ResourceVersion != c.ResourceVersion {
		t.Fatalf("event %s rv %s; want ADDED rv %s", ev.Type, ev.Object.ResourceVersion, c.ResourceVersion)
	}
	wantAlpha(t, ev.Object, "w", 2)
	if _, err := f.st.GuaranteedUpdate(ctx, "ns", "w", "", func(w *Widget) (*Widget, error) {
		w.Spec.Size, w.Spec.Color = 3, "green"
		return w, nil
	}, UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	ev = nextAlpha(t, ch, true)
	if ev.Type != watch.Modified || ev.Object.Annotations[colorAnnotation] != "green" {
		t.Fatalf("event %s %v; want MODIFIED with the color kept", ev.Type, ev.Object.Annotations)
	}
	wantAlpha(t, ev.Object, "w", 3)
	if _, _, err := f.st.Delete(ctx, "ns", "w", DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	ev = nextAlpha(t, ch, true)
	if ev.Type != watch.Deleted {
		t.Fatalf("event %s; want DELETED", ev.Type)
	}
	wantAlpha(t, ev.Object, "w", 3)

	// Periodic bookmarks are spoke objects too.
	ev = nextAlpha(t, ch, false)
	if ev.Type != watch.Bookmark || ev.Object.GroupVersionKind() != alphaGVK || ev.Object.ResourceVersion == "" {
		t.Fatalf("bookmark: %s %s %q", ev.Type, ev.Object.GroupVersionKind(), ev.Object.ResourceVersion)
	}

	// A stored object that does not convert ends the stream with a 500 ERROR.
	bad := widget("ns", "bad", 1)
	bad.Spec.Color = "unconvertible"
	mustCreate(t, f, bad)
	ev = nextAlpha(t, ch, true)
	if ev.Type != watch.Error || ev.Status == nil || ev.Status.Code != http.StatusInternalServerError {
		t.Fatalf("event %s %+v; want ERROR 500", ev.Type, ev.Status)
	}
	select {
	case _, ok := <-ch:
		if ok {
			t.Fatal("the watch goes on after an ERROR")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the watch was not closed after an ERROR")
	}
}

func TestConvertedWatchErrorsAndResume(t *testing.T) {
	f, sp := newConverted(t)
	ctx := context.Background()
	// Option errors come from the hub store as they are.
	_, err := sp.Watch(ctx, "ns", WatchOptions{ListOptions: ListOptions{ResourceVersion: "x"}})
	wantStatus(t, err, http.StatusBadRequest, metav1.StatusReasonBadRequest, "")

	a := mustCreate(t, f, widget("ns", "a", 1))
	if _, _, err := f.st.Delete(ctx, "ns", "a", DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	wctx, cancel := context.WithCancel(ctx)
	ch, err := sp.Watch(wctx, "ns", WatchOptions{ListOptions: ListOptions{ResourceVersion: a.ResourceVersion, LabelSelector: mustSelector(t, "")}})
	if err != nil {
		t.Fatal(err)
	}
	ev := nextAlpha(t, ch, true)
	if ev.Type != watch.Deleted {
		t.Fatalf("resumed watch: %s; want DELETED", ev.Type)
	}
	wantAlpha(t, ev.Object, "a", 1)
	if rv, _ := strconv.ParseInt(ev.Object.ResourceVersion, 10, 64); rv <= mustInt(t, a.ResourceVersion) {
		t.Fatalf("DELETED rv %s not after %s", ev.Object.ResourceVersion, a.ResourceVersion)
	}
	// The stream closes when the consumer goes away.
	cancel()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case _, ok := <-ch:
			if !ok {
				return
			}
		case <-deadline:
			t.Fatal("watch not closed after cancel")
		}
	}
}
