package storage

import (
	"context"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kubeforge/kubeforge/runtime/presence"
)

// TestCreateDefaultsTheDroppedStatus: a create drops the status a request
// sent; validation sees none (its JSON is hidden too), and the answer
// holds the status's default, as kube-apiserver answers with the object
// it reads back (Gateway API's "Waiting for controller" conditions).
func TestCreateDefaultsTheDroppedStatus(t *testing.T) {
	s := widgetStrategy(true, true)
	s.Default = func(w *Widget, in presence.Node) {
		if w.Status == (WidgetStatus{}) && !in.Has("status") {
			w.Status.Phase = "Pending"
		}
	}
	var sawStatus []bool
	s.Validate = func(w *Widget, in presence.Node) field.ErrorList {
		sawStatus = append(sawStatus, in.Has("status") || w.Status != WidgetStatus{})
		return nil
	}
	f := newFixtureWith(t, s)
	body := []byte(`{"metadata":{"name":"w1","namespace":"ns"},"spec":{"size":1},"status":{"phase":"Sent"}}`)
	w := &Widget{ObjectMeta: metav1.ObjectMeta{Name: "w1", Namespace: "ns"}, Spec: WidgetSpec{Size: 1}, Status: WidgetStatus{Phase: "Sent"}}
	out, err := f.st.Create(context.Background(), w, CreateOptions{Presence: presence.JSON(body)})
	if err != nil {
		t.Fatal(err)
	}
	if out.Status.Phase != "Pending" {
		t.Errorf("create answered status %+v, want the default Pending", out.Status)
	}
	if len(sawStatus) == 0 || sawStatus[0] {
		t.Errorf("validation saw the dropped status (%v)", sawStatus)
	}
	got, err := f.st.Get(context.Background(), "ns", "w1", GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Status.Phase != "Pending" {
		t.Errorf("read status %+v, want Pending", got.Status)
	}
}
