package v1

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	validationutils "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	batchv1 "github.com/kubeforge/kubeforge/types/batch/v1"
)

// log is for logging in this package.
var cronjoblog = logf.Log.WithName("cronjob-resource")

// SetupCronJobWebhookWithManager registers the webhook for CronJob in the manager.
func SetupCronJobWebhookWithManager(mgr ctrl.Manager) error {
	return ctrl.NewWebhookManagedBy(mgr, &batchv1.CronJob{}).
		WithValidator(&CronJobCustomValidator{Client: mgr.GetClient()}).
		WithDefaulter(&CronJobCustomDefaulter{
			DefaultConcurrencyPolicy:          batchv1.AllowConcurrent,
			DefaultSuspend:                    false,
			DefaultSuccessfulJobsHistoryLimit: 3,
			DefaultFailedJobsHistoryLimit:     1,
		}).
		Complete()
}

// +kubebuilder:webhook:path=/mutate-batch-tutorial-kubebuilder-io-v1-cronjob,mutating=true,failurePolicy=fail,sideEffects=None,groups=batch.tutorial.kubebuilder.io,resources=cronjobs,verbs=create;update,versions=v1,name=mcronjob-v1.kb.io,admissionReviewVersions=v1

// CronJobCustomDefaulter sets default values on CronJobs when they are
// created or updated. Its fields are the defaults it applies.
type CronJobCustomDefaulter struct {
	DefaultConcurrencyPolicy          batchv1.ConcurrencyPolicy
	DefaultSuspend                    bool
	DefaultSuccessfulJobsHistoryLimit int32
	DefaultFailedJobsHistoryLimit     int32
}

// Default fills in what the user left out. On a create it also records
// who created the object, read from the admission request.
func (d *CronJobCustomDefaulter) Default(ctx context.Context, cronjob *batchv1.CronJob) error {
	cronjoblog.Info("defaulting for CronJob", "name", cronjob.GetName())

	if cronjob.Spec.ConcurrencyPolicy == "" {
		cronjob.Spec.ConcurrencyPolicy = d.DefaultConcurrencyPolicy
	}
	if cronjob.Spec.Suspend == nil {
		cronjob.Spec.Suspend = new(bool)
		*cronjob.Spec.Suspend = d.DefaultSuspend
	}
	if cronjob.Spec.SuccessfulJobsHistoryLimit == nil {
		cronjob.Spec.SuccessfulJobsHistoryLimit = new(int32)
		*cronjob.Spec.SuccessfulJobsHistoryLimit = d.DefaultSuccessfulJobsHistoryLimit
	}
	if cronjob.Spec.FailedJobsHistoryLimit == nil {
		cronjob.Spec.FailedJobsHistoryLimit = new(int32)
		*cronjob.Spec.FailedJobsHistoryLimit = d.DefaultFailedJobsHistoryLimit
	}

	req, err := admission.RequestFromContext(ctx)
	if err != nil {
		return fmt.Errorf("defaulting CronJob %q: %w", cronjob.Name, err)
	}
	if req.Operation == "CREATE" {
		if cronjob.Annotations == nil {
			cronjob.Annotations = map[string]string{}
		}
		cronjob.Annotations["batch.tutorial.kubebuilder.io/created-by"] = req.UserInfo.Username
	}
	return nil
}

// +kubebuilder:webhook:path=/validate-batch-tutorial-kubebuilder-io-v1-cronjob,mutating=false,failurePolicy=fail,sideEffects=None,groups=batch.tutorial.kubebuilder.io,resources=cronjobs,verbs=create;update;delete,versions=v1,name=vcronjob-v1.kb.io,admissionReviewVersions=v1

// CronJobCustomValidator validates CronJobs when they are created,
// updated or deleted. Client reads the other CronJobs.
type CronJobCustomValidator struct {
	Client client.Client
}

// exclusiveAnnotation asks that no other CronJob of the namespace has the
// same schedule.
const exclusiveAnnotation = "batch.tutorial.kubebuilder.io/exclusive"

// ValidateCreate checks a new CronJob.
func (v *CronJobCustomValidator) ValidateCreate(ctx context.Context, cronjob *batchv1.CronJob) (admission.Warnings, error) {
	cronjoblog.Info("validation for CronJob upon creation", "name", cronjob.GetName())
	if err := validateCronJob(cronjob); err != nil {
		return warnings(cronjob), err
	}
	if cronjob.Annotations[exclusiveAnnotation] == "true" {
		var others batchv1.CronJobList
		if err := v.Client.List(ctx, &others, client.InNamespace(cronjob.Namespace)); err != nil {
			return nil, fmt.Errorf("list the CronJobs of %s: %w", cronjob.Namespace, err)
		}
		for _, o := range others.Items {
			if o.Name != cronjob.Name && o.Spec.Schedule == cronjob.Spec.Schedule {
				return nil, fmt.Errorf("schedule %q is taken by cronjob %s", cronjob.Spec.Schedule, o.Name)
			}
		}
	}
	return warnings(cronjob), nil
}

