package v1

import (
	"context"

	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	hooksv1 "github.com/kubeforge/kubeforge/generators/model/testdata/webhooks/types/hooks/v1"
)

// +kubebuilder:webhook:path=/mutate-v1-thing,mutating=true,failurePolicy=fail,sideEffects=None,groups=hooks.example.dev,resources=things,verbs=create;update,versions=v1,name=mthing.example.dev,admissionReviewVersions=v1

// ThingDefaulter is typed.
type ThingDefaulter struct{ Size string }

// Default sets the size.
func (d *ThingDefaulter) Default(_ context.Context, t *hooksv1.Thing) error {
	t.Spec.Size = d.Size
	return nil
}

// ConfigureThingDefaulter is the hand-written configuration.
func ConfigureThingDefaulter(d *ThingDefaulter) error {
	d.Size = "M"
	return nil
}

// +kubebuilder:webhook:path=/validate-v1-thing,mutating=false,sideEffects=None,groups=hooks.example.dev,resources=things,verbs=*,versions=v1,name=vthing.example.dev,admissionReviewVersions=v1

// ThingValidator is typed.
type ThingValidator struct{}

func (*ThingValidator) ValidateCreate(context.Context, *hooksv1.Thing) (admission.Warnings, error) {
	return nil, nil
}
func (*ThingValidator) ValidateUpdate(context.Context, *hooksv1.Thing, *hooksv1.Thing) (admission.Warnings, error) {
	return nil, nil
}
func (*ThingValidator) ValidateDelete(context.Context, *hooksv1.Thing) (admission.Warnings, error) {
	return nil, nil
}
