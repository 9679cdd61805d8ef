// Package v1 is written the kubebuilder way: the package markers sit in a
// block separated from the package clause by one blank line, and init()
// registers &Widget{} before DeepCopyObject exists, so the package does not
// type-check until deepcopy is generated.

//+kubebuilder:object:generate=true
//+groupName=widgets.example.dev

package v1

import (
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

var (
	// GroupVersion is the group and version of these types.
	GroupVersion = schema.GroupVersion{Group: "widgets.example.dev", Version: "v1"}

	// SchemeBuilder registers the types.
	SchemeBuilder = runtime.NewSchemeBuilder(addKnownTypes)

	// AddToScheme adds the types to a scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)

func addKnownTypes(s *runtime.Scheme) error {
	s.AddKnownTypes(GroupVersion, &Widget{}, &WidgetList{})
	return nil
}
