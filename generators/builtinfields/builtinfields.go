// Package builtinfields holds kube-apiserver's field selectors of the
// built-in Kubernetes kinds kubeforge can serve from k8s.io/api packages
// (declared with +kubeforge:external in types/doc.go): which labels list,
// watch and deletecollection accept in fieldSelector, and how each label's
// value is read from an object.
//
// Custom resources declare theirs with +kubebuilder:selectablefield. Built-in
// kinds have no such markers: kube-apiserver registers a field label
// conversion per kind (k8s.io/kubernetes pkg/apis/<group>/<version>,
// AddFieldLabelConversionsFor<Kind>) and reads the values with the kind's
// ToSelectableFields (pkg/registry/<group>/<kind>/strategy.go). This package
// describes, per import path and kind, the same labels and the Go code of
// their values, written here from those documented behaviours:
//
//	k8s.io/api/core/v1 Event        involvedObject.{kind,namespace,name,uid,
//	                                apiVersion,resourceVersion,fieldPath},
//	                                reason, reportingComponent, source, type
//	k8s.io/api/events/v1 Event      regarding.{kind,namespace,name,uid,
//	                                apiVersion,resourceVersion,fieldPath},
//	                                reason, reportingController, source, type
//	                                (kube-apiserver maps them onto the core
//	                                Event's: one storage serves both)
//	k8s.io/api/core/v1 Namespace    status.phase
//	k8s.io/api/core/v1 Secret       type
//	k8s.io/api/core/v1 Service      spec.clusterIP, spec.type
//
// metadata.name, and metadata.namespace for a namespaced kind, are always
// selectable and not listed. An event's source is source.component
// (deprecatedSource.component), else its reportingController, as in
// kube-apiserver.
//
// The register generator writes the labels into the kind's
// resource.Info.SelectableFields and the storage generator the values: one
// function per kind, <kind>SelectableFields, set as the Strategy's
// SelectableFields. A built-in kind without a table here gets
// kube-apiserver's default field label conversion
// (resource.Info.DefaultFieldLabelConversion): metadata.name and
// metadata.namespace only.
package builtinfields

import (
	"fmt"
	"sort"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/kubeforge/kubeforge/generators/model"
)

const (
	corev1Pkg   = "k8s.io/api/core/v1"
	eventsv1Pkg = "k8s.io/api/events/v1"
)

// Field is one selectable field of a built-in kind.
type Field struct {
	// Label is the field selector label ("involvedObject.name").
	Label string
	// Reads lists the Go field paths the value reads ("InvolvedObject.Name").
	// The generator checks them against the loaded kind, so a k8s.io/api
	// change fails generation naming the field instead of failing to
	// compile the generated code.
	Reads []string
	// value returns statements to run first (may be nil) and an expression
	// of type string: the label's value for obj.
	value func(obj *jen.Statement) (pre []jen.Code, v jen.Code)
}

// Table is kube-apiserver's selectable fields of one built-in kind.
type Table struct {
	// Package and Kind identify the kind: "k8s.io/api/core/v1", "Event".
	Package string
	Kind    string
	// Fields besides metadata.name and metadata.namespace, sorted by label.
	Fields []Field
}

// Labels returns the labels of the table's fields, sorted.
func (t *Table) Labels() []string {
	out := make([]string, len(t.Fields))
	for i, f := range t.Fields {
		out[i] = f.Label
	}
	sort.Strings(out)
	return out
}

// For returns the table of k, or nil when k is not a kind of an external
// package with a table here. An error means the kind lacks a field the
// table reads.
func For(k *model.Kind) (*Table, error) {
	if k.Version == nil || !k.Version.External {
		return nil, nil
	}
	t := lookup(k.Version.Package, k.Name)
	if t == nil {
		return nil, nil
	}
	if k.Type == nil {
		return nil, fmt.Errorf("kube-apiserver's selectable fields of %s %s: the kind has no type", k.Version.Package, k.Name)
	}
	for _, f := range t.Fields {
		for _, p := range f.Reads {
			if err := model.CheckGoPath(k.Type.Fields, p); err != nil {
				return nil, fmt.Errorf("kube-apiserver's selectable field %s of %s %s reads %s: %w", f.Label, k.Version.Package, k.Name, p, err)
			}
		}
	}
	return t, nil
}

func lookup(pkg, kind string) *Table {
	for _, t := range tables {
		if t.Package == pkg && t.Kind == kind {
			return t
		}
	}
	return nil
}

