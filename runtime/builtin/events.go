package builtin

import (
	"fmt"
	"reflect"
	"time"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// kube-apiserver validates an Event by the version it is written through
// (k8s.io/kubernetes/pkg/apis/core/validation/events.go): every write
// passes the legacy checks; one through events.k8s.io/v1 also the strict
// ones. Both views store a core Event, so kube's error paths name the
// core fields (involvedObject, message, firstTimestamp) whichever version
// was written; so do these.

// Length limits of an Event's free-text fields.
const (
	eventReportingInstanceMax = 128
	eventActionMax            = 128
	eventReasonMax            = 128
	eventNoteMax              = 1024
)

// eventFields are the fields the legacy checks read, from either view.
type eventFields struct {
	namespace, involvedNamespace string
	eventTime                    metav1.MicroTime
	reportingController          string
	reportingInstance            string
	action, reason, message      string
}

// ValidateCoreEvent is kube's validation of a core/v1 Event: the legacy
// checks only (kube skips its metadata checks for this version, beyond
// the name being a path segment: model.nameRules).
func ValidateCoreEvent(e *corev1.Event) field.ErrorList {
	return legacyEvent(eventFields{
		namespace: e.Namespace, involvedNamespace: e.InvolvedObject.Namespace, eventTime: e.EventTime,
		reportingController: e.ReportingController, reportingInstance: e.ReportingInstance,
		action: e.Action, reason: e.Reason, message: e.Message,
	}, "reportingComponent")
}

// ValidateEventsEvent is kube's validation of an events.k8s.io/v1 Event
// beyond its metadata and markers (eventTime and series.lastObservedTime
// required): the legacy checks, then the strict ones.
func ValidateEventsEvent(e *eventsv1.Event) field.ErrorList {
	errs := legacyEvent(eventFields{
		namespace: e.Namespace, involvedNamespace: e.Regarding.Namespace, eventTime: e.EventTime,
		reportingController: e.ReportingController, reportingInstance: e.ReportingInstance,
		action: e.Action, reason: e.Reason, message: e.Note,
	}, "reportingController")
	if e.Series != nil && e.Series.Count < 2 {
		// series.lastObservedTime required: the markers check it.
		errs = append(errs, field.Invalid(field.NewPath("series.count"), "", "should be at least 2"))
	}
	if e.Type != corev1.EventTypeNormal && e.Type != corev1.EventTypeWarning {
		errs = append(errs, field.Invalid(field.NewPath("type"), "", fmt.Sprintf("has invalid value: %v", e.Type)))
	}
	if !e.DeprecatedFirstTimestamp.IsZero() {
		errs = append(errs, field.Invalid(field.NewPath("firstTimestamp"), "", "needs to be unset"))
	}
	if !e.DeprecatedLastTimestamp.IsZero() {
		errs = append(errs, field.Invalid(field.NewPath("lastTimestamp"), "", "needs to be unset"))
	}
	if e.DeprecatedCount != 0 {
		errs = append(errs, field.Invalid(field.NewPath("count"), "", "needs to be unset"))
	}
	if e.DeprecatedSource.Component != "" || e.DeprecatedSource.Host != "" {
		errs = append(errs, field.Invalid(field.NewPath("source"), "", "needs to be unset"))
	}
	return errs
}

// ValidateEventsEventUpdate is kube's validation of an update through
// events.k8s.io/v1 (ValidateEventUpdate) beyond metadata, in place of the
// markers' (eventTime required holds only on create): the
// legacy checks of the new event, its series when changed, and what an
// event reports cannot change (eventTime to the microsecond). The
// create-only rules (deprecated fields unset, type) do not apply: an
// event written through core/v1 may be updated here.
func ValidateEventsEventUpdate(e, old *eventsv1.Event) field.ErrorList {
	errs := legacyEvent(eventFields{
		namespace: e.Namespace, involvedNamespace: e.Regarding.Namespace, eventTime: e.EventTime,
		reportingController: e.ReportingController, reportingInstance: e.ReportingInstance,
		action: e.Action, reason: e.Reason, message: e.Note,
	}, "reportingController")
	if !reflect.DeepEqual(e.Series, old.Series) {
		errs = append(errs, eventSeries(e.Series)...)
	}
	immutable := func(v, was any, name string) {
		errs = append(errs, apivalidation.ValidateImmutableField(v, was, field.NewPath(name))...)
	}
	// In kube's order, reason twice as kube checks it twice.
	immutable(e.Regarding, old.Regarding, "involvedObject")
	immutable(e.Reason, old.Reason, "reason")
	immutable(e.Note, old.Note, "message")
	immutable(e.DeprecatedSource, old.DeprecatedSource, "source")
	immutable(e.DeprecatedFirstTimestamp, old.DeprecatedFirstTimestamp, "firstTimestamp")
	immutable(e.DeprecatedLastTimestamp, old.DeprecatedLastTimestamp, "lastTimestamp")
	immutable(e.DeprecatedCount, old.DeprecatedCount, "count")
	immutable(e.Reason, old.Reason, "reason")
	immutable(e.Type, old.Type, "type")
	// Sub-microsecond changes are tolerated: clients that serialize with
	// nanoseconds (kubernetes#111928).
	if !e.EventTime.Truncate(time.Microsecond).UTC().Equal(old.EventTime.Truncate(time.Microsecond).UTC()) {
		immutable(e.EventTime, old.EventTime, "eventTime")
	}
	immutable(e.Action, old.Action, "action")
	immutable(e.Related, old.Related, "related")
	immutable(e.ReportingController, old.ReportingController, "reportingController")
	immutable(e.ReportingInstance, old.ReportingInstance, "reportingInstance")
	return errs
}

// eventSeries is kube's validateV1EventSeries.
func eventSeries(s *eventsv1.EventSeries) field.ErrorList {
	var errs field.ErrorList
	if s == nil {
		return nil
	}
	if s.Count < 2 {
		errs = append(errs, field.Invalid(field.NewPath("series.count"), "", "should be at least 2"))
	}
	if s.LastObservedTime.IsZero() {
		errs = append(errs, field.Required(field.NewPath("series.lastObservedTime"), ""))
	}
	return errs
}

// legacyEvent is kube's legacyValidateEvent. An event without eventTime
// (client-go's legacy recorder) must be in its involved object's
// namespace ("default" or none for a cluster-scoped one); one with it
// must name its reporter, action and reason. reportingController is how
// the version names that field.
func legacyEvent(e eventFields, reportingController string) field.ErrorList {
	var errs field.ErrorList
	mismatch := func() {
		errs = append(errs, field.Invalid(field.NewPath("involvedObject", "namespace"), e.involvedNamespace, "does not match event.namespace"))
	}
	if e.eventTime.IsZero() {
		switch {
		case e.involvedNamespace == "" && e.namespace != metav1.NamespaceNone && e.namespace != metav1.NamespaceDefault:
			mismatch()
		case e.involvedNamespace != "" && e.namespace != e.involvedNamespace:
			mismatch()
		}
		return errs
	}
	if e.involvedNamespace == "" && e.namespace != metav1.NamespaceDefault && e.namespace != metav1.NamespaceSystem {
		mismatch()
	}
	rc := field.NewPath(reportingController)
	if e.reportingController == "" {
		errs = append(errs, field.Required(rc, ""))
	}
	for _, msg := range validation.IsQualifiedName(e.reportingController) {
		errs = append(errs, field.Invalid(rc, e.reportingController, msg))
	}
	errs = append(errs, requiredWithin(field.NewPath("reportingInstance"), e.reportingInstance, eventReportingInstanceMax)...)
	errs = append(errs, requiredWithin(field.NewPath("action"), e.action, eventActionMax)...)
	errs = append(errs, requiredWithin(field.NewPath("reason"), e.reason, eventReasonMax)...)
	if len(e.message) > eventNoteMax {
		errs = append(errs, field.Invalid(field.NewPath("message"), "", fmt.Sprintf("can have at most %v characters", eventNoteMax)))
	}
	return errs
}

// requiredWithin: v is set and at most max bytes long, with kube's
// messages for events.
func requiredWithin(p *field.Path, v string, max int) field.ErrorList {
	var errs field.ErrorList
	if v == "" {
		errs = append(errs, field.Required(p, ""))
	}
	if len(v) > max {
		errs = append(errs, field.Invalid(p, "", fmt.Sprintf("can have at most %v characters", max)))
	}
	return errs
}
