package v1

import "k8s.io/apimachinery/pkg/runtime"

// DeepCopyInto is written by hand.
func (in *Custom) DeepCopyInto(out *Custom) {
	*out = *in
	if in.Data != nil {
		out.Data = make([]byte, len(in.Data))
		copy(out.Data, in.Data)
	}
}

// DeepCopy is written by hand.
func (in *Custom) DeepCopy() *Custom {
	if in == nil {
		return nil
	}
	out := new(Custom)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyObject is written by hand; DeepCopy and DeepCopyInto are generated.
func (in *Gadget) DeepCopyObject() runtime.Object {
	if c := in.DeepCopy(); c != nil {
		return c
	}
	return nil
}
