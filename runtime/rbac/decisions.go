package rbac

import (
	"hash/maphash"
	"slices"
	"sync"

	"github.com/kubeforge/kubeforge/runtime/auth"
)

// Evaluating a request walks every cluster role binding and the rules of
// each role bound to the user (the bootstrap policy alone has dozens):
// a request of a user bound to edit matched its verb against hundreds of
// rules and formatted the reason anew each time. The answer depends only
// on the index, the user's name and groups and the request's attributes
// (not its object name unless a rule limited to resource names took
// part), so each index remembers it. An RBAC change builds a new index
// with an empty cache: no answer outlives the objects it was read from.
const maxDecisions = 4096

// decisionKey is what a remembered answer is keyed by; user is a hash of
// the user's name and groups, which the entry holds to be compared.
type decisionKey struct {
	user                                 uint64
	verb, group, resource, sub, ns, path string
	resourceRequest                      bool
}

type decisionEntry struct {
	name     string
	groups   []string
	decision auth.Decision
	reason   string
}

type decisionCache struct {
	mu sync.RWMutex
	m  map[decisionKey]decisionEntry
}

var userSeed = maphash.MakeSeed()

// keyOf is the cache key of attrs (the object name left out).
func keyOf(attrs auth.Attributes) decisionKey {
	var h maphash.Hash
	h.SetSeed(userSeed)
	h.WriteString(attrs.User.Name)
	for _, g := range attrs.User.Groups {
		h.WriteByte(0)
		h.WriteString(g)
	}
	k := decisionKey{user: h.Sum64(), verb: attrs.Verb, ns: attrs.Namespace, resourceRequest: attrs.IsResourceRequest}
	if attrs.IsResourceRequest {
		k.group, k.resource, k.sub = attrs.APIGroup, attrs.Resource, attrs.Subresource
	} else {
		k.path = attrs.Path
	}
	return k
}

func (c *decisionCache) get(k decisionKey, u *auth.User) (decisionEntry, bool) {
	c.mu.RLock()
	e, ok := c.m[k]
	c.mu.RUnlock()
	if !ok || e.name != u.Name || !slices.Equal(e.groups, u.Groups) {
		return decisionEntry{}, false
	}
	return e, true
}

func (c *decisionCache) put(k decisionKey, u *auth.User, d auth.Decision, reason string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[decisionKey]decisionEntry{}
	}
	if len(c.m) >= maxDecisions {
		return
	}
	c.m[k] = decisionEntry{name: u.Name, groups: slices.Clone(u.Groups), decision: d, reason: reason}
}
