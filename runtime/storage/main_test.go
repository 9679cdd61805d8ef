package storage

import (
	"context"
	"errors"
	"fmt"
	"github.com/kubeforge/kubeforge/runtime/presence"
	"os"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kubeforge/kubeforge/internal/etcdtest"
	"github.com/kubeforge/kubeforge/runtime/etcd"
	"github.com/kubeforge/kubeforge/runtime/resource"
)

// Widget is a hand-written test kind (generated kinds are built elsewhere).
type Widget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              WidgetSpec   `json:"spec,omitempty"`
	Status            WidgetStatus `json:"status,omitempty"`
}

type WidgetSpec struct {
	Size  int    `json:"size"`
	Color string `json:"color,omitempty"`
}

type WidgetStatus struct {
	Phase string `json:"phase,omitempty"`
}

func (w *Widget) DeepCopyObject() runtime.Object {
	out := *w
	w.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	return &out
}

type WidgetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Widget `json:"items"`
}

func (l *WidgetList) DeepCopyObject() runtime.Object {
	out := *l
	l.ListMeta.DeepCopyInto(&out.ListMeta)
	out.Items = nil
	for i := range l.Items {
		out.Items = append(out.Items, *l.Items[i].DeepCopyObject().(*Widget))
	}
	return &out
}

func widgetStrategy(namespaced, withStatus bool) *resource.Strategy[*Widget, *WidgetList] {
	info := &resource.Info{
		Group: "test.kubeforge.dev", Version: "v1", Kind: "Widget", ListKind: "WidgetList",
		Plural: "widgets", Singular: "widget", Namespaced: namespaced, StorageVersion: "v1",
	}
	s := &resource.Strategy[*Widget, *WidgetList]{
		Info:    info,
		New:     func() *Widget { return &Widget{} },
		NewList: func() *WidgetList { return &WidgetList{} },
		SetItems: func(l *WidgetList, items []*Widget) {
			l.Items = make([]Widget, len(items))
			for i, it := range items {
				l.Items[i] = *it
			}
		},
		GetItems: func(l *WidgetList) []*Widget {
			out := make([]*Widget, len(l.Items))
			for i := range l.Items {
				out[i] = &l.Items[i]
			}
			return out
		},
		Default: func(*Widget, presence.Node) {},
		Validate: func(w *Widget, _ presence.Node) field.ErrorList {
			var errs field.ErrorList
			if w.Spec.Size < 0 {
				errs = append(errs, field.Invalid(field.NewPath("spec", "size"), w.Spec.Size, "must be greater than or equal to 0"))
			}
			if w.Spec.Color == "forbidden" {
				errs = append(errs, field.Forbidden(field.NewPath("spec", "color"), "a hand-written hook forbids it"))
			}
			return errs
		},
		// As generated: only the hand-written hooks' part of Validate.
		ValidateHooks: func(w *Widget) field.ErrorList {
			if w.Spec.Color == "forbidden" {
				return field.ErrorList{field.Forbidden(field.NewPath("spec", "color"), "a hand-written hook forbids it")}
			}
			return nil
		},
		SpecChanged: func(o, n *Widget) bool {
			if withStatus {
				return !reflect.DeepEqual(o.Spec, n.Spec)
			}
			return !reflect.DeepEqual(o.Spec, n.Spec) || !reflect.DeepEqual(o.Status, n.Status)
		},
	}
	if withStatus {
		info.Subresources = []string{"status"}
		s.ResetStatus = func(w *Widget) { w.Status = WidgetStatus{} }
		s.CopyStatus = func(dst, src *Widget) { dst.Status = src.Status }
	}
	return s
}

var testEtcd *etcd.Embedded

func TestMain(m *testing.M) {
	os.Exit(etcdtest.Run(m, func(e *etcd.Embedded) { testEtcd = e }, etcd.WithWatchProgressNotifyInterval(time.Second)))
}