// ValidateUpdate checks a changed CronJob.
func (v *CronJobCustomValidator) ValidateUpdate(_ context.Context, oldCronJob, cronjob *batchv1.CronJob) (admission.Warnings, error) {
	cronjoblog.Info("validation for CronJob upon update", "name", cronjob.GetName())
	return warnings(cronjob), validateCronJob(cronjob)
}

// ValidateDelete refuses to delete a CronJob labelled protected=true.
func (v *CronJobCustomValidator) ValidateDelete(_ context.Context, cronjob *batchv1.CronJob) (admission.Warnings, error) {
	cronjoblog.Info("validation for CronJob upon deletion", "name", cronjob.GetName())
	if cronjob.Labels["protected"] == "true" {
		return nil, fmt.Errorf("cronjob %q is protected: remove the label protected=true first", cronjob.Name)
	}
	return nil, nil
}

// warnings tells the user about a suspended CronJob, which never runs.
func warnings(cronjob *batchv1.CronJob) admission.Warnings {
	if cronjob.Spec.Suspend != nil && *cronjob.Spec.Suspend {
		return admission.Warnings{fmt.Sprintf("cronjob %s is suspended: no job will run until spec.suspend is false", cronjob.Name)}
	}
	return nil
}

// validateCronJob checks the name and the schedule.
func validateCronJob(cronjob *batchv1.CronJob) error {
	var allErrs field.ErrorList
	if err := validateCronJobName(cronjob); err != nil {
		allErrs = append(allErrs, err)
	}
	if err := validateScheduleFormat(cronjob.Spec.Schedule, field.NewPath("spec").Child("schedule")); err != nil {
		allErrs = append(allErrs, err)
	}
	if len(allErrs) == 0 {
		return nil
	}
	return apierrors.NewInvalid(
		schema.GroupKind{Group: "batch.tutorial.kubebuilder.io", Kind: "CronJob"},
		cronjob.Name, allErrs)
}

// validateScheduleFormat accepts a five-field cron line or one of the
// descriptors (@hourly, @daily, ...).
func validateScheduleFormat(schedule string, fldPath *field.Path) *field.Error {
	switch schedule {
	case "@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly":
		return nil
	}
	parts := strings.Fields(schedule)
	if len(parts) != 5 {
		return field.Invalid(fldPath, schedule, fmt.Sprintf("expected exactly 5 fields, found %d: %s", len(parts), schedule))
	}
	limits := [5][2]int{{0, 59}, {0, 23}, {1, 31}, {1, 12}, {0, 6}}
	for i, p := range parts {
		if err := checkCronField(p, limits[i][0], limits[i][1]); err != nil {
			return field.Invalid(fldPath, schedule, err.Error())
		}
	}
	return nil
}

// checkCronField checks one field: *, n, a-b, lists of those, each with
// an optional /step.
func checkCronField(f string, lo, hi int) error {
	for _, item := range strings.Split(f, ",") {
		rng, step, hasStep := strings.Cut(item, "/")
		if hasStep {
			if n, err := strconv.Atoi(step); err != nil || n <= 0 {
				return fmt.Errorf("bad step %q in %q", step, f)
			}
		}
		if rng == "*" {
			continue
		}
		a, b, isRange := strings.Cut(rng, "-")
		for _, s := range []string{a, b} {
			if !isRange && s == b {
				continue
			}
			n, err := strconv.Atoi(s)
			if err != nil {
				return fmt.Errorf("failed to parse int from %s: %w", s, err)
			}
			if n < lo || n > hi {
				return fmt.Errorf("end of range (%d) above maximum (%d): %s", n, hi, s)
			}
		}
	}
	return nil
}

// validateCronJobName keeps the name short enough for the jobs the
// controller names after it (a Job name is the CronJob name plus 11
// characters, and at most 63).
func validateCronJobName(cronjob *batchv1.CronJob) *field.Error {
	if len(cronjob.Name) > validationutils.DNS1035LabelMaxLength-11 {
		return field.Invalid(field.NewPath("metadata").Child("name"), cronjob.Name, "must be no more than 52 characters")
	}
	return nil
}
