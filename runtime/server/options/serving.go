package options

import (
	"flag"
	"fmt"
	"net"

	"github.com/kubeforge/kubeforge/runtime/server"
)

// Serving is where and how the server listens: address, port, data
// directory and TLS.
type Serving struct {
	DataDir          string
	BindAddress      string
	Port             int
	AdvertiseAddress string
	PlainHTTP        bool
	TLSCertFile      string
	TLSKeyFile       string
	TLSSANs          StringList
}

// NewServing returns the serving defaults: ./.data/apiserver, 127.0.0.1:6443, TLS.
func NewServing() *Serving {
	return &Serving{DataDir: ".data/apiserver", BindAddress: server.DefaultBindAddress, Port: server.DefaultPort}
}

func (o *Serving) AddFlags(fs *flag.FlagSet) {
	fs.StringVar(&o.DataDir, "data-dir", o.DataDir, "directory for the embedded etcd data and admin.kubeconfig")
	fs.StringVar(&o.BindAddress, "bind-address", o.BindAddress, "IP address to listen on")
	fs.IntVar(&o.Port, "secure-port", o.Port, "HTTPS port to listen on (0 picks a free port)")
	fs.IntVar(&o.Port, "port", o.Port, "alias of --secure-port")
	fs.BoolVar(&o.PlainHTTP, "insecure-plain-http-no-auth", o.PlainHTTP, "DANGEROUS, local debugging only: serve plain HTTP with no TLS, no authentication and no authorization; every request is an administrator")
	fs.StringVar(&o.TLSCertFile, "tls-cert-file", o.TLSCertFile, "serving certificate (PEM); default: one signed by the generated CA in <data-dir>/pki")
	fs.StringVar(&o.TLSKeyFile, "tls-private-key-file", o.TLSKeyFile, "key of --tls-cert-file")
	fs.Var(&o.TLSSANs, "tls-san", "extra DNS name or IP address of the generated serving certificate (repeatable, or comma-separated)")
	fs.StringVar(&o.AdvertiseAddress, "advertise-address", o.AdvertiseAddress, "the IP address clients are told to reach the server at (/api serverAddressByClientCIDRs); default: --bind-address, or the host's default interface address when that is 0.0.0.0 or ::")
}

// Validate checks the advertised address; the bind address, port and
// certificate files are checked by the server, which reads them.
func (o *Serving) Validate() []error {
	if ip := net.ParseIP(o.AdvertiseAddress); o.AdvertiseAddress != "" && (ip == nil || ip.IsUnspecified()) {
		return []error{fmt.Errorf("--advertise-address %q is not a specific IP address", o.AdvertiseAddress)}
	}
	return nil
}

func (o *Serving) ApplyTo(cfg *server.Config) error {
	cfg.DataDir = o.DataDir
	cfg.BindAddress = o.BindAddress
	cfg.Port = o.Port
	cfg.AdvertiseAddress = o.AdvertiseAddress
	cfg.PlainHTTP = o.PlainHTTP
	cfg.TLSCertFile = o.TLSCertFile
	cfg.TLSKeyFile = o.TLSKeyFile
	cfg.TLSSANs = o.TLSSANs
	return nil
}
