// Package builtin holds what kube-apiserver's registries do for built-in
// kinds beyond their OpenAPI schema (kube's defaulting, conversion and
// hand-written validation), as storage hooks: for core/v1 Secrets and
// ConfigMaps stringData merged into data, type Opaque by default, valid
// keys, the 1 MiB size limit, and the immutable field; for rbac/v1
// bindings the apiGroup defaults (rbac.go). validation.go holds the rest
// of kube's hand-written validation, which the generated Validate<Kind>
// calls (finalizer names, typed Secrets, Namespace and Lease specs).
package builtin

import (
	"context"
	"reflect"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kubeforge/kubeforge/runtime/storage"
)

// MaxDataBytes is kube's limit on the data of a Secret or ConfigMap.
const MaxDataBytes = 1 * 1024 * 1024

const immutableMsg = "field is immutable when `immutable` is set"

// SecretHooks are the storage hooks of core/v1 Secrets.
func SecretHooks() storage.Hooks[*corev1.Secret] {
	return storage.Hooks[*corev1.Secret]{
		PrepareForCreate: prepareSecret,
		PrepareForUpdate: func(_ context.Context, s, _ *corev1.Secret, _ string) { prepareSecret(s) },
		Admit: func(_ context.Context, s, old *corev1.Secret) error {
			errs := validateData(s.Data, nil)
			if old != nil {
				if s.Type != old.Type {
					errs = append(errs, field.Invalid(field.NewPath("type"), s.Type, "field is immutable"))
				}
				errs = append(errs, validateImmutable(old.Immutable, s.Immutable, reflect.DeepEqual(s.Data, old.Data), "data")...)
			}
			return invalid("Secret", s.Name, errs)
		},
	}
}

// prepareSecret merges stringData into data, as kube's conversion does
// (stringData wins and is never stored), and defaults the type.
func prepareSecret(s *corev1.Secret) {
	if len(s.StringData) > 0 {
		if s.Data == nil {
			s.Data = map[string][]byte{}
		}
		for k, v := range s.StringData {
			s.Data[k] = []byte(v)
		}
		s.StringData = nil
	}
	if s.Type == "" {
		s.Type = corev1.SecretTypeOpaque
	}
}

// ConfigMapHooks are the storage hooks of core/v1 ConfigMaps.
func ConfigMapHooks() storage.Hooks[*corev1.ConfigMap] {
	return storage.Hooks[*corev1.ConfigMap]{
		Admit: func(_ context.Context, c, old *corev1.ConfigMap) error {
			errs := validateData(nil, c.BinaryData)
			total := 0
			for k, v := range c.Data {
				total += len(v)
				for _, msg := range validation.IsConfigMapKey(k) {
					errs = append(errs, field.Invalid(field.NewPath("data").Key(k), k, msg))
				}
				if _, dup := c.BinaryData[k]; dup {
					errs = append(errs, field.Invalid(field.NewPath("data").Key(k), k, "duplicate of key present in binaryData"))
				}
			}
			for _, v := range c.BinaryData {
				total += len(v)
			}
			if total > MaxDataBytes {
				errs = append(errs, field.TooLong(field.NewPath(""), "", MaxDataBytes))
			}
			if old != nil {
				same := reflect.DeepEqual(c.Data, old.Data) && reflect.DeepEqual(c.BinaryData, old.BinaryData)
				errs = append(errs, validateImmutable(old.Immutable, c.Immutable, same, "data")...)
			}
			return invalid("ConfigMap", c.Name, errs)
		},
	}
}

// validateData checks a Secret's data (or a ConfigMap's binaryData: bin).
func validateData(data, bin map[string][]byte) field.ErrorList {
	var errs field.ErrorList
	p := field.NewPath("data")
	if bin != nil {
		p = field.NewPath("binaryData")
		data = bin
	}
	total := 0
	for k, v := range data {
		total += len(v)
		for _, msg := range validation.IsConfigMapKey(k) {
			errs = append(errs, field.Invalid(p.Key(k), k, msg))
		}
	}
	if bin == nil && total > MaxDataBytes {
		errs = append(errs, field.TooLong(p, "", MaxDataBytes))
	}
	return errs
}

func validateImmutable(oldImmutable, newImmutable *bool, sameData bool, dataField string) field.ErrorList {
	if oldImmutable == nil || !*oldImmutable {
		return nil
	}
	var errs field.ErrorList
	if newImmutable == nil || !*newImmutable {
		errs = append(errs, field.Forbidden(field.NewPath("immutable"), immutableMsg))
	}
	if !sameData {
		errs = append(errs, field.Forbidden(field.NewPath(dataField), immutableMsg))
	}
	return errs
}

func invalid(kind, name string, errs field.ErrorList) error {
	if len(errs) == 0 {
		return nil
	}
	return apierrors.NewInvalid(schema.GroupKind{Kind: kind}, name, errs)
}
