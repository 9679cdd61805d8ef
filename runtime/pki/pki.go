// Package pki keeps the server's certificates in <data-dir>/pki: a
// self-signed CA, the serving certificate it signs (for localhost, the
// loopback addresses, the host name and any extra names) and the admin
// client certificate of the generated kubeconfig. Files are created on first
// start, reused on restart and renewed when they are about to expire or no
// longer cover the names asked for. Keys are ECDSA P-256, written 0600 in a
// 0700 directory.
package pki

import (
	"bytes"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"slices"
	"time"
)

// Lifetimes and the renewal margin.
const (
	CALifetime   = 10 * 365 * 24 * time.Hour
	LeafLifetime = 365 * 24 * time.Hour
	// RenewBefore: a certificate that expires sooner is issued again at
	// start.
	RenewBefore = 30 * 24 * time.Hour
)

// CA is a certificate authority: its certificate and key.
type CA struct {
	Cert *x509.Certificate
	Key  crypto.Signer
	PEM  []byte // the certificate, PEM-encoded
}

// Pool returns a pool holding the CA's certificate.
func (ca *CA) Pool() *x509.CertPool {
	p := x509.NewCertPool()
	p.AddCert(ca.Cert)
	return p
}

// Pair is a leaf certificate and its key, PEM-encoded.
type Pair struct {
	CertPEM, KeyPEM []byte
}

// TLS returns the pair as a tls.Certificate.
func (p Pair) TLS() (tls.Certificate, error) {
	c, err := tls.X509KeyPair(p.CertPEM, p.KeyPEM)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("load key pair: %w", err)
	}
	return c, nil
}

// EnsureDir creates dir with mode 0700 (and tightens an existing one).
func EnsureDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		return fmt.Errorf("restrict %s: %w", dir, err)
	}
	return nil
}

// EnsureCA loads dir/ca.crt and dir/ca.key, or creates them (named
// "kubeforge-ca") when missing or about to expire.
func EnsureCA(dir string) (*CA, error) {
	if err := EnsureDir(dir); err != nil {
		return nil, err
	}
	certPath, keyPath := filepath.Join(dir, "ca.crt"), filepath.Join(dir, "ca.key")
	if pair, err := readPair(certPath, keyPath); err == nil {
		ca, err := parseCA(pair)
		if err == nil && time.Until(ca.Cert.NotAfter) > RenewBefore {
			return ca, nil
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("generate CA key: %w", err)
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          serial(),
		Subject:               pkix.Name{CommonName: "kubeforge-ca"},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(CALifetime),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
		SubjectKeyId:          keyID(&key.PublicKey),
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, fmt.Errorf("create CA certificate: %w", err)
	}
	pair, err := encode(der, key)
	if err != nil {
		return nil, err
	}
	if err := writePair(certPath, keyPath, pair); err != nil {
		return nil, err
	}
	return parseCA(pair)
}

// Serving returns dir/<name>.crt and .key, a serving certificate signed by
// ca for hosts (DNS names and IP addresses), issuing it again when missing,
// signed by another CA, about to expire, or missing one of hosts.
func Serving(dir, name string, ca *CA, hosts []string) (Pair, error) {
	return hostLeaf(dir, name, ca, "kubeforge-apiserver", hosts, x509.ExtKeyUsageServerAuth)
}

// Peer is Serving for a certificate that also authenticates as a client,
// as an etcd member's does towards its peers.
func Peer(dir, name string, ca *CA, hosts []string) (Pair, error) {
	return hostLeaf(dir, name, ca, "kubeforge-etcd", hosts, x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth)
}

func hostLeaf(dir, name string, ca *CA, cn string, hosts []string, usages ...x509.ExtKeyUsage) (Pair, error) {
	return ensureLeaf(dir, name, ca, func(c *x509.Certificate) bool {
		for _, h := range hosts {
			if c.VerifyHostname(h) != nil {
				return false
			}
		}
		for _, u := range usages {
			if !slices.Contains(c.ExtKeyUsage, u) {
				return false
			}
		}
		return true
	}, func(t *x509.Certificate) {
		t.Subject = pkix.Name{CommonName: cn}
		t.ExtKeyUsage = usages
		for _, h := range hosts {
			if ip := net.ParseIP(h); ip != nil {
				t.IPAddresses = append(t.IPAddresses, ip)
			} else {
				t.DNSNames = append(t.DNSNames, h)
			}
		}
	})
}

// Client returns dir/<name>.crt and .key, a client certificate signed by
// ca for user (CN) in groups (O), issuing it again when missing, signed by
// another CA, about to expire or naming another user or groups.
func Client(dir, name string, ca *CA, user string, groups []string) (Pair, error) {
	return ensureLeaf(dir, name, ca, func(c *x509.Certificate) bool {
		return c.Subject.CommonName == user && slices.Equal(c.Subject.Organization, groups) &&
			slices.Contains(c.ExtKeyUsage, x509.ExtKeyUsageClientAuth)
	}, func(t *x509.Certificate) {
		t.Subject = pkix.Name{CommonName: user, Organization: groups}
		t.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}
	})
}

