package v1

import (
	"context"

	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
)

// The older layout: a webhook beside the types.

// +kubebuilder:webhook:path=/validate-v1-thing,mutating=false,failurePolicy=ignore,sideEffects=NoneOnDryRun,groups=hooks.example.dev,resources=things,verbs=delete,versions=v1,name=old-vthing.example.dev,admissionReviewVersions=v1

// ThingValidator is untyped, as controller-runtime before v0.20 wrote them.
type ThingValidator struct{}

func (ThingValidator) ValidateCreate(context.Context, runtime.Object) (admission.Warnings, error) {
	return nil, nil
}
func (ThingValidator) ValidateUpdate(context.Context, runtime.Object, runtime.Object) (admission.Warnings, error) {
	return nil, nil
}
func (ThingValidator) ValidateDelete(context.Context, runtime.Object) (admission.Warnings, error) {
	return nil, nil
}
