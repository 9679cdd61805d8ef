// Package apidocs writes the API reference of the user's groups:
// docs/api/<group>.md, one Markdown page per group with every served
// version, kind and type, and for each field its JSON name, linked type,
// whether it is required, its default, its validation (CEL rules included)
// and its doc comment, in the layout of the Kubernetes API reference.
//
// It reads only the model: what the page says a field accepts is what the
// generated defaults, validation and OpenAPI enforce, because all of them
// come from the same resolved markers.
package apidocs

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/kubeforge/kubeforge/generators/genall"
	"github.com/kubeforge/kubeforge/generators/model"
)

// Dir is where the pages are written, relative to the module root.
const Dir = "docs/api"

// Generator writes one page per owned group.
type Generator struct{}

// Name implements genall.Generator.
func (Generator) Name() string { return "apidocs" }

// Generate implements genall.Generator. Groups of packages the user does
// not own (k8s.io/api) are documented by Kubernetes and skipped.
func (Generator) Generate(api *model.API) ([]genall.File, error) {
	var files []genall.File
	for _, g := range api.Owned().Groups {
		var b bytes.Buffer
		p := page{w: &b, group: g}
		if err := p.write(); err != nil {
			return nil, fmt.Errorf("api reference of group %q: %w", g.Name, err)
		}
		files = append(files, genall.File{Path: Path(g), Content: b.Bytes()})
	}
	return files, nil
}

// Path is the page of g ("docs/api/shipping.kubeforge.dev.md").
func Path(g *model.Group) string { return Dir + "/" + g.Name + ".md" }

type page struct {
	w     *bytes.Buffer
	group *model.Group
}

func (p *page) printf(format string, args ...any) { fmt.Fprintf(p.w, format, args...) }

func (p *page) write() error {
	g := p.group
	p.printf("<!-- %s -->\n\n", genall.Header)
	p.printf("# %s API reference\n\n", g.Name)
	served := servedVersions(g)
	if len(served) == 0 {
		p.printf("The group serves no version.\n")
		return nil
	}
	var links []string
	for _, v := range served {
		l := fmt.Sprintf("[%s](#%s)", v.Name, anchor(v.Name))
		if storesAny(v) {
			l += " (storage version)"
		}
		links = append(links, l)
	}
	p.printf("Versions, preferred first: %s.\n", strings.Join(links, ", "))
	for _, v := range served {
		if err := p.version(v); err != nil {
			return err
		}
	}
	return nil
}

func (p *page) version(v *model.Version) error {
	p.printf("\n<a id=\"%s\"></a>\n## %s\n\n", anchor(v.Name), v.GroupVersion())
	if doc := oneParagraph(v.Doc); doc != "" {
		p.printf("%s\n\n", doc)
	}
	var kinds []string
	for _, k := range v.Kinds {
		if k.Served {
			kinds = append(kinds, fmt.Sprintf("[%s](#%s)", k.Name, anchor(v.Name, k.Name)))
		}
	}
	p.printf("Kinds: %s.\n", orNone(kinds))
	for _, k := range v.Kinds {
		if k.Served {
			if err := p.kind(k); err != nil {
				return err
			}
		}
	}
	types := documentedTypes(v)
	if len(types) > 0 {
		p.printf("\n### Types of %s\n", v.GroupVersion())
	}
	for _, t := range types {
		if err := p.typ(t); err != nil {
			return err
		}
	}
	return nil
}

