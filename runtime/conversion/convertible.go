package conversion

import (
	"errors"
	"fmt"
	"net/http"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// ConvertibleError is the failure of a kind's own conversion methods
// (controller-runtime's ConvertTo/ConvertFrom, called by the generated
// <Kind>ToHub and <Kind>FromHub). The server answers it as kube-apiserver
// answers a failing conversion webhook: a 500 whose message is
// "conversion webhook for <group/version, Kind=K> failed: <error>", and the
// write that needed it stores nothing.
type ConvertibleError struct {
	// From is the group, version and kind of the object being converted.
	From schema.GroupVersionKind
	Err  error
}

func (e *ConvertibleError) Error() string {
	return fmt.Sprintf("conversion webhook for %s failed: %v", e.From, e.Err)
}

func (e *ConvertibleError) Unwrap() error { return e.Err }

// Status makes the error an apierrors.APIStatus wherever it is wrapped
// (the store, the field managers of server-side apply): kube-apiserver's
// answer to a failing conversion webhook, a 500 with no reason and the
// webhook error's message.
func (e *ConvertibleError) Status() metav1.Status {
	return metav1.Status{Status: metav1.StatusFailure, Code: http.StatusInternalServerError, Message: e.Error()}
}

// AsConvertibleError returns the ConvertibleError in err's chain, if any.
func AsConvertibleError(err error) (*ConvertibleError, bool) {
	var ce *ConvertibleError
	ok := errors.As(err, &ce)
	return ce, ok
}

// Convertible wraps the error of a kind's conversion method converting an
// object of from; nil stays nil.
func Convertible(from schema.GroupVersionKind, err error) error {
	if err == nil {
		return nil
	}
	return &ConvertibleError{From: from, Err: err}
}

// RestoreMeta does to the metadata a conversion method returned what
// kube-apiserver does to a conversion webhook's: name and namespace must
// be unchanged, and everything but labels and annotations is the
// original's (a conversion cannot move uid, resourceVersion, finalizers or
// managedFields). out is set to a deep copy of in with out's labels and
// annotations.
func RestoreMeta(from schema.GroupVersionKind, in, out *metav1.ObjectMeta) error {
	if out.Name != in.Name {
		return Convertible(from, fmt.Errorf("returned invalid metadata: must have the same name: %q != %q", in.Name, out.Name))
	}
	if out.Namespace != in.Namespace {
		return Convertible(from, fmt.Errorf("returned invalid metadata: must have the same namespace: %q != %q", in.Namespace, out.Namespace))
	}
	labels, annotations := out.Labels, out.Annotations
	in.DeepCopyInto(out)
	out.Labels, out.Annotations = copyMap(labels), copyMap(annotations)
	return nil
}

func copyMap(m map[string]string) map[string]string {
	if m == nil {
		return nil
	}
	c := make(map[string]string, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}
