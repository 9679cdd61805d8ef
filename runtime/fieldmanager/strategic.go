package fieldmanager

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	"k8s.io/kube-openapi/pkg/validation/spec"

	"github.com/kubeforge/kubeforge/runtime/openapidefs"
)

// PatchMeta returns the strategic merge patch metadata of a served kind:
// the x-kubernetes-patch-strategy and x-kubernetes-patch-merge-key of its
// OpenAPI schema, which the generator takes from k8s.io/api's struct tags
// for built-in kinds (as kube-apiserver reads them) and from the markers
// and list types of the user's kinds. kubectl computes its patches from
// the same schema, so client and server agree.
func (r *Registry) PatchMeta(gvk schema.GroupVersionKind) (strategicpatch.LookupPatchMeta, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	name, ok := r.names[gvk]
	if !ok {
		return nil, fmt.Errorf("strategic merge patch of %s: no OpenAPI schema", gvk)
	}
	return schemaPatchMeta{schemas: r.schemas, s: r.schemas[name]}, nil
}

// schemaPatchMeta walks OpenAPI v3 schemas for strategicpatch. Unlike
// strategicpatch.PatchMetaFromOpenAPIV3 it knows maps (additionalProperties)
// and fields the schema does not describe: those merge as plain JSON (no
// strategy), and strict decoding of the patched object reports unknown
// fields as for every other patch type.
type schemaPatchMeta struct {
	schemas map[string]*spec.Schema
	s       *spec.Schema // nil: no metadata below this point
}

func (m schemaPatchMeta) child(key string) (schemaPatchMeta, strategicpatch.PatchMeta) {
	var pm strategicpatch.PatchMeta
	s := m.resolve(m.s)
	if s == nil {
		return schemaPatchMeta{schemas: m.schemas}, pm
	}
	var c *spec.Schema
	if p, ok := s.Properties[key]; ok {
		c = &p
	} else if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
		c = s.AdditionalProperties.Schema
	}
	if c == nil {
		return schemaPatchMeta{schemas: m.schemas}, pm
	}
	if v, ok := c.Extensions.GetString("x-kubernetes-patch-strategy"); ok && v != "" {
		pm.SetPatchStrategies(strings.Split(v, ","))
	}
	if v, ok := c.Extensions.GetString("x-kubernetes-patch-merge-key"); ok {
		pm.SetPatchMergeKey(v)
	}
	return schemaPatchMeta{schemas: m.schemas, s: c}, pm
}

// resolve follows $ref and a single allOf (how a described $ref is written).
func (m schemaPatchMeta) resolve(s *spec.Schema) *spec.Schema {
	for i := 0; s != nil && i < 8; i++ {
		if len(s.AllOf) == 1 && len(s.Properties) == 0 {
			s = &s.AllOf[0]
			continue
		}
		ref := s.Ref.String()
		if ref == "" {
			return s
		}
		s = m.schemas[strings.TrimPrefix(ref, openapidefs.RefPrefix)]
	}
	return s
}

// LookupPatchMetadataForStruct implements strategicpatch.LookupPatchMeta.
func (m schemaPatchMeta) LookupPatchMetadataForStruct(key string) (strategicpatch.LookupPatchMeta, strategicpatch.PatchMeta, error) {
	c, pm := m.child(key)
	return c, pm, nil
}

// LookupPatchMetadataForSlice implements strategicpatch.LookupPatchMeta:
// the metadata of the list field key, and a lookup into its items.
func (m schemaPatchMeta) LookupPatchMetadataForSlice(key string) (strategicpatch.LookupPatchMeta, strategicpatch.PatchMeta, error) {
	c, pm := m.child(key)
	if s := m.resolve(c.s); s != nil && s.Items != nil && s.Items.Schema != nil {
		c.s = s.Items.Schema
	} else {
		c.s = nil
	}
	return c, pm, nil
}

// Name implements strategicpatch.LookupPatchMeta.
func (m schemaPatchMeta) Name() string {
	if s := m.resolve(m.s); s != nil && len(s.Type) > 0 {
		return strings.Join(s.Type, "")
	}
	return "Struct"
}
