package types

import (
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
)

// The hand-written conversions of the storedas tree, as in the project's
// types/conversion.go: without them generation fails (nohandstoredas).

// Convert_eventsv1_Event_To_corev1_Event converts an events.k8s.io/v1 Event
// to the core/v1 Event that stores it, as kube-apiserver does: regarding is
// involvedObject, note is message, the deprecated* fields are the core
// fields of the same meaning, and reportingController is core's
// reportingController (JSON reportingComponent).
func Convert_eventsv1_Event_To_corev1_Event(in *eventsv1.Event, out *corev1.Event) error {
	if err := autoConvert_eventsv1_Event_To_corev1_Event(in, out); err != nil {
		return err
	}
	in.Regarding.DeepCopyInto(&out.InvolvedObject)
	out.Message = in.Note
	out.Source = in.DeprecatedSource
	in.DeprecatedFirstTimestamp.DeepCopyInto(&out.FirstTimestamp)
	in.DeprecatedLastTimestamp.DeepCopyInto(&out.LastTimestamp)
	out.Count = in.DeprecatedCount
	out.ReportingController = in.ReportingController
	return nil
}

// Convert_corev1_Event_To_eventsv1_Event converts a stored core/v1 Event to
// its events.k8s.io/v1 form: the inverse of
// Convert_eventsv1_Event_To_corev1_Event, so every field survives the
// round trip in both directions.
func Convert_corev1_Event_To_eventsv1_Event(in *corev1.Event, out *eventsv1.Event) error {
	if err := autoConvert_corev1_Event_To_eventsv1_Event(in, out); err != nil {
		return err
	}
	in.InvolvedObject.DeepCopyInto(&out.Regarding)
	out.Note = in.Message
	out.DeprecatedSource = in.Source
	in.FirstTimestamp.DeepCopyInto(&out.DeprecatedFirstTimestamp)
	in.LastTimestamp.DeepCopyInto(&out.DeprecatedLastTimestamp)
	out.DeprecatedCount = in.Count
	out.ReportingController = in.ReportingController
	return nil
}
