// Package builtinprinters holds kube-apiserver's tables (what `kubectl get`
// prints) of the built-in Kubernetes kinds kubeforge can serve from k8s.io/api
// packages (declared with +kubeforge:external in types/doc.go).
//
// Custom resources get their columns from +kubebuilder:printcolumn markers,
// after a Name column the runtime adds. Built-in kinds have no such markers:
// kube-apiserver prints them with hand-written printers
// (k8s.io/kubernetes/pkg/printers/internalversion). This package describes,
// per import path and kind, the same columns (names, types, priorities,
// descriptions, the name column where kube puts it) and the Go code of the
// cells, written here from kube-apiserver's documented output:
//
//	k8s.io/api/core/v1 Namespace          NAME STATUS AGE
//	k8s.io/api/core/v1 ConfigMap          NAME DATA AGE
//	k8s.io/api/core/v1 Secret             NAME TYPE DATA AGE
//	k8s.io/api/core/v1 Event              LAST SEEN TYPE REASON OBJECT MESSAGE
//	k8s.io/api/events/v1 Event            (the same table: kube-apiserver
//	                                      serves both from one storage)
//	k8s.io/api/coordination/v1 Lease      NAME HOLDER AGE
//	k8s.io/api/core/v1 ServiceAccount     NAME AGE
//	k8s.io/api/rbac/v1 RoleBinding        NAME ROLE AGE
//	k8s.io/api/rbac/v1 ClusterRoleBinding NAME ROLE AGE
//
// Bindings also have wide columns: USERS, GROUPS and SERVICEACCOUNTS.
// Events also have wide columns (priority 1, `kubectl get -o wide`):
// SUBOBJECT and SOURCE between OBJECT and MESSAGE, then FIRST SEEN, COUNT
// and NAME. As in kube-apiserver, times are ages computed when the table is
// built ("5m", "<unknown>" for a zero time) in columns of type string.
//
// The register generator writes the columns into the kind's resource.Info
// (with PrinterColumnsWithName) and the storage generator the cells: one
// function per kind, <kind>PrinterCells, set as the Strategy's PrinterCells,
// and the helpers those call, once per generated package. A built-in kind
// without a table here keeps the runtime's NAME and CREATED AT.
package builtinprinters

import (
	"fmt"
	"sort"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/kubeforge/kubeforge/generators/model"
)

const (
	corev1Pkg         = "k8s.io/api/core/v1"
	eventsv1Pkg       = "k8s.io/api/events/v1"
	coordinationv1Pkg = "k8s.io/api/coordination/v1"
	rbacv1Pkg         = "k8s.io/api/rbac/v1"
	metav1Pkg         = "k8s.io/apimachinery/pkg/apis/meta/v1"
	durationPkg       = "k8s.io/apimachinery/pkg/util/duration"
	stringsPkg        = "strings"
	timePkg           = "time"
)

// Column is one column definition of kube-apiserver's table.
type Column struct {
	Name     string
	Type     string // "string" or "integer"; kube prints ages as strings
	Format   string // "name" for the object's name
	Priority int32  // 1: shown by -o wide only
	// Description is a Go expression of type string: the description
	// kube-apiserver gives the column (mostly the SwaggerDoc of the field).
	Description jen.Code
}

// Table is kube-apiserver's table of one built-in kind.
type Table struct {
	// Package and Kind identify the kind: "k8s.io/api/core/v1", "Namespace".
	Package string
	Kind    string
	// Columns in kube-apiserver's order, the name column included.
	Columns []Column
	// Reads lists the Go field paths outside metadata that the cells read
	// ("Status.Phase"). The generator checks them against the loaded kind,
	// so a k8s.io/api change fails generation naming the field instead of
	// failing to compile the generated code.
	Reads []string
	// cells returns the body of func(obj *Kind) []any: statements ending in
	// a return of one cell per column. It may call the helpers in uses.
	cells func(obj *jen.Statement) []jen.Code
	uses  []string
}

