// Package openapidefs holds the OpenAPI v3 component schemas of the
// well-known apimachinery types (metav1.ObjectMeta, Status, DeleteOptions,
// resource.Quantity, intstr.IntOrString, ...) and the naming rules shared by
// the openapi generator and the server.
//
// The schemas in schemas.json are taken from kube-apiserver's published
// OpenAPI v3 documents (kube-openapi testdata) and brought up to date with
// k8s.io/apimachinery v0.37: refs with siblings are wrapped in allOf (as
// kube-openapi's builder3 does), ListMeta.shardInfo and
// DeleteOptions.ignoreStoreReadErrorWithClusterBreakingPotential were added,
// and Quantity, IntOrString and RawExtension use the structural forms
// kube-apiserver serves for custom resources (x-kubernetes-int-or-string,
// x-kubernetes-preserve-unknown-fields).
package openapidefs

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"
)

// RefPrefix starts every schema reference.
const RefPrefix = "#/components/schemas/"

// Well-known schema names.
const (
	MetaV1          = "io.k8s.apimachinery.pkg.apis.meta.v1."
	ObjectMeta      = MetaV1 + "ObjectMeta"
	ListMeta        = MetaV1 + "ListMeta"
	Status          = MetaV1 + "Status"
	StatusDetails   = MetaV1 + "StatusDetails"
	StatusCause     = MetaV1 + "StatusCause"
	DeleteOptions   = MetaV1 + "DeleteOptions"
	Preconditions   = MetaV1 + "Preconditions"
	WatchEvent      = MetaV1 + "WatchEvent"
	Patch           = MetaV1 + "Patch"
	APIResourceList = MetaV1 + "APIResourceList"
	APIResource     = MetaV1 + "APIResource"
	Time            = MetaV1 + "Time"
	MicroTime       = MetaV1 + "MicroTime"
	Duration        = MetaV1 + "Duration"
	Condition       = MetaV1 + "Condition"
	FieldsV1        = MetaV1 + "FieldsV1"
	Quantity        = "io.k8s.apimachinery.pkg.api.resource.Quantity"
	IntOrString     = "io.k8s.apimachinery.pkg.util.intstr.IntOrString"
	RawExtension    = "io.k8s.apimachinery.pkg.runtime.RawExtension"
)

//go:embed schemas.json
var schemasJSON []byte

// commonRoots are the schemas the generic REST paths refer to.
var commonRoots = []string{
	Status, DeleteOptions, WatchEvent, Patch, APIResourceList, ListMeta, ObjectMeta,
}

// Name returns the component name of the Go type typeName declared in the
// package importPath, as kube-openapi names it: the first path element's
// domain reversed, "/" replaced by ".".
// Name("k8s.io/apimachinery/pkg/apis/meta/v1", "ObjectMeta") is
// "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta".
func Name(importPath, typeName string) string {
	parts := strings.Split(importPath, "/")
	if strings.Contains(parts[0], ".") {
		d := strings.Split(parts[0], ".")
		for i, j := 0, len(d)-1; i < j; i, j = i+1, j-1 {
			d[i], d[j] = d[j], d[i]
		}
		parts[0] = strings.Join(d, ".")
	}
	return strings.Join(parts, ".") + "." + typeName
}

// LocalName returns the component name of a type served in group/version:
// LocalName("shipping.kubeforge.dev", "v1", "Shipment") is
// "dev.kubeforge.shipping.v1.Shipment".
func LocalName(group, version, typeName string) string {
	d := strings.Split(group, ".")
	for i, j := 0, len(d)-1; i < j; i, j = i+1, j-1 {
		d[i], d[j] = d[j], d[i]
	}
	return strings.Join(d, ".") + "." + version + "." + typeName
}

// Ref returns the reference to the component name.
func Ref(name string) string { return RefPrefix + name }

// KnownSchemas returns every well-known schema by name (a fresh map each
// call; the values must not be modified).
func KnownSchemas() map[string]json.RawMessage {
	all, err := parsed()
	if err != nil {
		// schemas.json is checked by the package tests; an empty map makes
		// any caller's ref check fail loudly rather than panic.
		return map[string]json.RawMessage{}
	}
	out := make(map[string]json.RawMessage, len(all))
	for k, v := range all {
		out[k] = v
	}
	return out
}

// CommonSchemas returns the schemas the generic REST paths need (Status,
// StatusDetails, StatusCause, DeleteOptions, Preconditions, WatchEvent,
// Patch, APIResourceList, APIResource, ListMeta, ObjectMeta) together with
// every schema they refer to.
func CommonSchemas() map[string]json.RawMessage {
	out, err := Closure(KnownSchemas(), commonRoots...)
	if err != nil {
		return map[string]json.RawMessage{}
	}
	return out
}

// Known returns the well-known schema for the Go type typeName of package
// importPath, its component name, and whether there is one.
func Known(importPath, typeName string) (name string, schema json.RawMessage, ok bool) {
	name = Name(importPath, typeName)
	schema, ok = KnownSchemas()[name]
	return name, schema, ok
}

// Closure returns roots and every schema they reach through $ref, taken from
// all. A reference to a name missing from all is an error.
func Closure(all map[string]json.RawMessage, roots ...string) (map[string]json.RawMessage, error) {
	out := map[string]json.RawMessage{}
	queue := append([]string(nil), roots...)
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		if _, done := out[n]; done {
			continue
		}
		s, ok := all[n]
		if !ok {
			return nil, fmt.Errorf("resolve schema %q: not defined", n)
		}
		out[n] = s
		refs, err := Refs(s)
		if err != nil {
			return nil, fmt.Errorf("read refs of schema %q: %w", n, err)
		}
		queue = append(queue, refs...)
	}
	return out, nil
}

// Refs returns the component names schema refers to, sorted and without
// duplicates. A $ref that does not start with RefPrefix is an error.
func Refs(schema json.RawMessage) ([]string, error) {
	var v any
	if err := json.Unmarshal(schema, &v); err != nil {
		return nil, fmt.Errorf("decode schema: %w", err)
	}
	set := map[string]bool{}
	var walk func(any) error
	walk = func(v any) error {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				if k == "$ref" {
					s, _ := x.(string)
					if !strings.HasPrefix(s, RefPrefix) {
						return fmt.Errorf("unsupported $ref %q", s)
					}
					set[strings.TrimPrefix(s, RefPrefix)] = true
					continue
				}
				if err := walk(x); err != nil {
					return err
				}
			}
		case []any:
			for _, x := range v {
				if err := walk(x); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if err := walk(v); err != nil {
		return nil, err
	}
	out := make([]string, 0, len(set))
	for n := range set {
		out = append(out, n)
	}
	sort.Strings(out)
	return out, nil
}

var parsed = sync.OnceValues(parse)

func parse() (map[string]json.RawMessage, error) {
	var all map[string]json.RawMessage
	if err := json.Unmarshal(schemasJSON, &all); err != nil {
		return nil, fmt.Errorf("decode well-known schemas: %w", err)
	}
	return all, nil
}
