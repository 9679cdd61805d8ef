package endpoints_test

import (
	"github.com/kubeforge/kubeforge/runtime/presence"
	"slices"

	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kubeforge/kubeforge/runtime/resource"
)

// Widget is the hand-written test kind: namespaced, with a status
// subresource and printer columns.
type Widget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              WidgetSpec   `json:"spec,omitempty"`
	Status            WidgetStatus `json:"status,omitempty"`
}

type WidgetSpec struct {
	Size     string `json:"size,omitempty"`
	Replicas *int32 `json:"replicas,omitempty"`
	Owner    string `json:"owner,omitempty"`
	// Ports is a list-map keyed by name in the test schemas.
	Ports []WidgetPort `json:"ports,omitempty"`
}

type WidgetPort struct {
	Name string `json:"name"`
	Port int32  `json:"port,omitempty"`
}

type WidgetStatus struct {
	Phase   string       `json:"phase,omitempty"`
	ReadyAt *metav1.Time `json:"readyAt,omitempty"`
}

type WidgetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Widget `json:"items"`
}

func (in *Widget) DeepCopyObject() runtime.Object {
	out := new(Widget)
	*out = *in
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	if in.Spec.Replicas != nil {
		v := *in.Spec.Replicas
		out.Spec.Replicas = &v
	}
	if in.Spec.Ports != nil {
		out.Spec.Ports = append([]WidgetPort(nil), in.Spec.Ports...)
	}
	if in.Status.ReadyAt != nil {
		out.Status.ReadyAt = in.Status.ReadyAt.DeepCopy()
	}
	return out
}

func (in *WidgetList) DeepCopyObject() runtime.Object {
	out := new(WidgetList)
	out.TypeMeta = in.TypeMeta
	in.ListMeta.DeepCopyInto(&out.ListMeta)
	if in.Items != nil {
		out.Items = make([]Widget, len(in.Items))
		for i := range in.Items {
			out.Items[i] = *in.Items[i].DeepCopyObject().(*Widget)
		}
	}
	return out
}

const testGroup = "test.kubeforge.dev"

var widgetInfo = resource.Info{
	Group:        testGroup,
	Version:      "v1",
	Kind:         "Widget",
	ListKind:     "WidgetList",
	Plural:       "widgets",
	Singular:     "widget",
	Namespaced:   true,
	Subresources: []string{"status"},
	PrinterColumns: []resource.PrinterColumn{
		{Name: "Size", Type: "string", Description: "How big.", JSONPath: ".spec.size"},
		{Name: "Replicas", Type: "integer", JSONPath: ".spec.replicas"},
		{Name: "Ready At", Type: "date", JSONPath: ".status.readyAt"},
		{Name: "Owner", Type: "string", JSONPath: ".spec.owner", Priority: 1},
	},
	StorageVersion: "v1",
	ServedVersions: []string{"v1"},
}

// gizmoInfo is a cluster-scoped kind over the same Go type, without
// printer columns or status subresource.
var gizmoInfo = resource.Info{
	Group:          testGroup,
	Version:        "v1",
	Kind:           "Gizmo",
	ListKind:       "GizmoList",
	Plural:         "gizmos",
	Singular:       "gizmo",
	StorageVersion: "v1",
	ServedVersions: []string{"v1"},
}

func validateWidget(obj *Widget, namespaced bool) field.ErrorList {
	errs := apivalidation.ValidateObjectMetaAccessor(obj, namespaced, apivalidation.NameIsDNSSubdomain, field.NewPath("metadata"))
	switch obj.Spec.Size {
	case "small", "medium", "large":
	default:
		errs = append(errs, field.NotSupported(field.NewPath("spec", "size"), obj.Spec.Size, []string{"small", "medium", "large"}))
	}
	if obj.Spec.Replicas != nil && *obj.Spec.Replicas > 10 {
		errs = append(errs, field.Invalid(field.NewPath("spec", "replicas"), *obj.Spec.Replicas, "must be less than or equal to 10"))
	}
	return errs
}

func defaultWidget(obj *Widget, _ presence.Node) {
	if obj.Spec.Owner == "panic" {
		panic("boom") // exercises the handler's panic recovery
	}
	if obj.Spec.Size == "" {
		obj.Spec.Size = "medium"
	}
	if obj.Spec.Replicas == nil {
		one := int32(1)
		obj.Spec.Replicas = &one
	}
}

func specChanged(a, b *Widget) bool {
	ra, rb := int32(-1), int32(-1)
	if a.Spec.Replicas != nil {
		ra = *a.Spec.Replicas
	}
	if b.Spec.Replicas != nil {
		rb = *b.Spec.Replicas
	}
	return a.Spec.Size != b.Spec.Size || a.Spec.Owner != b.Spec.Owner || ra != rb || !slices.Equal(a.Spec.Ports, b.Spec.Ports)
}

func newStrategy(info *resource.Info) *resource.Strategy[*Widget, *WidgetList] {
	s := &resource.Strategy[*Widget, *WidgetList]{
		Info:    info,
		New:     func() *Widget { return &Widget{} },
		NewList: func() *WidgetList { return &WidgetList{} },
		SetItems: func(l *WidgetList, items []*Widget) {
			l.Items = make([]Widget, len(items))
			for i, it := range items {
				l.Items[i] = *it
			}
		},
		GetItems: func(l *WidgetList) []*Widget {
			out := make([]*Widget, len(l.Items))
			for i := range l.Items {
				out[i] = &l.Items[i]
			}
			return out
		},
		Default:  defaultWidget,
		Validate: func(obj *Widget, _ presence.Node) field.ErrorList { return validateWidget(obj, info.Namespaced) },
		SpecChanged: func(oldObj, newObj *Widget) bool {
			if info.HasStatus() {
				return specChanged(oldObj, newObj)
			}
			return specChanged(oldObj, newObj) || oldObj.Status != newObj.Status
		},
	}
	if info.HasStatus() {
		s.ResetStatus = func(obj *Widget) { obj.Status = WidgetStatus{} }
		s.CopyStatus = func(dst, src *Widget) {
			dst.Status = src.Status
			if src.Status.ReadyAt != nil {
				dst.Status.ReadyAt = src.Status.ReadyAt.DeepCopy()
			}
		}
	}
	if !info.Namespaced {
		// The other common shape of a generated SetItems: nil when empty.
		s.SetItems = func(l *WidgetList, items []*Widget) {
			l.Items = nil
			for _, it := range items {
				l.Items = append(l.Items, *it)
			}
		}
	}
	if len(info.PrinterColumns) > 0 {
		s.PrinterCells = func(obj *Widget) []any {
			return []any{obj.Spec.Size, obj.Spec.Replicas, obj.Status.ReadyAt, obj.Spec.Owner}
		}
	}
	return s
}
