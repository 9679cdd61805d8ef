package fieldmanager

import "k8s.io/apimachinery/pkg/util/managedfields"

// CopyingFieldManager is the field manager of k for subresource, built as
// FieldManager builds it but with a convertor that deep-copies every object
// it converts to the same version, as runtime.Scheme's does.
func CopyingFieldManager(r *Registry, k Kind, subresource string) (*FieldManager, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.build(k, subresource, true)
}

// Proven reports whether k's Go type was proven to fit its schema, so
// that its field manager skips validation where that changes nothing.
func Proven(r *Registry, k Kind) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.tc != nil && r.tc.forKind(k.GVK, k.New()).proven != nil
}

// ReferenceFieldManager is the field manager of k for subresource as
// kube-apiserver builds it: managedfields.NewTypeConverter's converter,
// which validates every object, and a convertor that copies.
func ReferenceFieldManager(r *Registry, k Kind, subresource string) (*FieldManager, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	tc, err := managedfields.NewTypeConverter(r.schemas, false)
	if err != nil {
		return nil, err
	}
	return r.buildWith(k, subresource, true, tc)
}
