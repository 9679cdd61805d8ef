package fieldmanager

// CopyingFieldManager is the field manager of k for subresource, built as
// FieldManager builds it but with a convertor that deep-copies every object
// it converts to the same version, as runtime.Scheme's does.
func CopyingFieldManager(r *Registry, k Kind, subresource string) (*FieldManager, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.build(k, subresource, true)
}
