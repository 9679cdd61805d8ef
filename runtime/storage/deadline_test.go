package storage

import (
	"context"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestWriteStopsAtDeadline: a write whose request is past its deadline
// (its client has had its 504) stops with a Timeout before it validates
// (an invalid object gets the 504, not its 422): the work is not done.
func TestWriteStopsAtDeadline(t *testing.T) {
	f := newFixture(t, true, true)
	w := mustCreate(t, f, widget("ns", "d0", 1))
	expired, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	_, err := f.st.Create(expired, widget("ns", "d1", -1), CreateOptions{DryRun: true})
	wantStatus(t, err, 504, metav1.StatusReasonTimeout, "")
	u := w.DeepCopyObject().(*Widget)
	u.Spec.Size = -1
	_, err = put(expired, f.st, u, UpdateOptions{DryRun: true})
	wantStatus(t, err, 504, metav1.StatusReasonTimeout, "")
}
