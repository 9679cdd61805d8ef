package storage

import (
	"encoding/json"
	"reflect"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kubeforge/kubeforge/runtime/jsonencode"
)

// ratchet drops the validation errors of an update whose value is the same
// in the old object: CRD validation ratcheting, on by default in
// kube-apiserver since 1.30. An object stored under earlier rules, or
// written through another served version whose rules differ, can then be
// updated as long as the update leaves its invalid values alone; a changed
// value is held to the rules. A value absent from both objects is judged
// by the nearest object that holds it in either, as kube judges a
// required field by the object that requires it: unchanged, the error is
// dropped (a field a newer rule requires), new or changed (a list item
// the update adds), it is kept. Errors without a field path are kept. It
// compares the objects' JSON, so it costs nothing unless there are
// errors.
func ratchet(errs field.ErrorList, oldObj, newObj any) field.ErrorList {
	if len(errs) == 0 || oldObj == nil {
		return errs
	}
	oldJSON, newJSON := asJSON(oldObj), asJSON(newObj)
	if oldJSON == nil || newJSON == nil {
		return errs
	}
	var out field.ErrorList
	for _, e := range errs {
		segs, ok := parseFieldPath(e.Field)
		if ok {
			ov, oldHas := lookup(oldJSON, segs)
			nv, newHas := lookup(newJSON, segs)
			for up := len(segs) - 1; !oldHas && !newHas && up >= 0; up-- {
				ov, oldHas = lookup(oldJSON, segs[:up])
				nv, newHas = lookup(newJSON, segs[:up])
			}
			if oldHas == newHas && reflect.DeepEqual(ov, nv) {
				continue
			}

		}
		out = append(out, e)
	}
	return out
}

func asJSON(obj any) any {
	data, err := jsonencode.Marshal(obj)
	if err != nil {
		return nil
	}
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		return nil
	}
	return v
}

// pathSeg is one step of a field path: a field name, a list index or a
// map key.
type pathSeg struct {
	name  string
	index int
	key   string
	kind  byte // 'f' field, 'i' index, 'k' key
}

// parseFieldPath reads field.Path's String form: spec.parcels[0].name,
// metadata.labels[app].
func parseFieldPath(p string) ([]pathSeg, bool) {
	if p == "" || p == "<nil>" {
		return nil, false
	}
	var out []pathSeg
	for p != "" {
		switch p[0] {
		case '.':
			p = p[1:]
		case '[':
			end := strings.IndexByte(p, ']')
			if end < 0 {
				return nil, false
			}
			inner := p[1:end]
			if n, err := strconv.Atoi(inner); err == nil {
				out = append(out, pathSeg{kind: 'i', index: n})
			} else {
				out = append(out, pathSeg{kind: 'k', key: inner})
			}
			p = p[end+1:]
		default:
			end := strings.IndexAny(p, ".[")
			if end < 0 {
				end = len(p)
			}
			out = append(out, pathSeg{kind: 'f', name: p[:end]})
			p = p[end:]
		}
	}
	return out, len(out) > 0
}

// lookup follows segs through decoded JSON.
func lookup(v any, segs []pathSeg) (any, bool) {
	for _, s := range segs {
		switch s.kind {
		case 'f', 'k':
			m, ok := v.(map[string]any)
			if !ok {
				return nil, false
			}
			k := s.name
			if s.kind == 'k' {
				k = s.key
			}
			if v, ok = m[k]; !ok {
				return nil, false
			}
		case 'i':
			l, ok := v.([]any)
			if !ok || s.index < 0 || s.index >= len(l) {
				return nil, false
			}
			v = l[s.index]
		}
	}
	return v, true
}
