package options

import (
	"errors"
	"flag"
	"fmt"

	"github.com/kubeforge/kubeforge/runtime/server"
)

// The values of --mode.
const (
	ModeStandalone = "standalone"
	ModeAggregated = "aggregated"
)

// Aggregation is whether the server stands alone or runs behind
// kube-apiserver as an APIService, and how it reaches the main cluster.
type Aggregation struct {
	Mode       string
	Kubeconfig string
}

// NewAggregation returns the default: standalone.
func NewAggregation() *Aggregation { return &Aggregation{Mode: ModeStandalone} }

func (o *Aggregation) AddFlags(fs *flag.FlagSet) {
	fs.StringVar(&o.Mode, "mode", o.Mode, "standalone: the server authenticates and authorizes itself and serves namespaces; aggregated: it runs behind kube-apiserver as an APIService, which authenticates (front-proxy headers, TokenReview), authorizes (SubjectAccessReview) and owns namespaces")
	fs.StringVar(&o.Kubeconfig, "kubeconfig", o.Kubeconfig, "aggregated mode: kubeconfig of the main cluster (empty: the in-cluster ServiceAccount)")
}

func (o *Aggregation) Validate() []error {
	switch o.Mode {
	case ModeStandalone:
		if o.Kubeconfig != "" {
			return []error{errors.New("--kubeconfig is for --mode=aggregated")}
		}
	case ModeAggregated:
	default:
		return []error{fmt.Errorf("--mode %q: want standalone or aggregated", o.Mode)}
	}
	return nil
}

func (o *Aggregation) ApplyTo(cfg *server.Config) error {
	cfg.Aggregated = o.Mode == ModeAggregated
	cfg.Kubeconfig = ""
	if cfg.Aggregated {
		cfg.Kubeconfig = o.Kubeconfig
	}
	return nil
}
