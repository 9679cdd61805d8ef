package options

import (
	"errors"
	"flag"
	"strings"
	"time"

	"github.com/kubeforge/kubeforge/runtime/server"
)

// Etcd is the storage: embedded or external etcd, its limits, encryption
// at rest and the time to live of events.
type Etcd struct {
	Servers                  string
	Prefix                   string
	CAFile                   string
	CertFile                 string
	KeyFile                  string
	MaxRequestBytes          int
	QuotaBackendBytes        int64
	EncryptionProviderConfig string
	EventTTL                 time.Duration
}

// NewEtcd returns the etcd defaults: embedded, etcd's own request limit
// (1.5 MiB) and quota (2 GiB), events kept an hour.
func NewEtcd() *Etcd {
	return &Etcd{Prefix: server.DefaultEtcdPrefix, MaxRequestBytes: 1536 * 1024, QuotaBackendBytes: 2 << 30, EventTTL: server.DefaultEventTTL}
}

func (o *Etcd) AddFlags(fs *flag.FlagSet) {
	fs.StringVar(&o.Servers, "etcd-servers", o.Servers, "comma-separated etcd endpoints; when set, no embedded etcd is started")
	fs.StringVar(&o.Prefix, "etcd-prefix", o.Prefix, "etcd key prefix")
	fs.StringVar(&o.CAFile, "etcd-cafile", o.CAFile, "CA bundle verifying the --etcd-servers (https endpoints)")
	fs.StringVar(&o.CertFile, "etcd-certfile", o.CertFile, "client certificate the server authenticates to --etcd-servers with")
	fs.StringVar(&o.KeyFile, "etcd-keyfile", o.KeyFile, "key of --etcd-certfile")
	fs.IntVar(&o.MaxRequestBytes, "etcd-max-request-bytes", o.MaxRequestBytes, "the largest request etcd accepts (etcd's --max-request-bytes): the embedded etcd uses it, and larger writes are refused with 413; set it to an external cluster's value")
	fs.Int64Var(&o.QuotaBackendBytes, "etcd-quota-backend-bytes", o.QuotaBackendBytes, "the embedded etcd's database quota (etcd's --quota-backend-bytes), lowered at start to fit the free disk space: past it writes get 507 and reads go on")
	fs.StringVar(&o.EncryptionProviderConfig, "encryption-provider-config", o.EncryptionProviderConfig, "kube's EncryptionConfiguration file: encrypt the resources it lists at rest (aesgcm, aescbc, secretbox, identity)")
	fs.DurationVar(&o.EventTTL, "event-ttl", o.EventTTL, "how long events (core and events.k8s.io) are kept; each write attaches them to an etcd lease")
}

func (o *Etcd) Validate() []error {
	var errs []error
	if o.EventTTL <= 0 {
		errs = append(errs, errors.New("--event-ttl must be positive"))
	}
	if o.Servers == "" && (o.CAFile != "" || o.CertFile != "" || o.KeyFile != "") {
		errs = append(errs, errors.New("--etcd-cafile, --etcd-certfile and --etcd-keyfile need --etcd-servers (the embedded etcd has its own certificates in <data-dir>/pki/etcd)"))
	}
	return errs
}

func (o *Etcd) ApplyTo(cfg *server.Config) error {
	cfg.EtcdServers = nil
	for _, e := range strings.Split(o.Servers, ",") {
		if e = strings.TrimSpace(e); e != "" {
			cfg.EtcdServers = append(cfg.EtcdServers, e)
		}
	}
	cfg.EtcdPrefix = o.Prefix
	cfg.EtcdCAFile, cfg.EtcdCertFile, cfg.EtcdKeyFile = o.CAFile, o.CertFile, o.KeyFile
	cfg.EtcdMaxRequestBytes = o.MaxRequestBytes
	cfg.EtcdQuotaBackendBytes = o.QuotaBackendBytes
	cfg.EncryptionProviderConfig = o.EncryptionProviderConfig
	cfg.EventTTL = o.EventTTL
	return nil
}
