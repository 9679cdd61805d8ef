package storage

import (
	"strconv"

	"k8s.io/apimachinery/pkg/watch"
)

// A delete through a Store has the object it deletes in hand, decoded from
// the stored value it deletes (the cache's copy or etcd's, by the same
// access.decode): exactly what the watch cache's DELETED event of that
// value carries, but for its resourceVersion (cachedEvent.goneObject: old
// as stored, at the event's revision), which the cache would otherwise
// decode again for its watchers (the garbage collector watches every
// kind). So the Store hands the cache a private copy of it (a DeepCopy,
// several times cheaper than a decode) just before its compare-and-delete,
// and the DELETED event of that key whose previous value is the one at
// that mod revision takes it, with the event's resourceVersion, instead of
// decoding. A key's value at a mod revision never changes, so whoever
// deleted it (this replica or another, if the compare-and-delete lost) the
// copy is that value's object. Handed before the write, it is there when
// the event comes (the etcd watch often delivers the event before the
// delete's response); any other event of the key makes it useless, and it
// is dropped then.

// maxHandedGone bounds the hand-offs waiting for their event.
const maxHandedGone = 1024

// handedGone is the object of the value stored at oldRev, which a delete
// of this Store is about to delete.
type handedGone[T any] struct {
	oldRev int64
	obj    T
}

// watched reports whether the cache has watchers, which a deleted
// object is handed to (none: nothing decodes it, nothing to hand).
func (c *watchCache[T, L]) watched() bool {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.ready && !c.closed && len(c.watchers) > 0
}

// handGone gives the DELETED event of key's value stored at oldRev, if it
// comes, obj as its object; obj is the cache's from now on. Nothing is
// kept when the cache has passed that value (the delete will lose its
// compare-and-delete, or its event was applied already).
func (c *watchCache[T, L]) handGone(key string, oldRev int64, obj T) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.ready || c.closed || c.passed(key, oldRev) {
		return
	}
	if len(c.gone) >= maxHandedGone {
		// Drop those the cache has passed (deletes that lost, of keys
		// that have not changed since).
		for k, h := range c.gone {
			if c.passed(k, h.oldRev) {
				delete(c.gone, k)
			}
		}
		if len(c.gone) >= maxHandedGone {
			return
		}
	}
	if c.gone == nil {
		c.gone = map[string]handedGone[T]{}
	}
	c.gone[key] = handedGone[T]{oldRev: oldRev, obj: obj}
}

// passed reports whether the cache is past key's value stored at rev: it
// has reached rev (a delete right after the write may come first) and
// holds another value of key, or none. c.mu is held.
func (c *watchCache[T, L]) passed(key string, rev int64) bool {
	if c.rev < rev {
		return false
	}
	e, ok := c.tree.Get(&cacheEntry[T]{key: key})
	return !ok || e.rev != rev
}

// takeGone gives ev, an event of key, the object handed for it, if any:
// a DELETED event of the value handed. Any later event of key uses the
// hand-off up (not the write of the value itself, which a cache behind
// may apply after the hand-off). c.mu is held.
func (c *watchCache[T, L]) takeGone(key []byte, ev *cachedEvent[T]) {
	h, ok := c.gone[string(key)]
	if !ok || ev.rev <= h.oldRev {
		return
	}
	delete(c.gone, string(key))
	if ev.typ != watch.Deleted || ev.old == nil || ev.old.rev != h.oldRev {
		return
	}
	h.obj.SetResourceVersion(strconv.FormatInt(ev.rev, 10))
	ev.goneOnce.Do(func() { ev.gone = h.obj })
}
