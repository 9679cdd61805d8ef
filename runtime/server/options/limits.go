package options

import (
	"errors"
	"flag"
	"time"

	"github.com/kubeforge/kubeforge/runtime/server"
)

// Limits bound what requests may take: how many at once, and for how long.
type Limits struct {
	MaxReadOnlyInFlight int
	MaxMutatingInFlight int
	RequestTimeout      time.Duration
	MinRequestTimeout   time.Duration
}

// NewLimits returns kube-apiserver's defaults: 400 reads and 200 writes at
// once, 60 s a request, watches of 30 to 60 min.
func NewLimits() *Limits {
	return &Limits{
		MaxReadOnlyInFlight: server.DefaultMaxReadOnlyInFlight, MaxMutatingInFlight: server.DefaultMaxMutatingInFlight,
		RequestTimeout: server.DefaultRequestTimeout, MinRequestTimeout: server.DefaultMinRequestTimeout,
	}
}

func (o *Limits) AddFlags(fs *flag.FlagSet) {
	fs.IntVar(&o.MaxReadOnlyInFlight, "max-requests-inflight", o.MaxReadOnlyInFlight, "the most read-only requests served at once (watches are not counted); more get 429")
	fs.IntVar(&o.MaxMutatingInFlight, "max-mutating-requests-inflight", o.MaxMutatingInFlight, "the most mutating requests served at once; more get 429")
	fs.DurationVar(&o.RequestTimeout, "request-timeout", o.RequestTimeout, "the longest a request but a watch may take (504 after), and the longest a request body may take to arrive (408 after)")
	fs.DurationVar(&o.MinRequestTimeout, "min-request-timeout", o.MinRequestTimeout, "a watch without timeoutSeconds lasts a random time between this and twice this")
}

func (o *Limits) Validate() []error {
	if o.MaxReadOnlyInFlight <= 0 || o.MaxMutatingInFlight <= 0 || o.RequestTimeout <= 0 || o.MinRequestTimeout <= 0 {
		return []error{errors.New("--max-requests-inflight, --max-mutating-requests-inflight, --request-timeout and --min-request-timeout must be positive")}
	}
	return nil
}

func (o *Limits) ApplyTo(cfg *server.Config) error {
	cfg.MaxReadOnlyInFlight, cfg.MaxMutatingInFlight = o.MaxReadOnlyInFlight, o.MaxMutatingInFlight
	cfg.RequestTimeout, cfg.MinRequestTimeout = o.RequestTimeout, o.MinRequestTimeout
	return nil
}
