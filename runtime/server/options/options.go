// Package options holds the apiserver's command-line flags in groups, as
// kube-apiserver's options packages do: each group declares its flags and
// defaults (AddFlags), checks them (Validate) and copies them into the
// server.Config (ApplyTo). A main builds New, adds the flags to its flag
// set, parses, validates and applies; nothing here starts anything.
package options

import (
	"errors"
	"flag"
	"strings"

	"github.com/kubeforge/kubeforge/runtime/server"
)

// Group is one group of flags.
type Group interface {
	// AddFlags declares the group's flags, with their defaults, on fs.
	AddFlags(fs *flag.FlagSet)
	// Validate reports every flag value the group refuses.
	Validate() []error
	// ApplyTo copies the validated values into cfg; an error is a value
	// that could only be checked by reading a file.
	ApplyTo(cfg *server.Config) error
}

// Options are every flag of the apiserver command.
type Options struct {
	Serving           *Serving
	Etcd              *Etcd
	Authentication    *Authentication
	Authorization     *Authorization
	Audit             *Audit
	Aggregation       *Aggregation
	WatchCache        *WatchCache
	GarbageCollection *GarbageCollection
	Limits            *Limits
	Process           *Process
}

// New returns the options with their defaults.
func New() *Options {
	return &Options{
		Serving:           NewServing(),
		Etcd:              NewEtcd(),
		Authentication:    NewAuthentication(),
		Authorization:     NewAuthorization(),
		Audit:             NewAudit(),
		Aggregation:       NewAggregation(),
		WatchCache:        NewWatchCache(),
		GarbageCollection: NewGarbageCollection(),
		Limits:            NewLimits(),
		Process:           NewProcess(),
	}
}

// Groups lists the groups in the order they are added, validated and
// applied.
func (o *Options) Groups() []Group {
	return []Group{o.Serving, o.Etcd, o.Authentication, o.Authorization, o.Audit,
		o.Aggregation, o.WatchCache, o.GarbageCollection, o.Limits, o.Process}
}

// AddFlags declares every group's flags on fs.
func (o *Options) AddFlags(fs *flag.FlagSet) {
	for _, g := range o.Groups() {
		g.AddFlags(fs)
	}
}

// Validate reports what every group refuses, and the combinations of
// groups that do not go together.
func (o *Options) Validate() []error {
	var errs []error
	for _, g := range o.Groups() {
		errs = append(errs, g.Validate()...)
	}
	if o.Aggregation.Mode == ModeAggregated && o.Serving.PlainHTTP {
		errs = append(errs, errors.New("--mode=aggregated needs TLS: drop --insecure-plain-http-no-auth"))
	}
	return errs
}

// ApplyTo copies every group into cfg. Call it after Validate.
func (o *Options) ApplyTo(cfg *server.Config) error {
	for _, g := range o.Groups() {
		if err := g.ApplyTo(cfg); err != nil {
			return err
		}
	}
	return nil
}

// StringList is a repeatable, comma-separated string flag.
type StringList []string

func (l *StringList) String() string { return strings.Join(*l, ",") }

// Set adds the comma-separated values of v, skipping empty ones.
func (l *StringList) Set(v string) error {
	for _, p := range strings.Split(v, ",") {
		if p = strings.TrimSpace(p); p != "" {
			*l = append(*l, p)
		}
	}
	return nil
}
