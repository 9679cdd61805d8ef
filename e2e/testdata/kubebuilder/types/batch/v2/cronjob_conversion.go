package v2

import (
	"fmt"
	"strings"

	"sigs.k8s.io/controller-runtime/pkg/conversion"

	v1 "github.com/kubeforge/kubeforge/types/batch/v1"
)

// ConvertTo converts this CronJob to the hub version (v1): the schedule
// parts are joined into one cron line, "*" for a missing part.
func (src *CronJob) ConvertTo(dstRaw conversion.Hub) error {
	dst := dstRaw.(*v1.CronJob)

	sched := src.Spec.Schedule
	parts := []string{"*", "*", "*", "*", "*"}
	for i, f := range []*CronField{sched.Minute, sched.Hour, sched.DayOfMonth, sched.Month, sched.DayOfWeek} {
		if f == nil {
			continue
		}
		if strings.ContainsAny(string(*f), " \t") {
			return fmt.Errorf("schedule part %d (%q) has a space: a part of a cron line cannot", i+1, *f)
		}
		parts[i] = string(*f)
	}
	dst.Spec.Schedule = strings.Join(parts, " ")

	dst.ObjectMeta = src.ObjectMeta
	dst.Spec.StartingDeadlineSeconds = src.Spec.StartingDeadlineSeconds
	dst.Spec.ConcurrencyPolicy = v1.ConcurrencyPolicy(src.Spec.ConcurrencyPolicy)
	dst.Spec.Suspend = src.Spec.Suspend
	dst.Spec.JobTemplate = src.Spec.JobTemplate
	dst.Spec.SuccessfulJobsHistoryLimit = src.Spec.SuccessfulJobsHistoryLimit
	dst.Spec.FailedJobsHistoryLimit = src.Spec.FailedJobsHistoryLimit
	dst.Status.Active = src.Status.Active
	dst.Status.LastScheduleTime = src.Status.LastScheduleTime
	return nil
}

// ConvertFrom converts from the hub version (v1) to this version: the
// cron line is split into its five parts. A line that is not five parts
// (a descriptor such as "@hourly") has no v2 form.
func (dst *CronJob) ConvertFrom(srcRaw conversion.Hub) error {
	src := srcRaw.(*v1.CronJob)

	parts := strings.Fields(src.Spec.Schedule)
	if len(parts) != 5 {
		return fmt.Errorf("schedule %q is not five fields: v2 cannot express it", src.Spec.Schedule)
	}
	fields := make([]*CronField, 5)
	for i, p := range parts {
		f := CronField(p)
		fields[i] = &f
	}
	dst.Spec.Schedule = CronSchedule{Minute: fields[0], Hour: fields[1], DayOfMonth: fields[2], Month: fields[3], DayOfWeek: fields[4]}

	dst.ObjectMeta = src.ObjectMeta
	dst.Spec.StartingDeadlineSeconds = src.Spec.StartingDeadlineSeconds
	dst.Spec.ConcurrencyPolicy = ConcurrencyPolicy(src.Spec.ConcurrencyPolicy)
	dst.Spec.Suspend = src.Spec.Suspend
	dst.Spec.JobTemplate = src.Spec.JobTemplate
	dst.Spec.SuccessfulJobsHistoryLimit = src.Spec.SuccessfulJobsHistoryLimit
	dst.Spec.FailedJobsHistoryLimit = src.Spec.FailedJobsHistoryLimit
	dst.Status.Active = src.Status.Active
	dst.Status.LastScheduleTime = src.Status.LastScheduleTime
	return nil
}
