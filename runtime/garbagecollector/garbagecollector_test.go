package garbagecollector_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	corestore "github.com/kubeforge/kubeforge/generated/core/v1"
	"github.com/kubeforge/kubeforge/internal/etcdtest"
	"github.com/kubeforge/kubeforge/runtime/etcd"
	"github.com/kubeforge/kubeforge/runtime/garbagecollector"
	"github.com/kubeforge/kubeforge/runtime/storage"
)

var testEtcd *etcd.Embedded

func TestMain(m *testing.M) {
	os.Exit(etcdtest.Run(m, func(e *etcd.Embedded) { testEtcd = e }, etcd.WithWatchProgressNotifyInterval(time.Second)))
}

var prefixSeq atomic.Int64

// lagging is a store whose watch hands every event (bookmarks included,
// in order) to the collector delay after it arrives: the watch of one
// kind running behind another's, as under load.
type lagging struct {
	storage.Objects
	delay time.Duration
}

func (l lagging) WatchObjects(ctx context.Context, rv string) (<-chan storage.ObjectEvent, error) {
	in, err := l.Objects.WatchObjects(ctx, rv)
	if err != nil {
		return nil, err
	}
	type timed struct {
		ev storage.ObjectEvent
		at time.Time
	}
	mid := make(chan timed, 1024)
	go func() {
		defer close(mid)
		for ev := range in {
			mid <- timed{ev, time.Now().Add(l.delay)}
		}
	}()
	out := make(chan storage.ObjectEvent)
	go func() {
		defer close(out)
		for t := range mid {
			time.Sleep(time.Until(t.at))
			select {
			case out <- t.ev:
			case <-ctx.Done():
				for range mid {
				}
				return
			}
		}
	}()
	return out, nil
}

// TestDependentsSeenLate: a dependent created just before its owner's
// deletion, whose kind's watch reaches the graph after the owner's
// (ConfigMaps lag 0.7 s behind Secrets here), is still the owner's: an
// orphan deletion leaves it without the reference instead of collecting
// it as the dependent of an absent owner, and a foreground deletion
// waits for it. Both readers: the watch cache's and etcd's.
func TestDependentsSeenLate(t *testing.T) {
	for _, cached := range []bool{true, false} {
		t.Run(fmt.Sprintf("watchCache=%v", cached), func(t *testing.T) {
			testDependentsSeenLate(t, cached)
		})
	}
}

func testDependentsSeenLate(t *testing.T, cached bool) {
	const delay = 700 * time.Millisecond
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	b := storage.NewBackend(testEtcd.Client(), fmt.Sprintf("/gc%d", prefixSeq.Add(1)), storage.BackendOptions{
		BookmarkInterval: time.Minute, WatchCache: cached,
	})
	t.Cleanup(b.Close)
	secrets := corestore.NewSecretStore(b)
	cms := corestore.NewConfigMapStore(b)
	gc := garbagecollector.New([]storage.Collection{secrets, lagging{cms, delay}}, garbagecollector.Options{
		Workers: 2, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		gc.Run(runCtx)
	}()
	defer func() {
		stop()
		<-done
	}()
	select {
	case <-gc.Synced():
	case <-ctx.Done():
		t.Fatal("the graph never synced")
	}

	const ns = "gc"
	yes := true
	ownedPair := func(name string, finalizers ...string) (*corev1.Secret, *corev1.ConfigMap) {
		t.Helper()
		o, err := secrets.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}, storage.CreateOptions{})
		if err != nil {
			t.Fatalf("create owner %s: %v", name, err)
		}
		d, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{
			Namespace: ns, Name: name, Finalizers: finalizers,
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "Secret", Name: name, UID: o.UID, BlockOwnerDeletion: &yes}},
		}}, storage.CreateOptions{})
		if err != nil {
			t.Fatalf("create dependent %s: %v", name, err)
		}
		return o, d
	}
	ownerGone := func(name string) {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for {
			_, err := secrets.Get(ctx, ns, name, storage.GetOptions{})
			if apierrors.IsNotFound(err) {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("owner %s still there: %v", name, err)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	policy := func(p metav1.DeletionPropagation) storage.DeleteOptions {
		return storage.DeleteOptions{PropagationPolicy: &p}
	}

	// Orphan: the reference goes before the owner does, and the dependent
	// stays once the graph has seen both go.
	o, _ := ownedPair("orphan")
	if _, deleted, err := secrets.Delete(ctx, ns, o.Name, policy(metav1.DeletePropagationOrphan)); err != nil || deleted {
		t.Fatalf("orphan delete = %v %v, want marked", deleted, err)
	}
	ownerGone(o.Name)
	for range 2 {
		d, err := cms.Get(ctx, ns, o.Name, storage.GetOptions{})
		if err != nil {
			t.Fatalf("the orphan: %v", err)
		}
		if len(d.OwnerReferences) != 0 || d.DeletionTimestamp != nil {
			t.Fatalf("the orphan: references %v, deletionTimestamp %v", d.OwnerReferences, d.DeletionTimestamp)
		}
		time.Sleep(2 * delay)
	}

	// Foreground: the owner waits for its blocking dependent, which its
	// own finalizer holds.
	o, _ = ownedPair("fg", "example.dev/hold")
	if _, deleted, err := secrets.Delete(ctx, ns, o.Name, policy(metav1.DeletePropagationForeground)); err != nil || deleted {
		t.Fatalf("foreground delete = %v %v, want marked", deleted, err)
	}
	time.Sleep(3 * delay)
	if _, err := secrets.Get(ctx, ns, o.Name, storage.GetOptions{}); err != nil {
		t.Fatalf("the owner while its blocking dependent remains: %v", err)
	}
	d, err := cms.Get(ctx, ns, o.Name, storage.GetOptions{})
	if err != nil || d.DeletionTimestamp == nil {
		t.Fatalf("the blocking dependent is not being deleted: %v", err)
	}
	if err := cms.UpdateObjectMeta(ctx, ns, d.Name, d.UID, func(m metav1.Object) bool { m.SetFinalizers(nil); return true }); err != nil {
		t.Fatalf("release the dependent: %v", err)
	}
	ownerGone(o.Name)
}
