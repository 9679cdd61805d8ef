package authn

import (
	"crypto/sha256"
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
const (
	certCacheTTL = 5 * time.Minute
	certCacheMax = 4096
)

type certCache struct {
	mu sync.Mutex
	m  map[[sha256.Size]byte]certVerdict
}

type certVerdict struct {
	pool    *x509.CertPool
	user    *auth.User
	expires time.Time
}

func chainKey(chain []*x509.Certificate) [sha256.Size]byte {
	h := sha256.New()
	for _, c := range chain {
		h.Write(c.Raw)
	}
	var k [sha256.Size]byte
	h.Sum(k[:0])
	return k
}

// get returns a copy of the user of a chain verified against pool, nil if
// none is remembered.
func (c *certCache) get(pool *x509.CertPool, chain []*x509.Certificate) *auth.User {
	k := chainKey(chain)
	c.mu.Lock()
	v, ok := c.m[k]
	c.mu.Unlock()
	if !ok || v.pool != pool || !time.Now().Before(v.expires) {
		return nil
	}
	u := *v.user
	u.Groups = append([]string(nil), v.user.Groups...)
	return &u
}

func (c *certCache) put(pool *x509.CertPool, chain []*x509.Certificate, u *auth.User) {
	expires := time.Now().Add(certCacheTTL)
	for _, cert := range chain {
		if cert.NotAfter.Before(expires) {
			expires = cert.NotAfter
		}
	}
	saved := *u
	saved.Groups = append([]string(nil), u.Groups...)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= certCacheMax {
		c.m = map[[sha256.Size]byte]certVerdict{}
	}
	c.m[chainKey(chain)] = certVerdict{pool: pool, user: &saved, expires: expires}
}
