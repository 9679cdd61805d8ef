package v1alpha1

import (
	"fmt"

	v1 "github.com/kubeforge/kubeforge/types/shipping/v1"
)

// Hand-written conversions for the fields v1 renamed or changed; the
// generated autoConvert_ functions (zz_generated.conversion.go) convert the
// rest, and the generated ToHub/FromHub keep what v1alpha1 cannot express
// (the exact priority, the origin's postal code, ...) in the
// kubeforge.dev/conversion-data annotation.

// Convert_v1alpha1_ShipmentSpec_To_v1_ShipmentSpec converts from to origin
// and urgent to priority (true: Urgent; false: Normal, unless the annotation
// kept Low).
func Convert_v1alpha1_ShipmentSpec_To_v1_ShipmentSpec(in *ShipmentSpec, out *v1.ShipmentSpec) error {
	if err := autoConvert_v1alpha1_ShipmentSpec_To_v1_ShipmentSpec(in, out); err != nil {
		return err
	}
	if err := Convert_v1alpha1_Address_To_v1_Address(&in.From, &out.Origin); err != nil {
		return fmt.Errorf("convert ShipmentSpec.From to origin: %w", err)
	}
	if in.Urgent {
		out.Priority = v1.PriorityUrgent
	} else {
		out.Priority = v1.PriorityNormal
	}
	return nil
}

// Convert_v1_ShipmentSpec_To_v1alpha1_ShipmentSpec converts origin to from
// and priority to urgent (Urgent: true; Low and Normal: false).
func Convert_v1_ShipmentSpec_To_v1alpha1_ShipmentSpec(in *v1.ShipmentSpec, out *ShipmentSpec) error {
	if err := autoConvert_v1_ShipmentSpec_To_v1alpha1_ShipmentSpec(in, out); err != nil {
		return err
	}
	if err := Convert_v1_Address_To_v1alpha1_Address(&in.Origin, &out.From); err != nil {
		return fmt.Errorf("convert ShipmentSpec.Origin to from: %w", err)
	}
	out.Urgent = in.Priority == v1.PriorityUrgent
	return nil
}