func (p *page) kind(k *model.Kind) error {
	v := k.Version
	p.printf("\n<a id=\"%s\"></a>\n### %s\n\n", anchor(v.Name, k.Name), k.Name)
	if doc := oneParagraph(k.Type.Doc); doc != "" {
		p.printf("%s\n\n", doc)
	}
	scope := "Namespaced"
	if !k.Namespaced {
		scope = "Cluster"
	}
	p.printf("| | |\n| --- | --- |\n")
	p.printf("| apiVersion | `%s` |\n", v.GroupVersion())
	p.printf("| kind | `%s` (list: `%s`) |\n", k.Name, k.ListName)
	p.printf("| resource | `%s` (singular `%s`), %s scope |\n", k.Plural, k.Singular, scope)
	p.printf("| path | `%s` |\n", resourcePath(k))
	if len(k.ShortNames) > 0 {
		p.printf("| short names | %s |\n", codeList(k.ShortNames))
	}
	if len(k.Categories) > 0 {
		p.printf("| categories | %s |\n", codeList(k.Categories))
	}
	if k.StatusSubresource {
		p.printf("| subresources | `status` |\n")
	}
	if k.Storage {
		p.printf("| stored | yes (the storage version) |\n")
	} else if hub := k.Hub(); hub != nil {
		p.printf("| stored | as %s, converted on every read and write |\n", hub.Version.GroupVersion())
	}
	if len(k.PrinterColumns) > 0 {
		var cols []string
		for _, c := range k.PrinterColumns {
			cols = append(cols, fmt.Sprintf("%s (`%s`)", strings.ToUpper(c.Name), c.JSONPath))
		}
		p.printf("| `kubectl get` columns | %s |\n", strings.Join(cols, ", "))
	}
	if len(k.SelectableFields) > 0 {
		var labels []string
		for _, s := range k.SelectableFields {
			labels = append(labels, s.Label)
		}
		p.printf("| field selectors | `metadata.name`, %s%s |\n", namespaceLabel(k), codeList(labels))
	}
	p.printf("\n")
	return p.fields(k.Type)
}

func namespaceLabel(k *model.Kind) string {
	if k.Namespaced {
		return "`metadata.namespace`, "
	}
	return ""
}

func (p *page) typ(t *model.Type) error {
	p.printf("\n<a id=\"%s\"></a>\n#### %s\n\n", anchor(t.Version.Name, t.Name), t.Name)
	if doc := oneParagraph(t.Doc); doc != "" {
		p.printf("%s\n\n", doc)
	}
	switch t.Kind {
	case model.StructKind:
		if rules := validationText(t.Validation); len(rules) > 0 {
			p.printf("Validation: %s.\n\n", strings.Join(rules, "; "))
		}
		return p.fields(t)
	default:
		p.printf("A %s.", typeText(t.Version, t.Underlying))
		if d := defaultText(t.Default); d != "" {
			p.printf(" Default: %s.", d)
		}
		if rules := validationText(t.Validation); len(rules) > 0 {
			p.printf(" %s.", strings.Join(rules, "; "))
		}
		p.printf("\n")
	}
	return nil
}

// fields writes the field table of a struct, with inline members expanded
// where JSON puts them.
func (p *page) fields(t *model.Type) error {
	rows := fieldRows(t, "")
	if len(rows) == 0 {
		p.printf("No fields.\n")
		return nil
	}
	p.printf("| Field | Type | Required | Default | Validation | Description |\n")
	p.printf("| --- | --- | --- | --- | --- | --- |\n")
	for _, r := range rows {
		f := r.field
		required := ""
		if f.Required {
			required = "yes"
		}
		desc := oneParagraph(f.Doc)
		if desc == "" && f.Type.Kind == model.NamedRef && f.Type.Local != nil {
			desc = oneParagraph(f.Type.Local.Doc)
		}
		if r.from != "" {
			desc = strings.TrimSpace(desc + " (from " + r.from + ")")
		}
		p.printf("| `%s` | %s | %s | %s | %s | %s |\n",
			f.JSONName, typeText(t.Version, f.Type), required, cell(defaultText(f.Default)),
			cell(strings.Join(fieldValidationText(f), "; ")), cell(desc))
	}
	return nil
}

type row struct {
	field *model.Field
	from  string // the inline struct the field comes from
}

func fieldRows(t *model.Type, from string) []row {
	var rows []row
	for _, f := range t.Fields {
		if f.Inline || (f.Embedded && f.JSONName == "") {
			if f.Type.Kind == model.NamedRef && f.Type.External != nil && f.Type.External.Known == "TypeMeta" {
				rows = append(rows, typeMetaRows()...)
				continue
			}
			if inner := namedLocal(f.Type); inner != nil {
				rows = append(rows, fieldRows(inner, inner.Name)...)
				continue
			}
		}
		if f.JSONName == "" || f.JSONName == "-" {
			continue
		}
		rows = append(rows, row{field: f, from: from})
	}
	return rows
}

