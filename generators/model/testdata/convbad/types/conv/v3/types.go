// Package v3 has a ConvertTo of the wrong signature.
// +groupName=conv.example.dev
package v3

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/conversion"

	v1 "github.com/kubeforge/kubeforge/generators/model/testdata/convbad/types/conv/v1"
)

// +kubebuilder:object:root=true

// Thing in v3.
type Thing struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              ThingSpec `json:"spec,omitempty"`
}

// ThingSpec is v3's spec.
type ThingSpec struct {
	Size string `json:"size,omitempty"`
}

func (*Thing) ConvertTo(dst *v1.Thing) error        { return nil }
func (*Thing) ConvertFrom(src conversion.Hub) error { return nil }
