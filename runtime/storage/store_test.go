package storage

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

var ctx = context.Background()

func TestCreateAndGet(t *testing.T) {
	f := newFixture(t, true, true)
	in := widget("ns1", "g1", 3)
	in.UID = "client-uid"
	in.Generation = 7
	in.ResourceVersion = "99"
	in.Status.Phase = "Ready"
	out := mustCreate(t, f, in)
	if in.UID != "client-uid" || in.ResourceVersion != "99" {
		t.Fatalf("Create modified its argument: %+v", in.ObjectMeta)
	}
	if out.UID == "" || out.UID == "client-uid" {
		t.Fatalf("uid = %q", out.UID)
	}
	if out.Generation != 1 {
		t.Fatalf("generation = %d", out.Generation)
	}
	if out.Status.Phase != "" {
		t.Fatalf("status not dropped: %+v", out.Status)
	}
	ts := out.CreationTimestamp.Time
	if ts.IsZero() || ts.Location().String() != "UTC" || ts.Nanosecond() != 0 {
		t.Fatalf("creationTimestamp = %v", ts)
	}
	raw := f.raw(t)
	key := f.prefix + "/test.kubeforge.dev/widgets/ns1/g1"
	v, ok := raw[key]
	if !ok {
		t.Fatalf("key %s not stored; have %v", key, raw)
	}
	if rev := strings.SplitN(v, ":", 2)[0]; rev != out.ResourceVersion {
		t.Fatalf("resourceVersion %s != mod revision %s", out.ResourceVersion, rev)
	}
	if !strings.Contains(v, `"apiVersion":"test.kubeforge.dev/v1"`) || !strings.Contains(v, `"kind":"Widget"`) || strings.Contains(v, "resourceVersion") {
		t.Fatalf("stored value %s", v)
	}

	got, err := f.st.Get(ctx, "ns1", "g1", GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got.ResourceVersion != out.ResourceVersion || got.UID != out.UID || got.Spec.Size != 3 || got.Kind != "Widget" {
		t.Fatalf("get = %+v", got)
	}
	// "0" accepts any state: the watch cache may not have the object yet.
	waitFor(t, func() bool {
		_, err := f.st.Get(ctx, "ns1", "g1", GetOptions{ResourceVersion: "0"})
		return err == nil
	})
	if _, err := f.st.Get(ctx, "ns1", "g1", GetOptions{ResourceVersion: out.ResourceVersion}); err != nil {
		t.Fatal(err)
	}
	_, err = f.st.Get(ctx, "ns1", "g1", GetOptions{ResourceVersion: "abc"})
	wantStatus(t, err, 400, metav1.StatusReasonBadRequest, "")
	_, err = f.st.Get(ctx, "ns1", "g1", GetOptions{ResourceVersion: strconv.FormatInt(currentRev(t)+100, 10)})
	wantStatus(t, err, 504, metav1.StatusReasonTimeout, "~Too large resource version")

	_, err = f.st.Get(ctx, "ns1", "nope", GetOptions{})
	wantStatus(t, err, 404, metav1.StatusReasonNotFound, `widgets.test.kubeforge.dev "nope" not found`)
	_, err = f.st.Get(ctx, "ns2", "g1", GetOptions{})
	wantStatus(t, err, 404, metav1.StatusReasonNotFound, `widgets.test.kubeforge.dev "g1" not found`)

	_, err = f.st.Create(ctx, widget("ns1", "g1", 1), CreateOptions{})
	wantStatus(t, err, 409, metav1.StatusReasonAlreadyExists, `widgets.test.kubeforge.dev "g1" already exists`)
}

func TestCreateClusterScoped(t *testing.T) {
	f := newFixture(t, false, false)
	out := mustCreate(t, f, widget("ignored", "c1", 1))
	if out.Namespace != "" {
		t.Fatalf("namespace = %q", out.Namespace)
	}
	if _, ok := f.raw(t)[f.prefix+"/test.kubeforge.dev/widgets/c1"]; !ok {
		t.Fatalf("cluster-scoped key missing: %v", f.raw(t))
	}
	if _, err := f.st.Get(ctx, "", "c1", GetOptions{}); err != nil {
		t.Fatal(err)
	}
	// Without a status subresource, status is kept on create.
	w := widget("", "c2", 1)
	w.Status.Phase = "x"
	if out := mustCreate(t, f, w); out.Status.Phase != "x" {
		t.Fatalf("status dropped without subresource")
	}
}

func TestCreateGenerateName(t *testing.T) {
	f := newFixture(t, true, false)
	base := strings.Repeat("a", 70)
	w := &Widget{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", GenerateName: base}}
	seen := map[string]bool{}
	for i := 0; i < 20; i++ {
		out := mustCreate(t, f, w)
		if len(out.Name) != 63 || !strings.HasPrefix(out.Name, base[:58]) {
			t.Fatalf("generated name %q", out.Name)
		}
		for _, c := range out.Name[58:] {
			if !strings.ContainsRune("bcdfghjklmnpqrstvwxz2456789", c) {
				t.Fatalf("generated suffix %q has %q", out.Name[58:], c)
			}
		}
		if seen[out.Name] {
			t.Fatalf("duplicate %s", out.Name)
		}
		seen[out.Name] = true
	}
	_, err := f.st.Create(ctx, &Widget{ObjectMeta: metav1.ObjectMeta{Namespace: "ns"}}, CreateOptions{})
	se := wantStatus(t, err, 422, metav1.StatusReasonInvalid, "")
	if c := se.ErrStatus.Details.Causes; len(c) != 1 || c[0].Field != "metadata.name" {
		t.Fatalf("causes = %+v", c)
	}
}

func TestCreateInvalid(t *testing.T) {
	f := newFixture(t, true, false)
	_, err := f.st.Create(ctx, widget("ns", "bad", -1), CreateOptions{})
	se := wantStatus(t, err, 422, metav1.StatusReasonInvalid, `Widget.test.kubeforge.dev "bad" is invalid: spec.size: Invalid value: -1: must be greater than or equal to 0`)
	if c := se.ErrStatus.Details.Causes; len(c) != 1 || c[0].Field != "spec.size" || c[0].Type != metav1.CauseTypeFieldValueInvalid {
		t.Fatalf("causes = %+v", c)
	}
	_, err = f.st.Create(ctx, widget("", "nons", 1), CreateOptions{})
	wantStatus(t, err, 422, metav1.StatusReasonInvalid, "~metadata.namespace: Required value")
	if raw := f.raw(t); len(raw) != 0 {
		t.Fatalf("stored %v", raw)
	}
}

func TestKeySafety(t *testing.T) {
	f := newFixture(t, true, false)
	good := mustCreate(t, f, widget("ns", "ok", 1))
	before := f.raw(t)
	bad := []string{"a/b", "..", ".", "../ns/ok", "UPPER", strings.Repeat("a", 254), "a%2f", "a b", "-a"}
	for _, name := range bad {
		_, err := f.st.Create(ctx, widget("ns", name, 1), CreateOptions{})
		wantStatus(t, err, 422, metav1.StatusReasonInvalid, "~metadata.name: Invalid value")
		for _, ns := range []string{"ns", ""} {
			_, err = f.st.Get(ctx, ns, name, GetOptions{})
			assert4xx(t, err)
			_, _, err = f.st.Delete(ctx, ns, name, DeleteOptions{})
			assert4xx(t, err)
			w := widget(ns, name, 2)
			w.ResourceVersion = good.ResourceVersion
			_, err = put(ctx, f.st, w, UpdateOptions{})
			assert4xx(t, err)
			_, err = f.st.GuaranteedUpdate(ctx, ns, name, "", func(c *Widget) (*Widget, error) { return c, nil }, UpdateOptions{})
			assert4xx(t, err)
		}
		// As a namespace.
		_, err = f.st.Create(ctx, widget(name, "x", 1), CreateOptions{})
		wantStatus(t, err, 422, metav1.StatusReasonInvalid, "~metadata.namespace: Invalid value")
		_, err = f.st.List(ctx, name, ListOptions{})
		assert4xx(t, err)
		_, err = f.st.Watch(ctx, name, WatchOptions{})
		assert4xx(t, err)
		_, err = f.st.Get(ctx, name, "ok", GetOptions{})
		assert4xx(t, err)
	}
	if after := f.raw(t); len(after) != len(before) {
		t.Fatalf("store changed: %v", after)
	}
	// A 253-character name is fine.
	mustCreate(t, f, widget("ns", strings.Repeat("a", 253), 1))
}

func assert4xx(t *testing.T, err error) {
	t.Helper()
	var se interface{ Status() metav1.Status }
	if !errors.As(err, &se) {
		t.Fatalf("want a 4xx StatusError, got %v", err)
	}
	if c := se.Status().Code; c < 400 || c >= 500 {
		t.Fatalf("code %d (%s); want 4xx", c, se.Status().Message)
	}
}

func TestDryRun(t *testing.T) {
	f := newFixture(t, true, true)
	out, err := f.st.Create(ctx, widget("ns", "d1", 1), CreateOptions{DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if out.UID == "" || out.Generation != 1 || out.ResourceVersion != "" {
		t.Fatalf("dry-run create = %+v", out.ObjectMeta)
	}
	if raw := f.raw(t); len(raw) != 0 {
		t.Fatalf("dry-run create stored %v", raw)
	}
	_, err = f.st.Create(ctx, widget("ns", "d1", -1), CreateOptions{DryRun: true})
	wantStatus(t, err, 422, metav1.StatusReasonInvalid, "")

	w := mustCreate(t, f, widget("ns", "d1", 1))
	before := f.raw(t)
	_, err = f.st.Create(ctx, widget("ns", "d1", 1), CreateOptions{DryRun: true})
	wantStatus(t, err, 409, metav1.StatusReasonAlreadyExists, "")

	u := w.DeepCopyObject().(*Widget)
	u.Spec.Size = 5
	res, err := put(ctx, f.st, u, UpdateOptions{DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Generation != 2 || res.Spec.Size != 5 {
		t.Fatalf("dry-run update = %+v", res)
	}
	if _, err := f.st.GuaranteedUpdate(ctx, "ns", "d1", "", func(c *Widget) (*Widget, error) { c.Spec.Size = 9; return c, nil }, UpdateOptions{DryRun: true}); err != nil {
		t.Fatal(err)
	}
	del, deleted, err := f.st.Delete(ctx, "ns", "d1", DeleteOptions{DryRun: true})
	if err != nil || !deleted || del.Name != "d1" {
		t.Fatalf("dry-run delete = %v %v %v", del, deleted, err)
	}
	if after := f.raw(t); !equalMaps(before, after) {
		t.Fatalf("dry run changed etcd:\n%v\n%v", before, after)
	}
	// Dry-run delete of an object with finalizers changes nothing either.
	u2 := w.DeepCopyObject().(*Widget)
	u2.Finalizers = []string{"x/y"}
	w2, err := put(ctx, f.st, u2, UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	before = f.raw(t)
	d, deleted, err := f.st.Delete(ctx, "ns", "d1", DeleteOptions{DryRun: true})
	if err != nil || deleted || d.DeletionTimestamp == nil {
		t.Fatalf("dry-run graceful delete = %v %v %v", d, deleted, err)
	}
	if after := f.raw(t); !equalMaps(before, after) {
		t.Fatalf("dry-run graceful delete changed etcd")
	}
	_ = w2
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func TestUpdate(t *testing.T) {
	f := newFixture(t, true, true)
	w := mustCreate(t, f, widget("ns", "g1", 1))
	// Give it a status through the subresource.
	s := w.DeepCopyObject().(*Widget)
	s.Status.Phase = "Running"
	s.Spec.Size = 100 // ignored on a status write
	s.Labels = map[string]string{"ignored": "yes"}
	st1, err := put(ctx, f.st, s, UpdateOptions{Subresource: "status"})
	if err != nil {
		t.Fatal(err)
	}
	if st1.Status.Phase != "Running" || st1.Spec.Size != 1 || st1.Labels != nil || st1.Generation != 1 {
		t.Fatalf("status write = %+v", st1)
	}
	if st1.ResourceVersion == w.ResourceVersion {
		t.Fatalf("status write kept RV")
	}

	// RV required.
	u := st1.DeepCopyObject().(*Widget)
	u.ResourceVersion = ""
	_, err = put(ctx, f.st, u, UpdateOptions{})
	wantStatus(t, err, 422, metav1.StatusReasonInvalid, `widgets.test.kubeforge.dev "g1" is invalid: metadata.resourceVersion: Invalid value: 0: must be specified for an update`)
	// Stale RV.
	u.ResourceVersion = w.ResourceVersion
	_, err = put(ctx, f.st, u, UpdateOptions{})
	wantStatus(t, err, 409, metav1.StatusReasonConflict, `Operation cannot be fulfilled on widgets.test.kubeforge.dev "g1": the object has been modified; please apply your changes to the latest version and try again`)

	// Main write: spec change bumps generation, status kept, system fields carried.
	u = st1.DeepCopyObject().(*Widget)
	u.Spec.Size = 2
	u.Status.Phase = "Hacked"
	u.Generation = 0
	u.CreationTimestamp = metav1.Now()
	u.UID = ""
	u.Labels = map[string]string{"a": "b"}
	u2, err := put(ctx, f.st, u, UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if u2.Generation != 2 || u2.Status.Phase != "Running" || u2.Spec.Size != 2 || u2.UID != w.UID || !u2.CreationTimestamp.Equal(&w.CreationTimestamp) || u2.Labels["a"] != "b" {
		t.Fatalf("update = %+v", u2)
	}
	// Metadata-only change: no generation bump.
	u = u2.DeepCopyObject().(*Widget)
	u.Annotations = map[string]string{"x": "y"}
	u3, err := put(ctx, f.st, u, UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if u3.Generation != 2 {
		t.Fatalf("metadata change bumped generation to %d", u3.Generation)
	}
	// No-op update: no write, same RV.
	before := f.raw(t)
	u4, err := put(ctx, f.st, u3.DeepCopyObject().(*Widget), UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if u4.ResourceVersion != u3.ResourceVersion || !equalMaps(before, f.raw(t)) {
		t.Fatalf("no-op update wrote: %s -> %s", u3.ResourceVersion, u4.ResourceVersion)
	}
	// Immutable uid.
	u = u3.DeepCopyObject().(*Widget)
	u.UID = types.UID("other")
	_, err = put(ctx, f.st, u, UpdateOptions{})
	wantStatus(t, err, 422, metav1.StatusReasonInvalid, `Widget.test.kubeforge.dev "g1" is invalid: metadata.uid: Invalid value: "other": field is immutable`)
	// Validation.
	u = u3.DeepCopyObject().(*Widget)
	u.Spec.Size = -5
	_, err = put(ctx, f.st, u, UpdateOptions{})
	wantStatus(t, err, 422, metav1.StatusReasonInvalid, "~spec.size")
	// Missing object.
	u = u3.DeepCopyObject().(*Widget)
	u.Name = "missing"
	_, err = put(ctx, f.st, u, UpdateOptions{})
	wantStatus(t, err, 404, metav1.StatusReasonNotFound, `widgets.test.kubeforge.dev "missing" not found`)
	// Status subresource on a kind without one.
	f2 := newFixture(t, true, false)
	w2 := mustCreate(t, f2, widget("ns", "n", 1))
	_, err = put(ctx, f2.st, w2, UpdateOptions{Subresource: "status"})
	wantStatus(t, err, 404, metav1.StatusReasonNotFound, "")
	// Without a status subresource, a status change is a spec change.
	w2.Status.Phase = "p"
	w3, err := put(ctx, f2.st, w2, UpdateOptions{})
	if err != nil || w3.Generation != 2 || w3.Status.Phase != "p" {
		t.Fatalf("update without subresource = %+v, %v", w3, err)
	}
}

func TestGuaranteedUpdate(t *testing.T) {
	f := newFixture(t, true, true)
	w := mustCreate(t, f, widget("ns", "p1", 0))
	// Concurrent patches all land: conflicts are retried.
	const n = 10
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := f.st.GuaranteedUpdate(ctx, "ns", "p1", "", func(c *Widget) (*Widget, error) {
				c.Spec.Size++
				return c, nil
			}, UpdateOptions{})
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	got, err := f.st.Get(ctx, "ns", "p1", GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Spec.Size != n || got.Generation != 1+n {
		t.Fatalf("after %d patches: size %d generation %d", n, got.Spec.Size, got.Generation)
	}
	// Client precondition through the RV in the patch.
	_, err = f.st.GuaranteedUpdate(ctx, "ns", "p1", "", func(c *Widget) (*Widget, error) {
		c.ResourceVersion = w.ResourceVersion
		c.Spec.Size = 1
		return c, nil
	}, UpdateOptions{})
	wantStatus(t, err, 409, metav1.StatusReasonConflict, "~the object has been modified")
	// tryUpdate errors are returned as is.
	sentinel := errors.New("patch failed")
	if _, err := f.st.GuaranteedUpdate(ctx, "ns", "p1", "", func(c *Widget) (*Widget, error) { return nil, sentinel }, UpdateOptions{}); err != sentinel {
		t.Fatalf("err = %v", err)
	}
	// Status patch takes only status and never bumps generation.
	out, err := f.st.GuaranteedUpdate(ctx, "ns", "p1", "status", func(c *Widget) (*Widget, error) {
		c.Status.Phase = "Done"
		c.Spec.Size = 999
		return c, nil
	}, UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if out.Status.Phase != "Done" || out.Spec.Size != n || out.Generation != got.Generation {
		t.Fatalf("status patch = %+v", out)
	}
	// Main patch keeps status.
	out, err = f.st.GuaranteedUpdate(ctx, "ns", "p1", "", func(c *Widget) (*Widget, error) {
		c.Status.Phase = "Nope"
		return c, nil
	}, UpdateOptions{})
	if err != nil || out.Status.Phase != "Done" {
		t.Fatalf("main patch = %+v, %v", out, err)
	}
	// Renaming through a patch is rejected.
	_, err = f.st.GuaranteedUpdate(ctx, "ns", "p1", "", func(c *Widget) (*Widget, error) { c.Name = "other"; return c, nil }, UpdateOptions{})
	wantStatus(t, err, 422, metav1.StatusReasonInvalid, "~metadata.name: Invalid value: \"other\": field is immutable")
	_, err = f.st.GuaranteedUpdate(ctx, "ns", "missing", "", func(c *Widget) (*Widget, error) { return c, nil }, UpdateOptions{})
	wantStatus(t, err, 404, metav1.StatusReasonNotFound, "")
}

func TestDeleteAndFinalizers(t *testing.T) {
	f := newFixture(t, true, true)
	w := mustCreate(t, f, widget("ns", "f1", 1))
	w.Finalizers = []string{"example.dev/a", "example.dev/b"}
	w, err := put(ctx, f.st, w, UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	d, deleted, err := f.st.Delete(ctx, "ns", "f1", DeleteOptions{})
	if err != nil || deleted {
		t.Fatalf("delete with finalizers = %v %v", deleted, err)
	}
	if d.DeletionTimestamp == nil || d.DeletionGracePeriodSeconds == nil || *d.DeletionGracePeriodSeconds != 0 || d.Generation != w.Generation+1 {
		t.Fatalf("marked object = %+v", d.ObjectMeta)
	}
	got, err := f.st.Get(ctx, "ns", "f1", GetOptions{})
	if err != nil || got.DeletionTimestamp == nil || got.ResourceVersion != d.ResourceVersion {
		t.Fatalf("stored marked object = %+v %v", got, err)
	}
	// A second delete changes nothing; generation does not move again.
	d2, deleted, err := f.st.Delete(ctx, "ns", "f1", DeleteOptions{})
	if err != nil || deleted || d2.ResourceVersion != d.ResourceVersion || d2.Generation != d.Generation {
		t.Fatalf("second delete = %+v %v %v", d2.ObjectMeta, deleted, err)
	}
	// An update cannot clear deletionTimestamp nor add finalizers.
	u := d.DeepCopyObject().(*Widget)
	u.DeletionTimestamp = nil
	u.Finalizers = []string{"example.dev/a"}
	u1, err := put(ctx, f.st, u, UpdateOptions{})
	if err != nil || u1.DeletionTimestamp == nil {
		t.Fatalf("update = %+v %v", u1, err)
	}
	u = u1.DeepCopyObject().(*Widget)
	u.Finalizers = append(u.Finalizers, "example.dev/new")
	_, err = put(ctx, f.st, u, UpdateOptions{})
	wantStatus(t, err, 422, metav1.StatusReasonInvalid, "~no new finalizers can be added if the object is being deleted")
	// Removing the last finalizer deletes.
	u = u1.DeepCopyObject().(*Widget)
	u.Finalizers = nil
	last, err := put(ctx, f.st, u, UpdateOptions{})
	if err != nil || last.Name != "f1" {
		t.Fatalf("final update = %v %v", last, err)
	}
	_, err = f.st.Get(ctx, "ns", "f1", GetOptions{})
	wantStatus(t, err, 404, metav1.StatusReasonNotFound, "")
	if raw := f.raw(t); len(raw) != 0 {
		t.Fatalf("left %v", raw)
	}

	// Immediate delete returns the last state.
	w = mustCreate(t, f, widget("ns", "f2", 4))
	d, deleted, err = f.st.Delete(ctx, "ns", "f2", DeleteOptions{})
	if err != nil || !deleted || d.Spec.Size != 4 || d.UID != w.UID {
		t.Fatalf("delete = %+v %v %v", d, deleted, err)
	}
	_, _, err = f.st.Delete(ctx, "ns", "f2", DeleteOptions{})
	wantStatus(t, err, 404, metav1.StatusReasonNotFound, `widgets.test.kubeforge.dev "f2" not found`)
}

func TestDeletePreconditions(t *testing.T) {
	f := newFixture(t, true, false)
	w := mustCreate(t, f, widget("ns", "p", 1))
	uid := types.UID("wrong")
	_, _, err := f.st.Delete(ctx, "ns", "p", DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}})
	// kube-apiserver's rest.BeforeDelete messages, naming the kind.
	wantStatus(t, err, 409, metav1.StatusReasonConflict, `Operation cannot be fulfilled on Widget.test.kubeforge.dev "p": the UID in the precondition (wrong) does not match the UID in record (`+string(w.UID)+`). The object might have been deleted and then recreated`)
	rv := "1"
	_, _, err = f.st.Delete(ctx, "ns", "p", DeleteOptions{Preconditions: &metav1.Preconditions{ResourceVersion: &rv}})
	wantStatus(t, err, 409, metav1.StatusReasonConflict, `Operation cannot be fulfilled on Widget.test.kubeforge.dev "p": the ResourceVersion in the precondition (1) does not match the ResourceVersion in record (`+w.ResourceVersion+`). The object might have been modified`)
	if len(f.raw(t)) != 1 {
		t.Fatal("object deleted despite failed precondition")
	}
	_, deleted, err := f.st.Delete(ctx, "ns", "p", DeleteOptions{Preconditions: &metav1.Preconditions{UID: &w.UID, ResourceVersion: &w.ResourceVersion}})
	if err != nil || !deleted {
		t.Fatal(deleted, err)
	}
}

func TestDeleteCollection(t *testing.T) {
	f := newFixture(t, true, false)
	for i := 0; i < 5; i++ {
		w := widget("ns", "w"+strconv.Itoa(i), i)
		w.Labels = map[string]string{"del": strconv.FormatBool(i%2 == 0)}
		if i == 4 {
			w.Finalizers = []string{"keep/me"}
		}
		mustCreate(t, f, w)
	}
	mustCreate(t, f, widget("other", "w0", 1))
	sel := mustSelector(t, "del=true")
	list, err := f.st.DeleteCollection(ctx, "ns", ListOptions{LabelSelector: sel}, DeleteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Items) != 3 {
		t.Fatalf("deleted %d", len(list.Items))
	}
	// The list as it was read, as kube-apiserver returns it: w4, which its
	// finalizer keeps, without the deletionTimestamp the delete gave it.
	for _, it := range list.Items {
		if it.DeletionTimestamp != nil {
			t.Fatalf("%s in the answer has a deletionTimestamp", it.Name)
		}
	}
	rest, err := f.st.List(ctx, "", ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, it := range rest.Items {
		names = append(names, it.Namespace+"/"+it.Name)
		if it.Name == "w4" && it.DeletionTimestamp == nil {
			t.Fatal("w4 not marked for deletion")
		}
	}
	if strings.Join(names, ",") != "ns/w1,ns/w3,ns/w4,other/w0" {
		t.Fatalf("left %v", names)
	}
}

// TestCreateOwned: an owned object is written as a copied one would be,
// and Create sets the server's fields on it rather than on a copy.
func TestCreateOwned(t *testing.T) {
	f := newFixture(t, true, true)
	in := widget("ns1", "owned", 3)
	in.UID = "client-uid"
	in.Status.Phase = "Ready"
	out, err := f.st.Create(ctx, in, CreateOptions{Owned: true})
	if err != nil {
		t.Fatal(err)
	}
	if out.UID == "" || out.UID == "client-uid" || out.Generation != 1 || out.Status.Phase != "" {
		t.Fatalf("created %+v", out)
	}
	if in.UID != out.UID {
		t.Errorf("the owned object's uid is %q, want the server's %q", in.UID, out.UID)
	}
	copied := mustCreate(t, f, widget("ns1", "copied", 3))
	got, err := f.st.Get(ctx, "ns1", "owned", GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Spec != copied.Spec || got.Status != copied.Status || got.Generation != copied.Generation || !equalMaps(got.Labels, copied.Labels) {
		t.Errorf("stored %+v, want what a copied create stores: %+v", got, copied)
	}
}
