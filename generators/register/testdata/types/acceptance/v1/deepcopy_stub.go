package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// This file stands in for the deepcopy and lists generators' output so that
// the register golden compiles and runs on its own.

// ZoneList is a list of Zones.
type ZoneList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Zone `json:"items"`
}

// DeepCopyObject returns a copy (shallow beyond the top level: test stub).
func (in *Gadget) DeepCopyObject() runtime.Object { c := *in; return &c }

// DeepCopyObject returns a copy (shallow beyond the top level: test stub).
func (in *GadgetList) DeepCopyObject() runtime.Object { c := *in; return &c }

// DeepCopyObject returns a copy (shallow beyond the top level: test stub).
func (in *Zone) DeepCopyObject() runtime.Object { c := *in; return &c }

// DeepCopyObject returns a copy (shallow beyond the top level: test stub).
func (in *ZoneList) DeepCopyObject() runtime.Object { c := *in; return &c }
