// Package conversion is the run-time helper of the generated conversion
// code: it keeps the fields a spoke version cannot express in an annotation
// of the spoke object, so a read-modify-write through an older version does
// not drop data only the hub (storage) version holds.
//
// The generated <Kind>FromHub calls Store with the hub-only fields (as a
// partial JSON object of the hub kind); the generated <Kind>ToHub calls Load,
// which removes the annotation and decodes it into a hub object whose fields
// are then restored. Objects read through the hub never carry the annotation.
package conversion

import (
	"encoding/json"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// DataAnnotation holds, on objects read through a non-storage version, the
// JSON of the storage-version fields that version cannot express.
const DataAnnotation = "kubeforge.dev/conversion-data"

// Store sets DataAnnotation on meta to the JSON of data, or removes it when
// data is empty.
func Store(meta *metav1.ObjectMeta, data map[string]any) error {
	if len(data) == 0 {
		Strip(meta)
		return nil
	}
	b, err := json.Marshal(data)
	if err != nil {
		return fmt.Errorf("store annotation %s: %w", DataAnnotation, err)
	}
	if meta.Annotations == nil {
		meta.Annotations = map[string]string{}
	}
	meta.Annotations[DataAnnotation] = string(b)
	return nil
}

// Load removes DataAnnotation from meta and decodes it into into (a pointer
// to a hub object) and into raw, the same JSON as nested maps and slices,
// which tells the generated restore code which fields were kept. It reports
// whether there was an annotation that decoded.
//
// A missing annotation and one that does not decode (a user deleted or
// garbled it) both report false: the hub-only fields then keep the values
// the conversion gave them, and no error reaches the user, as in Kubernetes
// where the annotation is best effort.
func Load(meta *metav1.ObjectMeta, into any) (raw map[string]any, ok bool) {
	s, found := meta.Annotations[DataAnnotation]
	if !found {
		return nil, false
	}
	Strip(meta)
	if err := json.Unmarshal([]byte(s), into); err != nil {
		return nil, false
	}
	if err := json.Unmarshal([]byte(s), &raw); err != nil || raw == nil {
		return nil, false
	}
	return raw, true
}

// Object returns raw[key] when it is a JSON object, else nil.
func Object(raw map[string]any, key string) map[string]any {
	m, _ := raw[key].(map[string]any)
	return m
}

// Items returns raw[key] when it is a JSON array, else nil.
func Items(raw map[string]any, key string) []any {
	a, _ := raw[key].([]any)
	return a
}

// Item returns items[i] when it is a JSON object, else nil.
func Item(items []any, i int) map[string]any {
	if i < 0 || i >= len(items) {
		return nil
	}
	m, _ := items[i].(map[string]any)
	return m
}

// Has reports whether raw has key.
func Has(raw map[string]any, key string) bool {
	_, ok := raw[key]
	return ok
}

// Strip removes DataAnnotation from meta; an annotation map left empty
// becomes nil.
func Strip(meta *metav1.ObjectMeta) {
	if _, ok := meta.Annotations[DataAnnotation]; !ok {
		return
	}
	delete(meta.Annotations, DataAnnotation)
	if len(meta.Annotations) == 0 {
		meta.Annotations = nil
	}
}
