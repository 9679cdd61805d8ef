package storage

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kubeforge/kubeforge/runtime/presence"
)

// sizeAdmission defaults a label from the size (Mutate) and refuses size
// 13 and the deletion of a widget labelled keep=true (Validate),
// recording what it was called with.
type sizeAdmission struct{ calls []string }

// attemptMark starts the calls of one write (attempt).
const attemptMark = "|"

func (a *sizeAdmission) attempt() { a.calls = append(a.calls, attemptMark) }

func (a *sizeAdmission) Mutate(_ context.Context, at AdmissionAttributes[*Widget]) (bool, error) {
	a.calls = append(a.calls, fmt.Sprintf("mutate %s dry=%v", at.Operation, at.DryRun))
	if at.Object.Labels == nil {
		at.Object.Labels = map[string]string{}
	}
	at.Object.Labels["size"] = fmt.Sprint(at.Object.Spec.Size)
	return true, nil
}

func (a *sizeAdmission) Validate(_ context.Context, at AdmissionAttributes[*Widget]) error {
	if at.Operation == "DELETE" {
		a.calls = append(a.calls, "validate DELETE "+at.Old.Name)
		if at.Old.Labels["keep"] == "true" {
			return apierrors.NewForbidden(schema.GroupResource{Resource: "widgets"}, at.Old.Name, fmt.Errorf("kept"))
		}
		return nil
	}
	old := "-"
	if at.Old != nil {
		old = at.Old.Labels["size"]
	}
	a.calls = append(a.calls, fmt.Sprintf("validate %s size=%s old=%s", at.Operation, at.Object.Labels["size"], old))
	if at.Object.Spec.Size == 13 {
		return apierrors.NewBadRequest("unlucky")
	}
	return nil
}

