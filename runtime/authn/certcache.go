package authn

import (
	"bytes"
	"crypto/x509"
	"sync"
	"time"

	"github.com/kubeforge/kubeforge/runtime/auth"
)

// Verifying a client certificate chain (an ECDSA or RSA signature check
// per link) was a tenth of the CPU of a small request: every request of an
// HTTP/2 connection presents the same chain. certCache remembers chains
// verified against a CA pool for certCacheTTL, and never past the
// validity of any certificate in them.
//
// An entry is found by the leaf's signature (distinct for every
// certificate a CA signs) and holds the chain's bytes, compared in full:
// a lookup costs a map access and a memory comparison, where hashing the
// chain (SHA-256 of about 1 KB) cost more than a microsecond per request.
const (
	certCacheTTL = 5 * time.Minute
	certCacheMax = 4096
)

type certCache struct {
	mu sync.RWMutex
	m  map[string]certVerdict // leaf signature -> verdict
}

type certVerdict struct {
	pool    *x509.CertPool
	raws    [][]byte // the chain's certificates, as presented
	user    *auth.User
	expires time.Time
}

// get returns the user of a chain verified against pool, nil if none is
// remembered. The user is shared by every request that presents the
// chain: callers must not change it (auth.User is read-only once
// authenticated).
func (c *certCache) get(pool *x509.CertPool, chain []*x509.Certificate) *auth.User {
	c.mu.RLock()
	v, ok := c.m[string(chain[0].Signature)]
	c.mu.RUnlock()
	if !ok || v.pool != pool || !sameChain(v.raws, chain) || !time.Now().Before(v.expires) {
		return nil
	}
	return v.user
}

func sameChain(raws [][]byte, chain []*x509.Certificate) bool {
	if len(raws) != len(chain) {
		return false
	}
	for i, c := range chain {
		if !bytes.Equal(raws[i], c.Raw) {
			return false
		}
	}
	return true
}

// put remembers that chain verified against pool as u, which it keeps
// and shares (see get).
func (c *certCache) put(pool *x509.CertPool, chain []*x509.Certificate, u *auth.User) {
	expires := time.Now().Add(certCacheTTL)
	raws := make([][]byte, len(chain))
	for i, cert := range chain {
		if cert.NotAfter.Before(expires) {
			expires = cert.NotAfter
		}
		raws[i] = cert.Raw
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= certCacheMax {
		c.m = map[string]certVerdict{}
	}
	c.m[string(chain[0].Signature)] = certVerdict{pool: pool, raws: raws, user: u, expires: expires}
}
