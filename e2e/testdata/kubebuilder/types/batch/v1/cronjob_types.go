package v1

import (
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// CronJobSpec defines the desired state of CronJob.
type CronJobSpec struct {
	// The schedule in Cron format, see https://en.wikipedia.org/wiki/Cron.
	// +kubebuilder:validation:MinLength=0
	Schedule string `json:"schedule"`

	// Optional deadline in seconds for starting the job if it misses its
	// scheduled time for any reason. Missed jobs count as failed.
	// +kubebuilder:validation:Minimum=0
	// +optional
	StartingDeadlineSeconds *int64 `json:"startingDeadlineSeconds,omitempty"`

	// How to treat concurrent runs of a job:
	// - "Allow" (default): runs may overlap;
	// - "Forbid": a new run is skipped while the previous one is running;
	// - "Replace": the running job is replaced by the new one.
	// +optional
	ConcurrencyPolicy ConcurrencyPolicy `json:"concurrencyPolicy,omitempty"`

	// Suspend tells the controller to suspend later runs; running ones
	// go on. Defaults to false.
	// +optional
	Suspend *bool `json:"suspend,omitempty"`

	// The job created on every run.
	JobTemplate batchv1.JobTemplateSpec `json:"jobTemplate"`

	// How many successful finished jobs to keep.
	// +kubebuilder:validation:Minimum=0
	// +optional
	SuccessfulJobsHistoryLimit *int32 `json:"successfulJobsHistoryLimit,omitempty"`

	// How many failed finished jobs to keep.
	// +kubebuilder:validation:Minimum=0
	// +optional
	FailedJobsHistoryLimit *int32 `json:"failedJobsHistoryLimit,omitempty"`
}

// ConcurrencyPolicy says how concurrent runs of a job are treated.
// Only one of the following policies may be specified.
// +kubebuilder:validation:Enum=Allow;Forbid;Replace
type ConcurrencyPolicy string

const (
	// AllowConcurrent lets runs overlap.
	AllowConcurrent ConcurrencyPolicy = "Allow"
	// ForbidConcurrent skips a run while the previous one has not finished.
	ForbidConcurrent ConcurrencyPolicy = "Forbid"
	// ReplaceConcurrent replaces the running job with the new one.
	ReplaceConcurrent ConcurrencyPolicy = "Replace"
)

// CronJobStatus defines the observed state of CronJob.
type CronJobStatus struct {
	// Pointers to the jobs that are running.
	// +optional
	Active []corev1.ObjectReference `json:"active,omitempty"`

	// When the job was last scheduled.
	// +optional
	LastScheduleTime *metav1.Time `json:"lastScheduleTime,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:storageversion

// CronJob is the Schema for the cronjobs API.
type CronJob struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   CronJobSpec   `json:"spec,omitempty"`
	Status CronJobStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// CronJobList contains a list of CronJob.
type CronJobList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []CronJob `json:"items"`
}

func init() {
	SchemeBuilder.Register(&CronJob{}, &CronJobList{})
}
