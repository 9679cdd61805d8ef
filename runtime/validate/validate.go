// Package validate holds the few helpers that generated validation code
// (generated/<group>/<version>/zz_generated.validation.go) calls. Everything
// else the generated code does inline, with typed comparisons, so reading it
// shows exactly what is checked.
//
// The user's kinds get the words kube-apiserver answers for a custom
// resource ("spec.size in body should be ...": InBody, FormatInBody);
// built-in kinds those of kube's declarative validation ("must be ...").
package validate

import (
	"encoding/json"
	"fmt"
	"math"

	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/kube-openapi/pkg/validation/strfmt"
)

// typeFormats are OpenAPI formats that describe a number's width or a
// UI hint: nothing to check on a Go value that already has its type.
var typeFormats = map[string]bool{
	"int32": true, "int64": true, "float": true, "double": true, "password": true,
}

// KnownFormat reports whether Format can check the OpenAPI string format
// name (the generators call it so that a typo fails at generation time).
func KnownFormat(format string) bool {
	return typeFormats[format] || strfmt.Default.ContainsName(normalizeFormat(format))
}

func normalizeFormat(format string) string {
	if format == "url" {
		return "uri"
	}
	return format
}

// Format checks value against an OpenAPI string format (email, uri, url,
// uuid, date-time, date, hostname, ipv4, ipv6, cidr, byte, duration, ...)
// the way kube-apiserver checks CRD fields: with kube-openapi's format
// registry. It returns an Invalid error naming the format, or nil.
func Format(fldPath *field.Path, value, format string) *field.Error {
	if typeFormats[format] {
		return nil
	}
	if strfmt.Default.Validates(normalizeFormat(format), value) {
		return nil
	}
	return field.Invalid(fldPath, value, "must be of type "+format)
}

// MultipleOf reports whether value is a multiple of factor (factor > 0),
// for floating point values; integers are checked inline with %.
func MultipleOf(value, factor float64) bool {
	q := value / factor
	return q == math.Trunc(q)
}

// Unique reports a Duplicate error at fldPath.Index(i) for every item that
// equals an earlier one (listType=set, uniqueItems).
func Unique[T comparable](fldPath *field.Path, items []T) field.ErrorList {
	return repeated(items, func(item *T) T { return *item }, func(i int, _ T) *field.Error {
		return field.Duplicate(fldPath.Index(i), items[i])
	})
}

// UniqueBy is Unique for items that are not comparable: key returns a
// comparable identity (the generated code passes a function over the
// item's fields).
func UniqueBy[T any, K comparable](fldPath *field.Path, items []T, key func(*T) K) field.ErrorList {
	return repeated(items, key, func(i int, _ K) *field.Error {
		return field.Duplicate(fldPath.Index(i), items[i])
	})
}

// MapKey checks the key of a listType=map list with one +listMapKey:
// every item's key must be unique. The Duplicate error names the key field
// of the repeated item (spec.parcels[1].name).
func MapKey[T any, K comparable](fldPath *field.Path, items []T, keyField string, key func(*T) K) field.ErrorList {
	return repeated(items, key, func(i int, k K) *field.Error {
		return field.Duplicate(fldPath.Index(i).Child(keyField), k)
	})
}

// MapKeyInBody is MapKey with the error kube-apiserver gives a custom
// resource: the repeated item, its key shown as an object
// (spec.docks[1]: Duplicate value: {"id":1}).
func MapKeyInBody[T any, K comparable](fldPath *field.Path, items []T, keyField string, key func(*T) K) field.ErrorList {
	return repeated(items, key, func(i int, k K) *field.Error {
		return field.Duplicate(fldPath.Index(i), map[string]any{keyField: k})
	})
}

// repeated calls dup for every item whose key an earlier item has.
func repeated[T any, K comparable](items []T, key func(*T) K, dup func(i int, k K) *field.Error) field.ErrorList {
	if len(items) < 2 {
		return nil
	}
	var errs field.ErrorList
	seen := make(map[K]bool, len(items))
	for i := range items {
		k := key(&items[i])
		if seen[k] {
			errs = append(errs, dup(i, k))
			continue
		}
		seen[k] = true
	}
	return errs
}

// MapKeys is MapKey for several +listMapKey fields: keyFields are their
// JSON names and key returns the item's values in the same order. The
// Duplicate error names the repeated item and shows its key as JSON
// (spec.ports[2]: Duplicate value: "{\"name\":\"http\",\"protocol\":\"TCP\"}").
func MapKeys[T any](fldPath *field.Path, items []T, keyFields []string, key func(*T) []any) field.ErrorList {
	return mapKeys(fldPath, items, keyFields, key, func(i int, k string, _ map[string]any) *field.Error {
		return field.Duplicate(fldPath.Index(i), k)
	})
}

// MapKeysInBody is MapKeys with the error kube-apiserver gives a custom
// resource: the key shown as an object, not a quoted string
// (spec.ports[2]: Duplicate value: {"name":"http","protocol":"TCP"}).
func MapKeysInBody[T any](fldPath *field.Path, items []T, keyFields []string, key func(*T) []any) field.ErrorList {
	return mapKeys(fldPath, items, keyFields, key, func(i int, _ string, m map[string]any) *field.Error {
		return field.Duplicate(fldPath.Index(i), m)
	})
}

func mapKeys[T any](fldPath *field.Path, items []T, keyFields []string, key func(*T) []any, dup func(i int, k string, m map[string]any) *field.Error) field.ErrorList {
	var errs field.ErrorList
	if len(items) < 2 {
		return nil
	}
	seen := make(map[string]bool, len(items))
	for i := range items {
		vals := key(&items[i])
		m := make(map[string]any, len(keyFields))
		for j, name := range keyFields {
			if j < len(vals) {
				m[name] = vals[j]
			}
		}
		// Key values are strings, numbers and booleans: encoding cannot fail.
		b, err := json.Marshal(m)
		if err != nil {
			errs = append(errs, field.InternalError(fldPath.Index(i), fmt.Errorf("encode list map key: %w", err)))
			continue
		}
		k := string(b)
		if seen[k] {
			errs = append(errs, dup(i, k, m))
			continue
		}
		seen[k] = true
	}
	return errs
}

// Properties counts the properties an object writes: set holds, for each
// JSON field, whether it is written (omitempty fields only when not empty).
// Generated code checks a struct's +kubebuilder:validation:MinProperties
// and MaxProperties with it, as a CRD counts the object's keys.
func Properties(set ...bool) int {
	n := 0
	for _, s := range set {
		if s {
			n++
		}
	}
	return n
}

// InBody is the Invalid error kube-apiserver's schema check gives a field
// of a custom resource: its detail names the field's path "in body"
// ("spec.size in body should be less than or equal to 10"), as
// kube-openapi words it.
func InBody(fldPath *field.Path, value any, detail string) *field.Error {
	return field.Invalid(fldPath, value, fldPath.String()+" in body "+detail)
}

// FormatInBody is Format with the error kube-apiserver gives a field of a
// custom resource: TypeInvalid, `spec.notify in body must be of type
// email: "x"`.
func FormatInBody(fldPath *field.Path, value, format string) *field.Error {
	if Format(fldPath, value, format) == nil {
		return nil
	}
	return field.TypeInvalid(fldPath, value, fmt.Sprintf("%s in body must be of type %s: %q", fldPath.String(), format, value))
}
