package v1

import (
	"sigs.k8s.io/controller-runtime/pkg/client"

	batchv1 "github.com/kubeforge/kubeforge/types/batch/v1"
)

// ConfigureCronJobCustomDefaulter sets the defaulter's fields when the
// apiserver runs it in process: the values SetupCronJobWebhookWithManager
// gives it on a controller manager.
func ConfigureCronJobCustomDefaulter(d *CronJobCustomDefaulter) error {
	d.DefaultConcurrencyPolicy = batchv1.AllowConcurrent
	d.DefaultSuspend = false
	d.DefaultSuccessfulJobsHistoryLimit = 3
	d.DefaultFailedJobsHistoryLimit = 1
	return nil
}

// ConfigureCronJobCustomValidator gives the validator its client: a
// client of the apiserver itself, as mgr.GetClient() is on a manager.
func ConfigureCronJobCustomValidator(v *CronJobCustomValidator, c client.Client) error {
	v.Client = c
	return nil
}