// IssueClient signs a fresh client certificate for user in groups, valid
// for lifetime; nothing is written.
func IssueClient(ca *CA, user string, groups []string, lifetime time.Duration) (Pair, error) {
	return issue(ca, lifetime, func(t *x509.Certificate) {
		t.Subject = pkix.Name{CommonName: user, Organization: groups}
		t.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}
	})
}

func ensureLeaf(dir, name string, ca *CA, fits func(*x509.Certificate) bool, fill func(*x509.Certificate)) (Pair, error) {
	if err := EnsureDir(dir); err != nil {
		return Pair{}, err
	}
	certPath, keyPath := filepath.Join(dir, name+".crt"), filepath.Join(dir, name+".key")
	pair, err := readPair(certPath, keyPath)
	if err == nil {
		if c, err := parseLeaf(pair); err == nil && fits(c) && time.Until(c.NotAfter) > RenewBefore &&
			c.CheckSignatureFrom(ca.Cert) == nil {
			return pair, nil
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return Pair{}, err
	}
	pair, err = issue(ca, LeafLifetime, fill)
	if err != nil {
		return Pair{}, err
	}
	if err := writePair(certPath, keyPath, pair); err != nil {
		return Pair{}, err
	}
	return pair, nil
}

func issue(ca *CA, lifetime time.Duration, fill func(*x509.Certificate)) (Pair, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return Pair{}, fmt.Errorf("generate key: %w", err)
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          serial(),
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(lifetime),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		BasicConstraintsValid: true,
		AuthorityKeyId:        ca.Cert.SubjectKeyId,
	}
	fill(tmpl)
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.Cert, &key.PublicKey, ca.Key)
	if err != nil {
		return Pair{}, fmt.Errorf("sign certificate for %q: %w", tmpl.Subject.CommonName, err)
	}
	return encode(der, key)
}

// LoadCertPool reads a PEM bundle of CA certificates.
func LoadCertPool(path string) (*x509.CertPool, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read CA bundle: %w", err)
	}
	p := x509.NewCertPool()
	if !p.AppendCertsFromPEM(data) {
		return nil, fmt.Errorf("read CA bundle %s: no PEM certificates", path)
	}
	return p, nil
}

func serial() *big.Int {
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return big.NewInt(time.Now().UnixNano())
	}
	return n
}

func keyID(pub *ecdsa.PublicKey) []byte {
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		return nil
	}
	sum := sha256.Sum256(der)
	return sum[:20]
}

func encode(der []byte, key *ecdsa.PrivateKey) (Pair, error) {
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return Pair{}, fmt.Errorf("encode key: %w", err)
	}
	return Pair{
		CertPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		KeyPEM:  pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}),
	}, nil
}

func parseLeaf(p Pair) (*x509.Certificate, error) {
	block, _ := pem.Decode(p.CertPEM)
	if block == nil || block.Type != "CERTIFICATE" {
		return nil, errors.New("no PEM certificate")
	}
	return x509.ParseCertificate(block.Bytes)
}

func parseCA(p Pair) (*CA, error) {
	c, err := parseLeaf(p)
	if err != nil {
		return nil, fmt.Errorf("parse CA certificate: %w", err)
	}
	tc, err := p.TLS()
	if err != nil {
		return nil, fmt.Errorf("parse CA key: %w", err)
	}
	signer, ok := tc.PrivateKey.(crypto.Signer)
	if !ok || !c.IsCA {
		return nil, errors.New("parse CA: not a CA certificate with a signing key")
	}
	return &CA{Cert: c, Key: signer, PEM: bytes.Clone(p.CertPEM)}, nil
}

func readPair(certPath, keyPath string) (Pair, error) {
	c, err := os.ReadFile(certPath)
	if err != nil {
		return Pair{}, err
	}
	k, err := os.ReadFile(keyPath)
	if err != nil {
		return Pair{}, err
	}
	return Pair{CertPEM: c, KeyPEM: k}, nil
}

func writePair(certPath, keyPath string, p Pair) error {
	if err := WriteFileAtomic(keyPath, p.KeyPEM, 0o600); err != nil {
		return err
	}
	return WriteFileAtomic(certPath, p.CertPEM, 0o600)
}

// WriteFileAtomic writes data to path through a temporary file and a
// rename, so readers never see a partial file.
func WriteFileAtomic(path string, data []byte, mode os.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
