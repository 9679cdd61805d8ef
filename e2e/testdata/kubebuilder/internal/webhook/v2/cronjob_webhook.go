package v2

import (
	"context"
	"fmt"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	batchv2 "github.com/kubeforge/kubeforge/types/batch/v2"
)

// SetupCronJobWebhookWithManager registers the v2 webhook for CronJob in the manager.
func SetupCronJobWebhookWithManager(mgr ctrl.Manager) error {
	return ctrl.NewWebhookManagedBy(mgr, &batchv2.CronJob{}).
		WithValidator(&CronJobCustomValidator{}).
		Complete()
}

// +kubebuilder:webhook:path=/validate-batch-tutorial-kubebuilder-io-v2-cronjob,mutating=false,failurePolicy=fail,sideEffects=None,groups=batch.tutorial.kubebuilder.io,resources=cronjobs,verbs=create;update,versions=v2,name=vcronjob-v2.kb.io,matchPolicy=Exact,admissionReviewVersions=v1

// CronJobCustomValidator checks CronJobs written through v2 (matchPolicy
// Exact), in their v2 form: the hour is a field of its own there.
type CronJobCustomValidator struct{}

// ValidateCreate refuses the hour 13.
func (v *CronJobCustomValidator) ValidateCreate(ctx context.Context, cronjob *batchv2.CronJob) (admission.Warnings, error) {
	return nil, checkHour(ctx, cronjob)
}

// ValidateUpdate refuses the hour 13.
func (v *CronJobCustomValidator) ValidateUpdate(ctx context.Context, _, cronjob *batchv2.CronJob) (admission.Warnings, error) {
	return nil, checkHour(ctx, cronjob)
}

// ValidateDelete allows every deletion.
func (v *CronJobCustomValidator) ValidateDelete(context.Context, *batchv2.CronJob) (admission.Warnings, error) {
	return nil, nil
}

func checkHour(ctx context.Context, cronjob *batchv2.CronJob) error {
	req, err := admission.RequestFromContext(ctx)
	if err != nil {
		return err
	}
	if h := cronjob.Spec.Schedule.Hour; h != nil && *h == "13" {
		return fmt.Errorf("the hour 13 is reserved (request for %s)", req.Kind.Version)
	}
	return nil
}
