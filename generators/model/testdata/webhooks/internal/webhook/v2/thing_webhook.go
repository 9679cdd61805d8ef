package v2

import (
	"context"

	hooksv2 "github.com/kubeforge/kubeforge/generators/model/testdata/webhooks/types/hooks/v2"
)

// +kubebuilder:webhook:mutating=true,groups=hooks.example.dev,resources=things,verbs=create,versions=v2,name=mthing-v2.example.dev

// ThingDefaulter takes the served v2.
type ThingDefaulter struct{}

// Default sets the size.
func (ThingDefaulter) Default(_ context.Context, t *hooksv2.Thing) error {
	t.Spec.Size = "S"
	return nil
}
