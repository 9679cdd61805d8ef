package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// This file stands in for the deepcopy and lists generators' output so that
// the register golden compiles and runs on its own.

// GadgetList is a list of Gadgets.
type GadgetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Gadget `json:"items"`
}

// DeepCopyObject returns a copy (shallow beyond the top level: test stub).
func (in *Gadget) DeepCopyObject() runtime.Object { c := *in; return &c }

// DeepCopyObject returns a copy (shallow beyond the top level: test stub).
func (in *GadgetList) DeepCopyObject() runtime.Object { c := *in; return &c }