var prefixSeq atomic.Int64

// testWatchCache: the suite runs with the watch cache, as the server
// does, unless KUBEFORGE_WATCH_CACHE=off (hack/test.sh runs it both ways).
var testWatchCache = os.Getenv("KUBEFORGE_WATCH_CACHE") != "off"

type fixture struct {
	b      *Backend
	st     *Store[*Widget, *WidgetList]
	prefix string
}

func newFixture(t testing.TB, namespaced, withStatus bool) *fixture {
	t.Helper()
	return newFixtureWith(t, widgetStrategy(namespaced, withStatus))
}

// newFixtureWith is newFixture with a strategy of the test's own.
func newFixtureWith(t testing.TB, s *resource.Strategy[*Widget, *WidgetList]) *fixture {
	t.Helper()
	p := fmt.Sprintf("/t%d", prefixSeq.Add(1))
	b := NewBackend(testEtcd.Client(), p, BackendOptions{BookmarkInterval: 200 * time.Millisecond, WatchCache: testWatchCache})
	t.Cleanup(b.Close)
	return &fixture{b: b, st: NewStore(b, s), prefix: p}
}

// raw returns every key/value stored under the fixture's prefix.
func (f *fixture) raw(t testing.TB) map[string]string {
	t.Helper()
	resp, err := testEtcd.Client().Get(context.Background(), f.prefix+"/", clientv3.WithPrefix())
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, kv := range resp.Kvs {
		out[string(kv.Key)] = fmt.Sprintf("%d:%s", kv.ModRevision, kv.Value)
	}
	return out
}

func widget(ns, name string, size int) *Widget {
	return &Widget{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: WidgetSpec{Size: size}}
}

func mustCreate(t testing.TB, f *fixture, w *Widget) *Widget {
	t.Helper()
	out, err := f.st.Create(context.Background(), w, CreateOptions{})
	if err != nil {
		t.Fatalf("create %s/%s: %v", w.Namespace, w.Name, err)
	}
	return out
}

// wantStatus checks that err is a StatusError with code and reason and
// that its message equals msg (or contains it when msg starts with "~").
func wantStatus(t testing.TB, err error, code int32, reason metav1.StatusReason, msg string) *apierrors.StatusError {
	t.Helper()
	var se *apierrors.StatusError
	if !errors.As(err, &se) {
		t.Fatalf("error %v (%T) is not a StatusError; want %d %s", err, err, code, reason)
	}
	st := se.Status()
	if st.Code != code || st.Reason != reason {
		t.Fatalf("status = %d %s (%q); want %d %s", st.Code, st.Reason, st.Message, code, reason)
	}
	if strings.HasPrefix(msg, "~") {
		if !strings.Contains(st.Message, msg[1:]) {
			t.Fatalf("message %q does not contain %q", st.Message, msg[1:])
		}
	} else if msg != "" && st.Message != msg {
		t.Fatalf("message = %q; want %q", st.Message, msg)
	}
	return se
}

func currentRev(t testing.TB) int64 {
	t.Helper()
	resp, err := testEtcd.Client().Get(context.Background(), "/nothing")
	if err != nil {
		t.Fatal(err)
	}
	return resp.Header.Revision
}

// put replaces obj as the PUT handler does: through GuaranteedUpdate, with
// the request's object and its resourceVersion required.
func put[T resource.Object, L resource.ListObject](ctx context.Context, st Interface[T, L], obj T, opts UpdateOptions) (T, error) {
	opts.RequireResourceVersion = true
	return st.GuaranteedUpdate(ctx, obj.GetNamespace(), obj.GetName(), opts.Subresource, func(T) (T, error) {
		return obj.DeepCopyObject().(T), nil
	}, opts)
}

// waitFor polls cond for up to 5 seconds.
func waitFor(t testing.TB, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met within 5s")
		}
		time.Sleep(5 * time.Millisecond)
	}
}
