package garbagecollector

import (
	"context"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

func TestReferencesDiffs(t *testing.T) {
	yes, no := true, false
	old := []metav1.OwnerReference{{UID: "a"}, {UID: "b", BlockOwnerDeletion: &yes}, {UID: "c"}}
	cur := []metav1.OwnerReference{{UID: "b", BlockOwnerDeletion: &no}, {UID: "c"}, {UID: "d"}}
	added, removed, changed := referencesDiffs(old, cur)
	if len(added) != 1 || added[0].UID != "d" || len(removed) != 1 || removed[0].UID != "a" || len(changed) != 1 || changed[0][1].UID != "b" {
		t.Fatalf("added %v removed %v changed %v", added, removed, changed)
	}
}

func TestAbsentCacheBounded(t *testing.T) {
	c := newAbsentCache(2)
	for _, uid := range []types.UID{"a", "b", "c"} {
		c.add(objectRef{UID: uid})
	}
	if c.has(objectRef{UID: "a"}) || !c.has(objectRef{UID: "b"}) || !c.has(objectRef{UID: "c"}) {
		t.Fatalf("the oldest entry should go first: %v", c.set)
	}
}

func TestChangeQueueOrderAndClose(t *testing.T) {
	q := newChangeQueue()
	for i := range 3000 {
		q.push(change{identity: objectRef{Name: string(rune('a' + i%26))}, typ: changeType(i % 2)})
	}
	ctx := context.Background()
	for i := range 3000 {
		c, ok := q.pop(ctx)
		if !ok || c.typ != changeType(i%2) || c.identity.Name != string(rune('a'+i%26)) {
			t.Fatalf("pop %d = %+v %v", i, c, ok)
		}
	}
	if q.len() != 0 {
		t.Fatalf("len %d", q.len())
	}
	done := make(chan bool)
	go func() {
		_, ok := q.pop(ctx)
		done <- ok
	}()
	time.Sleep(10 * time.Millisecond)
	q.close()
	if <-done {
		t.Fatal("pop after close returned a change")
	}
}

func TestBlockingDependents(t *testing.T) {
	yes := true
	owner := &node{identity: objectRef{UID: "o"}, dependents: map[*node]struct{}{}}
	blocking := &node{identity: objectRef{UID: "d1"}, owners: []metav1.OwnerReference{{UID: "o", BlockOwnerDeletion: &yes}}}
	free := &node{identity: objectRef{UID: "d2"}, owners: []metav1.OwnerReference{{UID: "o"}}}
	owner.dependents[blocking], owner.dependents[free] = struct{}{}, struct{}{}
	s := owner.snapshot()
	if b := s.blockingDependents(); len(b) != 1 || b[0].identity.UID != "d1" {
		t.Fatalf("blocking dependents %v", b)
	}
}