// TestInProcessAdmission: the store calls Mutate before validation and
// Validate after it on creates and updates (not status writes), Validate
// on deletes, and a refusal stores nothing.
func TestInProcessAdmission(t *testing.T) {
	f := newFixture(t, true, true)
	a := &sizeAdmission{}
	f.st.SetInProcessAdmission(a)
	ctx := context.Background()

	w, err := f.st.Create(ctx, widget("ns", "w", 2), CreateOptions{})
	if err != nil || w.Labels["size"] != "2" {
		t.Fatalf("create: %v %v", w, err)
	}
	if _, err := f.st.Create(ctx, widget("ns", "x", 13), CreateOptions{}); !apierrors.IsBadRequest(err) {
		t.Errorf("create of size 13: %v", err)
	}
	if _, err := f.st.Get(ctx, "ns", "x", GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("the refused create was stored: %v", err)
	}
	if _, err := f.st.Create(ctx, widget("ns", "y", 3), CreateOptions{DryRun: true}); err != nil {
		t.Errorf("dry-run create: %v", err)
	}
	up := func(size int) error {
		a.attempt()
		_, err := f.st.GuaranteedUpdate(ctx, "ns", "w", "", func(cur *Widget) (*Widget, error) {
			cur.Spec.Size = size
			return cur, nil
		}, UpdateOptions{})
		return err
	}
	if err := up(5); err != nil {
		t.Fatal(err)
	}
	if err := up(13); !apierrors.IsBadRequest(err) {
		t.Errorf("update to 13: %v", err)
	}
	a.attempt()
	if _, err := f.st.GuaranteedUpdate(ctx, "ns", "w", "status", func(cur *Widget) (*Widget, error) {
		cur.Status.Phase = "Ready"
		return cur, nil
	}, UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	a.attempt()
	if _, err := f.st.GuaranteedUpdate(ctx, "ns", "w", "", func(cur *Widget) (*Widget, error) {
		cur.Labels["keep"] = "true"
		return cur, nil
	}, UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	a.attempt()
	if _, _, err := f.st.Delete(ctx, "ns", "w", DeleteOptions{}); !apierrors.IsForbidden(err) {
		t.Errorf("delete of a kept widget: %v", err)
	}
	got, err := f.st.Get(ctx, "ns", "w", GetOptions{})
	if err != nil || got.Spec.Size != 5 || got.Labels["size"] != "5" {
		t.Errorf("after the refused writes: %+v %v", got, err)
	}
	want := []string{
		"mutate CREATE dry=false", "validate CREATE size=2 old=-",
		"mutate CREATE dry=false", "validate CREATE size=13 old=-",
		"mutate CREATE dry=true", "validate CREATE size=3 old=-",
		"mutate UPDATE dry=false", "validate UPDATE size=5 old=2",
		"mutate UPDATE dry=false", "validate UPDATE size=13 old=5",
		// (the status write: no call)
		"mutate UPDATE dry=false", "validate UPDATE size=5 old=5",
		"validate DELETE w",
	}
	// A write may first try the watch cache's copy and retry on etcd's.
	if fmt.Sprint(lastAttempts(a.calls)) != fmt.Sprint(want) {
		t.Errorf("calls:\n%q\nwant:\n%q", a.calls, want)
	}
}

// lastAttempts keeps, of each write marked by attempt, the calls of its
// last attempt: a write that first tried the watch cache's copy, found it
// stale and retried on etcd's, called admission again from the start
// (with other objects: the retry's current state). Attempts of another
// shape than the last (a call twice in one attempt) are all kept, to fail.
func lastAttempts(in []string) []string {
	var out []string
	for i := 0; i < len(in); {
		if in[i] != attemptMark {
			out = append(out, in[i])
			i++
			continue
		}
		end := i + 1
		for end < len(in) && in[end] != attemptMark {
			end++
		}
		calls := in[i+1 : end]
		last := 0
		for j := range calls {
			if j > 0 && callKind(calls[j]) == callKind(calls[0]) {
				last = j
			}
		}
		if len(calls) > 0 && len(calls)%(len(calls)-last) != 0 {
			last = 0
		}
		out = append(out, calls[last:]...)
		i = end
	}
	return out
}

// callKind is a call's first two words ("mutate UPDATE").
func callKind(call string) string {
	f := strings.Fields(call)
	return strings.Join(f[:min(2, len(f))], " ")
}

// BenchmarkCreateInProcessAdmission is BenchmarkCreate with an
// in-process admission that mutates and checks the object: the seam adds
// its two calls and nothing else (no encoding).
func BenchmarkCreateInProcessAdmission(b *testing.B) {
	f := newFixture(b, true, true)
	f.st.SetInProcessAdmission(&benchAdmission{})
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		mustCreate(b, f, widget("ns", fmt.Sprintf("w%d", i), 1))
		i++
	}
}

type benchAdmission struct{}

func (benchAdmission) Mutate(_ context.Context, at AdmissionAttributes[*Widget]) (bool, error) {
	at.Object.Spec.Size++
	return true, nil
}

func (benchAdmission) Validate(_ context.Context, at AdmissionAttributes[*Widget]) error {
	if at.Object.Spec.Size < 0 {
		return apierrors.NewBadRequest("negative")
	}
	return nil
}

// TestInProcessAdmissionPresence: once a mutating webhook was called, the
// object is Go's: the store applies the defaults again and validates with
// every field without omitempty counted as sent (presence.Marshaled), as
// kube-apiserver defaults and checks the object a webhook's JSON patch
// made. Without a webhook the request's own JSON is what both see.
func TestInProcessAdmissionPresence(t *testing.T) {
	for _, withWebhook := range []bool{false, true} {
		s := widgetStrategy(true, true)
		// The watch cache decodes (and defaults) on its own goroutine.
		var mu sync.Mutex
		var defaulted, validated []presence.Node
		s.Default = func(w *Widget, in presence.Node) {
			mu.Lock()
			defer mu.Unlock()
			defaulted = append(defaulted, in)
		}
		validate := s.Validate
		s.Validate = func(w *Widget, in presence.Node) field.ErrorList {
			mu.Lock()
			validated = append(validated, in)
			mu.Unlock()
			return validate(w, in)
		}
		f := newFixtureWith(t, s)
		if withWebhook {
			f.st.SetInProcessAdmission(&sizeAdmission{})
		}
		sent := presence.JSON([]byte(`{"spec":{}}`))
		ctx := context.Background()
		if _, err := f.st.Create(ctx, widget("ns", "w", 2), CreateOptions{Presence: sent}); err != nil {
			t.Fatal(err)
		}
		if _, err := f.st.GuaranteedUpdate(ctx, "ns", "w", "", func(cur *Widget) (*Widget, error) {
			cur.Spec.Size = 3
			return cur, nil
		}, UpdateOptions{Presence: &sent}); err != nil {
			t.Fatal(err)
		}
		// Reads default too, with the stored JSON: count the calls that
		// took the object as Go's.
		mu.Lock()
		gotDefaulted, gotValidated := slices.Clone(defaulted), slices.Clone(validated)
		mu.Unlock()
		asGo := 0
		for _, in := range gotDefaulted {
			if in.Has("anything") {
				asGo++
			}
		}
		wantNode, wantGo := sent, 0
		if withWebhook {
			// After each mutation, and once more for the status the
			// create dropped (its default, with the same JSON).
			wantNode, wantGo = presence.Marshaled, 3
		}
		if asGo != wantGo {
			t.Errorf("webhook %v: defaults applied as Go's %d times, want %d", withWebhook, asGo, wantGo)
		}
		if len(gotValidated) != 2 {
			t.Fatalf("webhook %v: validated %d times, want 2", withWebhook, len(gotValidated))
		}
		for i, in := range gotValidated {
			if in.Has("anything") != wantNode.Has("anything") || in.Has("spec") != wantNode.Has("spec") {
				t.Errorf("webhook %v: validation %d saw the wrong JSON", withWebhook, i)
			}
		}
	}
}