// typeMetaRows are apiVersion and kind, which metav1.TypeMeta contributes
// inline to every kind.
func typeMetaRows() []row {
	str := &model.TypeRef{Kind: model.BuiltinRef, Name: "string"}
	return []row{
		{field: &model.Field{JSONName: "apiVersion", Type: str, Doc: "APIVersion is the versioned schema of this representation of the object."}},
		{field: &model.Field{JSONName: "kind", Type: str, Doc: "Kind is the type of the object, in CamelCase."}},
	}
}

func namedLocal(r *model.TypeRef) *model.Type {
	for r != nil && r.Kind == model.PointerRef {
		r = r.Elem
	}
	if r != nil && r.Kind == model.NamedRef && r.Local != nil && r.Local.Kind == model.StructKind {
		return r.Local
	}
	return nil
}

// documentedTypes are the named types of v besides kinds and lists, by
// name: every type a kind reaches, and any other the package declares.
func documentedTypes(v *model.Version) []*model.Type {
	var out []*model.Type
	for _, t := range v.Types {
		if t.IsKind || t.IsList || t.Generated {
			continue
		}
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// typeText renders a type reference for the Type column, linking named
// types: local ones to their section (or another group's page), external
// ones to their Go documentation.
func typeText(from *model.Version, r *model.TypeRef) string {
	if r == nil {
		return ""
	}
	switch r.Kind {
	case model.PointerRef:
		return typeText(from, r.Elem)
	case model.SliceRef:
		if r.Elem.Kind == model.BuiltinRef && (r.Elem.Name == "byte" || r.Elem.Name == "uint8") {
			return "string (base64)"
		}
		return "[]" + typeText(from, r.Elem)
	case model.ArrayRef:
		return fmt.Sprintf("[%d]%s", r.Len, typeText(from, r.Elem))
	case model.MapRef:
		return "map[" + typeText(from, r.Key) + "]" + typeText(from, r.Elem)
	case model.InterfaceRef:
		return "any"
	case model.BuiltinRef:
		return builtinText(r.Name)
	case model.NamedRef:
		if t := r.Local; t != nil {
			if t.Version.Group != from.Group {
				return fmt.Sprintf("[%s](%s.md#%s)", t.Name, t.Version.Group.Name, anchor(t.Version.Name, t.Name))
			}
			return fmt.Sprintf("[%s](#%s)", t.Name, anchor(t.Version.Name, t.Name))
		}
		if r.Package == "" {
			return r.Name
		}
		name := r.Name
		if r.External != nil {
			if s := knownText(r.External.Known); s != "" {
				name += " (" + s + ")"
			}
		}
		return fmt.Sprintf("[%s](https://pkg.go.dev/%s#%s)", name, r.Package, r.Name)
	}
	return r.Name
}

// knownText is the JSON form of well-known external types.
func knownText(known string) string {
	switch known {
	case "Time", "MicroTime":
		return "date-time string"
	case "Duration":
		return "duration string"
	case "Quantity":
		return "quantity string"
	case "IntOrString":
		return "integer or string"
	}
	return ""
}

func builtinText(name string) string {
	switch name {
	case "string":
		return "string"
	case "bool":
		return "boolean"
	case "int32", "int64", "int", "int16", "int8", "uint", "uint16", "uint32", "uint64", "uint8":
		return "integer (" + name + ")"
	case "float32", "float64":
		return "number (" + name + ")"
	}
	return name
}

func defaultText(d *model.Default) string {
	if d == nil {
		return ""
	}
	return "`" + string(d.JSON) + "`"
}

// fieldValidationText is the field's validation plus the list and map
// semantics that server-side apply and merging follow.
func fieldValidationText(f *model.Field) []string {
	out := validationText(f.Validation)
	switch f.ListType {
	case "map":
		out = append(out, "list type map, keys "+codeList(f.ListMapKeys))
	case "set":
		out = append(out, "list type set")
	case "atomic":
		out = append(out, "list type atomic")
	}
	if f.MapType == "atomic" {
		out = append(out, "map type atomic")
	}
	if f.StructType == "atomic" {
		out = append(out, "struct type atomic")
	}
	if f.EmbeddedResource {
		out = append(out, "an embedded Kubernetes object")
	}
	if f.PreserveUnknownFields {
		out = append(out, "unknown fields preserved")
	}
	return out
}

// validationText says what v enforces, in the words of an OpenAPI schema.
func validationText(v model.Validation) []string {
	var out []string
	num := func(name string, f *float64, exclusive bool) {
		if f == nil {
			return
		}
		s := name + " " + strconv.FormatFloat(*f, 'g', -1, 64)
		if exclusive {
			s += " (exclusive)"
		}
		out = append(out, s)
	}
	count := func(name string, n *int64) {
		if n != nil {
			out = append(out, name+" "+strconv.FormatInt(*n, 10))
		}
	}
	num("minimum", v.Minimum, v.ExclusiveMinimum)
	num("maximum", v.Maximum, v.ExclusiveMaximum)
	num("multiple of", v.MultipleOf, false)
	count("min length", v.MinLength)
	count("max length", v.MaxLength)
	if v.Pattern != "" {
		out = append(out, "pattern `"+v.Pattern+"`")
	}
	if v.Format != "" {
		out = append(out, "format "+v.Format)
	}
	if len(v.Enum) > 0 {
		var vals []string
		for _, e := range v.Enum {
			b, err := json.Marshal(e)
			if err != nil {
				b = []byte(fmt.Sprint(e))
			}
			vals = append(vals, "`"+string(b)+"`")
		}
		out = append(out, "one of "+strings.Join(vals, ", "))
	}
	count("min items", v.MinItems)
	count("max items", v.MaxItems)
	if v.UniqueItems {
		out = append(out, "unique items")
	}
	count("min properties", v.MinProperties)
	count("max properties", v.MaxProperties)
	for _, x := range v.XValidations {
		s := "rule `" + x.Rule + "`"
		if x.Message != "" {
			s += ": " + x.Message
		}
		out = append(out, s)
	}
	if it := v.Items; it != nil {
		each := validationText(it.Validation)
		if it.EmbeddedResource {
			each = append(each, "an embedded Kubernetes object")
		}
		if it.PreserveUnknownFields {
			each = append(each, "unknown fields preserved")
		}
		for _, s := range each {
			out = append(out, "each item: "+s)
		}
	}
	return out
}

func servedVersions(g *model.Group) []*model.Version {
	var out []*model.Version
	for _, v := range g.Versions {
		for _, k := range v.Kinds {
			if k.Served {
				out = append(out, v)
				break
			}
		}
	}
	return out
}

func storesAny(v *model.Version) bool {
	for _, k := range v.Kinds {
		if k.Storage {
			return true
		}
	}
	return false
}

func resourcePath(k *model.Kind) string {
	root := "/apis/" + k.Version.GroupVersion()
	if k.Version.Group.Name == "" {
		root = "/api/" + k.Version.Name
	}
	if k.Namespaced {
		return root + "/namespaces/{namespace}/" + k.Plural
	}
	return root + "/" + k.Plural
}

// anchor is an explicit, stable anchor ("v1-gadgetspec").
func anchor(parts ...string) string { return strings.ToLower(strings.Join(parts, "-")) }

// oneParagraph folds a doc comment into one line for a table cell, dropping
// marker lines.
func oneParagraph(doc string) string {
	var words []string
	for _, line := range strings.Split(doc, "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "+") {
			continue
		}
		if line != "" {
			words = append(words, line)
		}
	}
	return strings.Join(words, " ")
}

// cell escapes what would break a Markdown table row.
func cell(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	return strings.ReplaceAll(s, "\n", " ")
}

func codeList(items []string) string {
	out := make([]string, len(items))
	for i, s := range items {
		out[i] = "`" + s + "`"
	}
	return strings.Join(out, ", ")
}

func orNone(items []string) string {
	if len(items) == 0 {
		return "none"
	}
	return strings.Join(items, ", ")
}
