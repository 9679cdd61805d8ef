package bad

import (
	"context"

	hooksv2 "github.com/kubeforge/kubeforge/generators/model/testdata/webhooksbad/types/hooks/v2"
)

// +kubebuilder:webhook:mutating=true,groups=hooks.example.dev,resources=things,verbs=create,versions=v2,name=spoke.example.dev

// +kubebuilder:webhook:mutating=true,groups=hooks.example.dev,resources=widgets,verbs=create,versions=v1,name=nokind.example.dev

// +kubebuilder:webhook:mutating=false,groups=hooks.example.dev,resources=things,verbs=create;patch,versions=v1,name=verb.example.dev

// +kubebuilder:webhook:mutating=false,groups=hooks.example.dev,resources=things,verbs=create,versions=v1,name=noimpl.example.dev

// Defaulter takes the spoke's type: it implements nothing of v1.
type Defaulter struct{}

// Default is typed on v2.
func (Defaulter) Default(context.Context, *hooksv2.Thing) error { return nil }