// Tables returns every table, sorted by package and kind (documentation
// and tests).
func Tables() []*Table {
	out := append([]*Table(nil), tables...)
	sort.Slice(out, func(i, j int) bool {
		if out[i].Package != out[j].Package {
			return out[i].Package < out[j].Package
		}
		return out[i].Kind < out[j].Kind
	})
	return out
}

// Values returns, for obj, the statements to run first and one string
// expression per field of t, in the order of t.Fields.
func (t *Table) Values(obj *jen.Statement) (pre []jen.Code, values []jen.Code) {
	for _, f := range t.Fields {
		p, v := f.value(obj)
		pre = append(pre, p...)
		values = append(values, v)
	}
	return pre, values
}

func dot(obj *jen.Statement, path string) *jen.Statement {
	s := obj.Clone()
	for _, p := range strings.Split(path, ".") {
		s = s.Dot(p)
	}
	return s
}

// str is a field of type string.
func str(label, path string) Field {
	return Field{Label: label, Reads: []string{path}, value: func(obj *jen.Statement) ([]jen.Code, jen.Code) {
		return nil, dot(obj, path)
	}}
}

// named is a field of a named string type (types.UID, NamespacePhase).
func named(label, path string) Field {
	return Field{Label: label, Reads: []string{path}, value: func(obj *jen.Statement) ([]jen.Code, jen.Code) {
		return nil, jen.String().Call(dot(obj, path))
	}}
}

// source is an event's source component, else its reporting controller
// (kube-apiserver's Event ToSelectableFields).
func source(component string) Field {
	return Field{Label: "source", Reads: []string{component, "ReportingController"}, value: func(obj *jen.Statement) ([]jen.Code, jen.Code) {
		v := jen.Id("source")
		return []jen.Code{
			jen.Comment("source: the source component, else the reporting controller."),
			v.Clone().Op(":=").Add(dot(obj, component)),
			jen.If(v.Clone().Op("==").Lit("")).Block(v.Clone().Op("=").Add(dot(obj, "ReportingController"))),
		}, v
	}}
}

// reference is the object reference fields of an event: involvedObject
// (core/v1) or regarding (events.k8s.io/v1).
func reference(prefix, goField string) []Field {
	return []Field{
		str(prefix+".apiVersion", goField+".APIVersion"),
		str(prefix+".fieldPath", goField+".FieldPath"),
		str(prefix+".kind", goField+".Kind"),
		str(prefix+".name", goField+".Name"),
		str(prefix+".namespace", goField+".Namespace"),
		str(prefix+".resourceVersion", goField+".ResourceVersion"),
		named(prefix+".uid", goField+".UID"),
	}
}

func sorted(fs ...[]Field) []Field {
	var out []Field
	for _, f := range fs {
		out = append(out, f...)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Label < out[j].Label })
	return out
}

var tables = []*Table{
	{
		// kube-apiserver: core/v1 AddFieldLabelConversionsForEvent and the
		// Event registry's ToSelectableFields.
		Package: corev1Pkg, Kind: "Event",
		Fields: sorted(reference("involvedObject", "InvolvedObject"), []Field{
			str("reason", "Reason"),
			str("reportingComponent", "ReportingController"),
			source("Source.Component"),
			str("type", "Type"),
		}),
	},
	{
		// kube-apiserver: events/v1 AddFieldLabelConversionsForEvent maps
		// these labels onto the core Event's (regarding.* onto
		// involvedObject.*, reportingController onto reportingComponent).
		Package: eventsv1Pkg, Kind: "Event",
		Fields: sorted(reference("regarding", "Regarding"), []Field{
			str("reason", "Reason"),
			str("reportingController", "ReportingController"),
			source("DeprecatedSource.Component"),
			str("type", "Type"),
		}),
	},
	{
		// kube-apiserver: core/v1 AddFieldLabelConversionsForNamespace (its
		// field set also has a legacy "name" that no conversion accepts).
		Package: corev1Pkg, Kind: "Namespace",
		Fields: []Field{named("status.phase", "Status.Phase")},
	},
	{
		// kube-apiserver: core/v1 AddFieldLabelConversionsForSecret.
		Package: corev1Pkg, Kind: "Secret",
		Fields: []Field{named("type", "Type")},
	},
	{
		// kube-apiserver: core/v1 AddFieldLabelConversionsForService.
		Package: corev1Pkg, Kind: "Service",
		Fields: []Field{str("spec.clusterIP", "Spec.ClusterIP"), named("spec.type", "Spec.Type")},
	},
}
