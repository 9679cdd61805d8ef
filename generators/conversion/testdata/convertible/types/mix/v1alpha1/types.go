// Package v1alpha1 converts Widget by its own methods (its size is a
// struct, which no field-by-field conversion could do) and Gizmo by
// generated code.
// +groupName=mix.example.dev
// +kubebuilder:object:generate=true
package v1alpha1

import (
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/conversion"

	v1 "github.com/kubeforge/kubeforge/generators/conversion/testdata/convertible/types/mix/v1"
)

// +kubebuilder:object:root=true

// Widget in v1alpha1.
type Widget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              WidgetSpec `json:"spec,omitempty"`
}

// WidgetSpec splits the size.
type WidgetSpec struct {
	Size  Size   `json:"size,omitempty"`
	Color string `json:"color,omitempty"`
}

// Size is width by height.
type Size struct {
	Width  string `json:"width,omitempty"`
	Height string `json:"height,omitempty"`
}

// ConvertTo joins the size.
func (src *Widget) ConvertTo(dstRaw conversion.Hub) error {
	dst := dstRaw.(*v1.Widget)
	dst.ObjectMeta = src.ObjectMeta
	dst.Spec.Size = src.Spec.Size.Width + "x" + src.Spec.Size.Height
	dst.Spec.Color = src.Spec.Color
	return nil
}

// ConvertFrom splits the size.
func (dst *Widget) ConvertFrom(srcRaw conversion.Hub) error {
	src := srcRaw.(*v1.Widget)
	w, h, ok := strings.Cut(src.Spec.Size, "x")
	if src.Spec.Size != "" && !ok {
		return fmt.Errorf("size %q is not WxH", src.Spec.Size)
	}
	dst.ObjectMeta = src.ObjectMeta
	dst.Spec.Size = Size{Width: w, Height: h}
	dst.Spec.Color = src.Spec.Color
	return nil
}

// +kubebuilder:object:root=true

// Gizmo in v1alpha1.
type Gizmo struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              GizmoSpec `json:"spec,omitempty"`
}

// GizmoSpec is the same in every version.
type GizmoSpec struct {
	Count int32 `json:"count,omitempty"`
}