// For returns the table of k, or nil when k is not a kind of an external
// package with a table here, or has printer columns of its own. An error
// means the kind lacks a field the table reads.
func For(k *model.Kind) (*Table, error) {
	if k.Version == nil || !k.Version.External || len(k.PrinterColumns) > 0 {
		return nil, nil
	}
	t := lookup(k.Version.Package, k.Name)
	if t == nil {
		return nil, nil
	}
	if k.Type == nil {
		return nil, fmt.Errorf("kube-apiserver's table of %s %s: the kind has no type", k.Version.Package, k.Name)
	}
	for _, p := range t.Reads {
		if err := model.CheckGoPath(k.Type.Fields, p); err != nil {
			return nil, fmt.Errorf("kube-apiserver's table of %s %s reads %s: %w", k.Version.Package, k.Name, p, err)
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

// RowFunc is the name of the generated function that returns k's cells.
func RowFunc(k *model.Kind) string {
	return strings.ToLower(k.Name[:1]) + k.Name[1:] + "PrinterCells"
}

// Row writes the function RowFunc(k) of table t.
func Row(k *model.Kind, t *Table) jen.Code {
	var cols, wide []string
	for _, c := range t.Columns {
		if c.Priority > 0 {
			wide = append(wide, strings.ToUpper(c.Name))
			continue
		}
		cols = append(cols, strings.ToUpper(c.Name))
	}
	article := "a"
	if strings.ContainsRune("AEIOU", rune(k.Name[0])) {
		article = "an"
	}
	doc := jen.Commentf("%s returns kube-apiserver's table row of %s %s:", RowFunc(k), article, k.Name).Line().
		Commentf("%s.", strings.Join(cols, ", ")).Line()
	if len(wide) > 0 {
		doc.Commentf("With -o wide also %s.", strings.Join(wide, ", ")).Line()
	}
	return doc.Func().Id(RowFunc(k)).Params(jen.Id("obj").Op("*").Qual(k.Version.Package, k.Name)).Index().Any().
		Block(t.cells(jen.Id("obj"))...)
}

// Helpers writes the helper functions the given tables call, each once,
// sorted by name.
func Helpers(ts []*Table) []jen.Code {
	used := map[string]bool{}
	for _, t := range ts {
		for _, u := range t.uses {
			used[u] = true
		}
	}
	var names []string
	for n := range used {
		names = append(names, n)
	}
	sort.Strings(names)
	var out []jen.Code
	for _, n := range names {
		out = append(out, helpers[n]())
	}
	return out
}

// ageFunc formats a timestamp as kube-apiserver does in tables.
const ageFunc = "printerAge"

// subjectsFunc lists a binding's subjects by kind, as kube-apiserver
// prints them.
const subjectsFunc = "printerSubjects"

var helpers = map[string]func() jen.Code{
	subjectsFunc: func() jen.Code {
		users, groups, sas := jen.Id("users"), jen.Id("groups"), jen.Id("serviceAccounts")
		join := func(l *jen.Statement) *jen.Statement { return jen.Qual(stringsPkg, "Join").Call(l, jen.Lit(", ")) }
		return jen.Commentf("%s is a binding's users, groups and ServiceAccounts", subjectsFunc).Line().
			Comment(`("<namespace>/<name>"), each joined with ", ", as kube-apiserver prints them.`).Line().
			Func().Id(subjectsFunc).Params(jen.Id("subjects").Index().Qual(rbacv1Pkg, "Subject")).Params(jen.String(), jen.String(), jen.String()).Block(
			jen.Var().List(users, groups, sas).Index().String(),
			jen.For(jen.List(jen.Id("_"), jen.Id("s")).Op(":=").Range().Id("subjects")).Block(
				jen.Switch(jen.Id("s").Dot("Kind")).Block(
					jen.Case(jen.Qual(rbacv1Pkg, "ServiceAccountKind")).Block(
						sas.Clone().Op("=").Append(sas, jen.Id("s").Dot("Namespace").Op("+").Lit("/").Op("+").Id("s").Dot("Name"))),
					jen.Case(jen.Qual(rbacv1Pkg, "UserKind")).Block(users.Clone().Op("=").Append(users, jen.Id("s").Dot("Name"))),
					jen.Case(jen.Qual(rbacv1Pkg, "GroupKind")).Block(groups.Clone().Op("=").Append(groups, jen.Id("s").Dot("Name"))),
				),
			),
			jen.Return(join(users), join(groups), join(sas)),
		)
	},
	ageFunc: func() jen.Code {
		return jen.Commentf("%s is a timestamp as kube-apiserver prints it in tables: the time", ageFunc).Line().
			Comment(`since t ("5m", "3d"), or "<unknown>" when t is zero.`).Line().
			Func().Id(ageFunc).Params(jen.Id("t").Qual(timePkg, "Time")).String().Block(
			jen.If(jen.Id("t").Dot("IsZero").Call()).Block(jen.Return(jen.Lit("<unknown>"))),
			jen.Return(jen.Qual(durationPkg, "HumanDuration").Call(jen.Qual(timePkg, "Since").Call(jen.Id("t")))),
		)
	},
}

// Description expressions.

func swaggerDoc(pkg, typ, field string) jen.Code {
	return jen.Qual(pkg, typ).Values().Dot("SwaggerDoc").Call().Index(jen.Lit(field))
}

func nameColumn(priority int32) Column {
	return Column{Name: "Name", Type: "string", Format: "name", Priority: priority, Description: swaggerDoc(metav1Pkg, "ObjectMeta", "name")}
}

func ageColumn() Column {
	return Column{Name: "Age", Type: "string", Description: swaggerDoc(metav1Pkg, "ObjectMeta", "creationTimestamp")}
}

// Cell expressions.

func field(obj *jen.Statement, path ...string) *jen.Statement {
	s := obj.Clone()
	for _, p := range path {
		s = s.Dot(p)
	}
	return s
}

// age is printerAge(<t>.Time) for a metav1.Time or metav1.MicroTime t.
func age(t *jen.Statement) *jen.Statement {
	return jen.Id(ageFunc).Call(t.Clone().Dot("Time"))
}

func creationAge(obj *jen.Statement) *jen.Statement {
	return age(field(obj, "CreationTimestamp"))
}

// returnCells is return []any{...}, one cell a line.
func returnCells(cells ...jen.Code) jen.Code {
	return jen.Return(jen.Index().Any().ValuesFunc(func(g *jen.Group) {
		for _, c := range cells {
			g.Line().Add(c)
		}
		g.Line()
	}))
}

var tables = []*Table{
	{
		Package: corev1Pkg, Kind: "Namespace",
		Columns: []Column{
			nameColumn(0),
			{Name: "Status", Type: "string", Description: jen.Lit("The status of the namespace")},
			ageColumn(),
		},
		Reads: []string{"Status.Phase"},
		cells: func(obj *jen.Statement) []jen.Code {
			return []jen.Code{returnCells(
				field(obj, "Name"),
				jen.String().Call(field(obj, "Status", "Phase")),
				creationAge(obj),
			)}
		},
		uses: []string{ageFunc},
	},
	{
		Package: corev1Pkg, Kind: "ConfigMap",
		Columns: []Column{
			nameColumn(0),
			{Name: "Data", Type: "string", Description: swaggerDoc(corev1Pkg, "ConfigMap", "data")},
			ageColumn(),
		},
		Reads: []string{"Data", "BinaryData"},
		cells: func(obj *jen.Statement) []jen.Code {
			return []jen.Code{returnCells(
				field(obj, "Name"),
				jen.Int64().Call(jen.Len(field(obj, "Data")).Op("+").Len(field(obj, "BinaryData"))),
				creationAge(obj),
			)}
		},
		uses: []string{ageFunc},
	},
	{
		Package: corev1Pkg, Kind: "Secret",
		Columns: []Column{
			nameColumn(0),
			{Name: "Type", Type: "string", Description: swaggerDoc(corev1Pkg, "Secret", "type")},
			{Name: "Data", Type: "string", Description: swaggerDoc(corev1Pkg, "Secret", "data")},
			ageColumn(),
		},
		Reads: []string{"Type", "Data"},
		cells: func(obj *jen.Statement) []jen.Code {
			return []jen.Code{returnCells(
				field(obj, "Name"),
				jen.String().Call(field(obj, "Type")),
				jen.Int64().Call(jen.Len(field(obj, "Data"))),
				creationAge(obj),
			)}
		},
		uses: []string{ageFunc},
	},
	{
		Package: coordinationv1Pkg, Kind: "Lease",
		Columns: []Column{
			nameColumn(0),
			{Name: "Holder", Type: "string", Description: swaggerDoc(coordinationv1Pkg, "LeaseSpec", "holderIdentity")},
			ageColumn(),
		},
		Reads: []string{"Spec.HolderIdentity"},
		cells: func(obj *jen.Statement) []jen.Code {
			holder := field(obj, "Spec", "HolderIdentity")
			return []jen.Code{
				jen.Id("holder").Op(":=").Lit(""),
				jen.If(holder.Clone().Op("!=").Nil()).Block(jen.Id("holder").Op("=").Op("*").Add(holder)),
				returnCells(field(obj, "Name"), jen.Id("holder"), creationAge(obj)),
			}
		},
		uses: []string{ageFunc},
	},
	{
		Package: corev1Pkg, Kind: "ServiceAccount",
		Columns: []Column{nameColumn(0), ageColumn()},
		cells: func(obj *jen.Statement) []jen.Code {
			return []jen.Code{returnCells(field(obj, "Name"), creationAge(obj))}
		},
		uses: []string{ageFunc},
	},
	bindingTable("RoleBinding", "roleBinding"),
	bindingTable("ClusterRoleBinding", "clusterRoleBinding"),
	eventTable(corev1Pkg, eventFields{
		involved: "InvolvedObject", message: "Message", source: "Source",
		first: "FirstTimestamp", last: "LastTimestamp", count: "Count",
	}),
	eventTable(eventsv1Pkg, eventFields{
		involved: "Regarding", message: "Note", source: "DeprecatedSource",
		first: "DeprecatedFirstTimestamp", last: "DeprecatedLastTimestamp", count: "DeprecatedCount",
	}),
}

// bindingTable is kube-apiserver's table of a RoleBinding or
// ClusterRoleBinding: ROLE is <kind>/<name>; the wide columns list the
// subjects by kind (ServiceAccounts as <namespace>/<name>).
func bindingTable(kind, noun string) *Table {
	return &Table{
		Package: rbacv1Pkg, Kind: kind,
		Columns: []Column{
			nameColumn(0),
			{Name: "Role", Type: "string", Description: swaggerDoc(rbacv1Pkg, kind, "roleRef")},
			ageColumn(),
			{Name: "Users", Type: "string", Priority: 1, Description: jen.Lit("Users in the " + noun)},
			{Name: "Groups", Type: "string", Priority: 1, Description: jen.Lit("Groups in the " + noun)},
			{Name: "ServiceAccounts", Type: "string", Priority: 1, Description: jen.Lit("ServiceAccounts in the " + noun)},
		},
		Reads: []string{"RoleRef.Kind", "RoleRef.Name", "Subjects"},
		cells: func(obj *jen.Statement) []jen.Code {
			users, groups, sas := jen.Id("users"), jen.Id("groups"), jen.Id("serviceAccounts")
			return []jen.Code{
				jen.List(users, groups, sas).Op(":=").Id(subjectsFunc).Call(field(obj, "Subjects")),
				returnCells(
					field(obj, "Name"),
					field(obj, "RoleRef", "Kind").Op("+").Lit("/").Op("+").Add(field(obj, "RoleRef", "Name")),
					creationAge(obj), users, groups, sas,
				),
			}
		},
		uses: []string{ageFunc, subjectsFunc},
	}
}

// eventFields names the fields of an Event that differ between core/v1 and
// events.k8s.io/v1 (which kube-apiserver converts to one internal Event
// before printing it).
type eventFields struct {
	involved, message, source, first, last, count string
}

// eventTable is kube-apiserver's Event table. The descriptions are core/v1's
// for both groups, as kube-apiserver prints both through one printer.
func eventTable(pkg string, f eventFields) *Table {
	doc := func(name string) jen.Code { return swaggerDoc(corev1Pkg, "Event", name) }
	return &Table{
		Package: pkg, Kind: "Event",
		Columns: []Column{
			{Name: "Last Seen", Type: "string", Description: doc("lastTimestamp")},
			{Name: "Type", Type: "string", Description: doc("type")},
			{Name: "Reason", Type: "string", Description: doc("reason")},
			{Name: "Object", Type: "string", Description: doc("involvedObject")},
			{Name: "Subobject", Type: "string", Priority: 1, Description: swaggerDoc(corev1Pkg, "ObjectReference", "fieldPath")},
			{Name: "Source", Type: "string", Priority: 1, Description: doc("source")},
			{Name: "Message", Type: "string", Description: doc("message")},
			{Name: "First Seen", Type: "string", Priority: 1, Description: doc("firstTimestamp")},
			{Name: "Count", Type: "string", Priority: 1, Description: doc("count")},
			nameColumn(1),
		},
		Reads: []string{
			f.first, f.last, f.count, f.message, "EventTime", "Type", "Reason",
			"Series.LastObservedTime", "Series.Count",
			f.involved + ".Kind", f.involved + ".Name", f.involved + ".FieldPath",
			f.source + ".Component", f.source + ".Host", "ReportingController", "ReportingInstance",
		},
		cells: func(obj *jen.Statement) []jen.Code {
			o := func(path ...string) *jen.Statement { return field(obj, path...) }
			firstSeen, lastSeen, count := jen.Id("firstSeen"), jen.Id("lastSeen"), jen.Id("count")
			object, source, instance := jen.Id("object"), jen.Id("source"), jen.Id("instance")
			return []jen.Code{
				jen.Commentf("FIRST SEEN: %s, else eventTime.", lowerFirst(f.first)),
				firstSeen.Clone().Op(":=").Add(age(o(f.first))),
				jen.If(o(f.first, "IsZero").Call()).Block(firstSeen.Clone().Op("=").Add(age(o("EventTime")))),
				jen.Commentf("LAST SEEN: %s, else FIRST SEEN; a series' last observation wins.", lowerFirst(f.last)),
				lastSeen.Clone().Op(":=").Add(age(o(f.last))),
				jen.If(o(f.last, "IsZero").Call()).Block(lastSeen.Clone().Op("=").Add(firstSeen)),
				count.Clone().Op(":=").Add(o(f.count)),
				jen.If(o("Series").Op("!=").Nil()).Block(
					lastSeen.Clone().Op("=").Add(age(o("Series", "LastObservedTime"))),
					count.Clone().Op("=").Add(o("Series", "Count")),
				).Else().If(count.Clone().Op("==").Lit(0)).Block(
					jen.Comment("A singleton event of the events.k8s.io API has no count."),
					count.Clone().Op("=").Lit(1),
				),
				jen.Comment("OBJECT: <lowercased kind>/<name> of the object the event is about."),
				object.Clone().Op(":=").Qual(stringsPkg, "ToLower").Call(o(f.involved, "Kind")),
				jen.If(o(f.involved, "Name").Op("!=").Lit("")).Block(
					object.Clone().Op("+=").Lit("/").Op("+").Add(o(f.involved, "Name")),
				),
				jen.Comment(`SOURCE: "<component>, <host>", each else the reporting controller and instance.`),
				source.Clone().Op(":=").Add(o(f.source, "Component")),
				jen.If(source.Clone().Op("==").Lit("")).Block(source.Clone().Op("=").Add(o("ReportingController"))),
				instance.Clone().Op(":=").Add(o(f.source, "Host")),
				jen.If(instance.Clone().Op("==").Lit("")).Block(instance.Clone().Op("=").Add(o("ReportingInstance"))),
				jen.If(instance.Clone().Op("!=").Lit("")).Block(source.Clone().Op("+=").Lit(", ").Op("+").Add(instance)),
				returnCells(
					lastSeen, o("Type"), o("Reason"), object, o(f.involved, "FieldPath"), source,
					jen.Qual(stringsPkg, "TrimSpace").Call(o(f.message)), firstSeen, jen.Int64().Call(count), o("Name"),
				),
			}
		},
		uses: []string{ageFunc},
	}
}

func lowerFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}
