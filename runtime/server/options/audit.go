package options

import (
	"errors"
	"flag"

	"github.com/kubeforge/kubeforge/runtime/server"
)

// Audit is the audit log: where, at which levels, and its rotation.
type Audit struct {
	LogPath    string
	PolicyFile string
	MaxSizeMB  int
	MaxBackups int
	MaxAgeDays int
}

// NewAudit returns the audit defaults: off; when on, rotated at 100 MB
// keeping 10 files.
func NewAudit() *Audit { return &Audit{MaxSizeMB: 100, MaxBackups: 10} }

func (o *Audit) AddFlags(fs *flag.FlagSet) {
	fs.StringVar(&o.LogPath, "audit-log-path", o.LogPath, "write the audit log (audit.k8s.io/v1 Events as JSON lines) to this file; \"-\" is standard output; off when empty")
	fs.StringVar(&o.PolicyFile, "audit-policy-file", o.PolicyFile, "audit policy (kube's audit.k8s.io/v1 Policy); default: every request at Metadata level")
	fs.IntVar(&o.MaxSizeMB, "audit-log-maxsize", o.MaxSizeMB, "rotate the audit log when it reaches this many megabytes")
	fs.IntVar(&o.MaxBackups, "audit-log-maxbackup", o.MaxBackups, "rotated audit logs to keep (0: all; kube-apiserver's default is all, here 10 bound the disk a flood of requests can fill)")
	fs.IntVar(&o.MaxAgeDays, "audit-log-maxage", o.MaxAgeDays, "days to keep rotated audit logs (0: no limit)")
}

func (o *Audit) Validate() []error {
	var errs []error
	if o.LogPath == "" && o.PolicyFile != "" {
		errs = append(errs, errors.New("--audit-policy-file needs --audit-log-path"))
	}
	if o.MaxSizeMB <= 0 || o.MaxBackups < 0 || o.MaxAgeDays < 0 {
		errs = append(errs, errors.New("--audit-log-maxsize must be positive, --audit-log-maxbackup and --audit-log-maxage not negative"))
	}
	return errs
}

func (o *Audit) ApplyTo(cfg *server.Config) error {
	cfg.AuditLogPath, cfg.AuditPolicyFile = o.LogPath, o.PolicyFile
	cfg.AuditLogMaxSizeMB, cfg.AuditLogMaxBackups, cfg.AuditLogMaxAgeDays = o.MaxSizeMB, o.MaxBackups, o.MaxAgeDays
	return nil
}
