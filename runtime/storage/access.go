package storage

import (
	"k8s.io/apiserver/pkg/storage/value"

	"github.com/kubeforge/kubeforge/runtime/resource"
)

// access is what every read and write of one resource needs of etcd: the
// client and its options (b), the key layout, the codec (encode, decode,
// decryption of values at rest) and the conditional writes (txn.go). The
// Store's verbs and the watch cache are both built on it, and the cache
// depends on nothing else: it never calls a Store verb, so whatever it
// does, it cannot change what a verb answers, only how fast.
type access[T resource.Object, L resource.ListObject] struct {
	b *Backend
	s *resource.Strategy[T, L]
	// tx encrypts values at rest; nil stores them as they are.
	tx value.Transformer
	// raw remembers the stored versions whose bytes ListJSON and GetJSON
	// may serve with a splice (see rawjson.go).
	raw *rawCache
}
