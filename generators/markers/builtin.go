package markers

import (
	"errors"
	"sync"
)

const (
	tf  = TypeTarget | FieldTarget
	pf  = PackageTarget | FieldTarget
	pt  = PackageTarget | TypeTarget
	all = PackageTarget | TypeTarget | FieldTarget
)

var (
	builtinOnce sync.Once
	builtin     *Registry
	builtinErr  error
)

// Builtin returns the one registry of every marker kubeforge knows. It is
// built once and must not be modified.
func Builtin() *Registry {
	builtinOnce.Do(func() {
		builtin, builtinErr = newBuiltin()
	})
	return builtin
}

// builtinError reports a defect in the static tables (checked by tests).
func builtinError() error {
	Builtin()
	return builtinErr
}

func val(t ArgType, help string, enum ...string) *Arg {
	return &Arg{Type: t, Help: help, Enum: enum}
}

func newBuiltin() (*Registry, error) {
	r := NewRegistry()
	var errs []error
	add := func(d Definition) { r.mustRegister(d, &errs) }

	// Package markers.
	add(Definition{Name: "groupName", Target: PackageTarget, Value: val(StringArg, "the API group"),
		Help: "Sets the API group of the package's types (`+groupName=shipping.kubeforge.dev`). Required in every types package's doc comment."})
	add(Definition{Name: "versionName", Target: PackageTarget, Value: val(StringArg, "the version"),
		Help: "Accepted for kubebuilder compatibility; the version is always the directory name and must match."})

	add(Definition{Name: "kubeforge:external", Target: PackageTarget, Repeatable: true, Args: []Arg{
		{Name: "package", Type: StringArg, Required: true, Help: "import path of a types package kubeforge does not own (k8s.io/api/core/v1); its +groupName gives the group, its directory the version"},
		{Name: "kind", Type: StringArg, Required: true, Help: "the kind to serve: a struct of the package embedding metav1.TypeMeta and metav1.ObjectMeta, with its <Kind>List"},
		{Name: "scope", Type: StringArg, Enum: []string{"Namespaced", "Cluster"}, Help: "Namespaced (default) or Cluster; +genclient:nonNamespaced on the type also means Cluster"},
		{Name: "plural", Type: StringArg, Help: "plural resource name (default: lower-case English plural of the kind)"},
		{Name: "singular", Type: StringArg, Help: "singular name (default: lower-case kind)"},
		{Name: "shortName", Type: StringListArg, Help: "short names for kubectl (a;b)"},
		{Name: "categories", Type: StringListArg, Help: "categories such as all (a;b)"},
		{Name: "storedAs", Type: StringArg, Help: "import path of another declared package whose kind of the same name stores this one (k8s.io/api/core/v1 for the Event of k8s.io/api/events/v1, as kube-apiserver does): no store of its own, the kind is served as a converted view over that kind's store (same etcd keys, TTL and watch). The two must be in different groups and have the same scope; the conversions are generated into types/zz_generated.conversion.go, with hand-written Convert_<short><version>_<Type>_To_<short><version>_<Type> functions in package types for fields that differ (docs/conversion.md)"},
	}, Help: "Only in types/doc.go: serve a kind of a types package kubeforge does not own (k8s.io/api). Storage, routes, OpenAPI, defaults and validation are generated in generated/<short>/<version>; deepcopy, lists and scheme registration are the package's own. The status subresource is served when the kind has a status field. With storedAs the kind shares the store of the same kind of another declared package."})

	// Optional / required.
	add(Definition{Name: "optional", Target: FieldTarget,
		Help: "The field may be omitted. Without +optional or +required, a field is required unless its json tag has omitempty (Kubernetes' rule)."})
	add(Definition{Name: "required", Target: FieldTarget,
		Help: "The field must be set: its key must be in the object's JSON, not null (as a CRD's required). A nil pointer, slice or map, or a zero value in a field with omitempty, is missing; an explicit \"\", 0 or [] sent for a field without omitempty is a value, which the field's other markers judge."})
	add(Definition{Name: "k8s:required", Target: FieldTarget,
		Help: "Like +required, and as controller-gen makes it: a string must not be empty (minLength 1), a list or map must have an item (minItems or minProperties 1), where no such marker says otherwise."})
	add(Definition{Name: "kubebuilder:validation:Optional", Target: pf,
		Help: "Like +optional. On a package, fields are optional unless marked required."})
	add(Definition{Name: "kubebuilder:validation:Required", Target: pf,
		Help: "Like +required. On a package, fields are required unless marked optional."})

	// Defaults.
	add(Definition{Name: "default", Target: tf, Value: val(RawArg, "JSON value"),
		Help: "Default value, as JSON (`+default=5`, `+default={\"a\":1}`), or a bare string for string fields (`+default=medium`). Checked against the field's type. Applied where the request's JSON has no key or null, as in a CRD: a field without omitempty keeps an explicit zero (`replicas: 0`); with omitempty every zero is defaulted (the zero is not written, so it cannot be kept). Nothing below a struct field the JSON leaves out is defaulted, unless that field has a default of its own."})
	add(Definition{Name: "kubebuilder:default", Target: tf, Value: val(LiteralArg, "default value"),
		Help: "Same as +default (kubebuilder spelling), and like controller-tools it also takes its literals: `{80,443}` or `80;443` for a list, `{replicas: 1}` for an object."})

	// Lists, maps, structs.
	add(Definition{Name: "listType", Target: tf, Value: val(StringArg, "list semantics", "atomic", "set", "map"),
		Help: "Server-side-apply semantics of a list: atomic, set (unique scalar items) or map (items keyed by +listMapKey)."})
	add(Definition{Name: "listMapKey", Target: tf, Value: val(StringArg, "JSON name of a key field"), Repeatable: true,
		Help: "A key of a listType=map list: the JSON name of a required (or defaulted) field of the item struct. Repeat for composite keys."})
	add(Definition{Name: "patchStrategy", Target: FieldTarget, Value: val(StringArg, "strategy", "merge", "retainKeys", "merge,retainKeys", "replace"),
		Help: "Strategic merge patch strategy of the field, as k8s.io/api spells it (also read from the patchStrategy struct tag): merge merges lists (by +patchMergeKey for lists of structs), retainKeys drops the keys the patch leaves out, replace replaces the field. Without it, a +listType=map list merges by its first +listMapKey and a +listType=set list merges its values."})
	add(Definition{Name: "patchMergeKey", Target: FieldTarget, Value: val(StringArg, "JSON name of a key field"),
		Help: "The item field a strategic merge patch matches list items by (with +patchStrategy=merge; also read from the patchMergeKey struct tag)."})
	add(Definition{Name: "mapType", Target: tf, Value: val(StringArg, "map semantics", "atomic", "granular"),
		Help: "Server-side-apply semantics of a map."})
	add(Definition{Name: "structType", Target: tf, Value: val(StringArg, "struct semantics", "atomic", "granular"),
		Help: "Server-side-apply semantics of a struct."})
	add(Definition{Name: "enum", Target: TypeTarget,
		Help: "The named string type is an enum: its values are the typed constants declared in the package."})
	add(Definition{Name: "nullable", Target: tf,
		Help: "The field accepts null (OpenAPI nullable)."})

	// Objects and resources.
	add(Definition{Name: "kubebuilder:object:root", Target: TypeTarget, Value: val(BoolArg, "true for a root object"),
		Help: "Marks a root object: a kind (struct embedding metav1.TypeMeta and metav1.ObjectMeta) or its list (TypeMeta, ListMeta, Items)."})
	add(Definition{Name: "kubebuilder:object:generate", Target: pt, Value: val(BoolArg, "whether to generate DeepCopy"),
		Help: "Accepted for kubebuilder compatibility: deepcopy is generated for every type of a types package; =false on a type skips it."})
	add(Definition{Name: "kubebuilder:resource", Target: TypeTarget, Args: []Arg{
		{Name: "path", Type: StringArg, Help: "plural resource name (default: the plural controller-gen gives the kind, from the flect library: Policy policies, Gizmo gizmoes, Person people)"},
		{Name: "scope", Type: StringArg, Enum: []string{"Namespaced", "Cluster"}, Help: "Namespaced (default) or Cluster"},
		{Name: "shortName", Type: StringListArg, Help: "short names for kubectl (a;b)"},
		{Name: "categories", Type: StringListArg, Help: "categories such as all (a;b)"},
		{Name: "singular", Type: StringArg, Help: "singular name (default: lower-case kind)"},
	}, Help: "Resource names and scope of a kind."})
	add(Definition{Name: "kubebuilder:subresource:status", Target: TypeTarget,
		Help: "Serves the status subresource; the kind needs a field with JSON name status."})
	add(Definition{Name: "kubebuilder:subresource:scale", Target: TypeTarget, Args: []Arg{
		{Name: "specpath", Type: StringArg, Required: true, Help: "JSONPath of the desired replicas, an integer field under .spec (.spec.replicas)"},
		{Name: "statuspath", Type: StringArg, Required: true, Help: "JSONPath of the observed replicas, an integer field under .status (.status.replicas)"},
		{Name: "selectorpath", Type: StringArg, Help: "JSONPath of the label selector in its string form, a string field under .status (.status.selector)"},
	}, Help: "Serves the scale subresource (<plural>/scale, an autoscaling/v1 Scale) as kube-apiserver serves it for a CRD: kubectl scale and the HorizontalPodAutoscaler read and write the replicas through it. Needs the status subresource."})
	add(Definition{Name: "kubebuilder:printcolumn", Target: TypeTarget, Repeatable: true, Args: []Arg{
		{Name: "name", Type: StringArg, Required: true, Help: "column header"},
		{Name: "type", Type: StringArg, Required: true, Enum: []string{"integer", "number", "string", "boolean", "date"}, Help: "column type"},
		{Name: "JSONPath", Type: StringArg, Required: true, Help: "simple JSONPath from the object root (.spec.size, .metadata.creationTimestamp)"},
		{Name: "description", Type: StringArg, Help: "column description"},
		{Name: "format", Type: StringArg, Enum: []string{"int32", "int64", "float", "double", "byte", "date", "date-time", "password"}, Help: "column format"},
		{Name: "priority", Type: IntArg, Help: "0 shows the column by default; higher values only with -o wide"},
	}, Help: "An additional column for kubectl get. The JSONPath must resolve to a field of the kind."})
	add(Definition{Name: "kubebuilder:selectablefield", Target: TypeTarget, Repeatable: true, Args: []Arg{
		{Name: "JSONPath", Type: StringArg, Required: true, Help: "simple JSONPath from the object root (.spec.carrier, .status.phase) to a string, boolean or integer field (or a pointer to one, or a named type of one) outside metadata and outside lists and maps; no [index]"},
	}, Help: "A field of the kind that list and watch can select on, as CRD selectableFields: the field selector label is the JSONPath without its leading dot (`kubectl get shipments --field-selector spec.carrier=acme`). At most 8 per kind and version, no duplicates; each version selects on its own fields. The value is the field's JSON value as a string (\"true\", \"42\"), \"\" when the field is absent (a nil pointer on the path, or an omitempty zero value). The JSONPath must resolve to a field of the kind."})
	add(Definition{Name: "kubebuilder:storageversion", Target: TypeTarget,
		Help: "This version of the kind is stored. Exactly one version of a kind that has several must carry it."})
	add(Definition{Name: "kubebuilder:unservedversion", Target: TypeTarget,
		Help: "This version of the kind is not served."})
	add(Definition{Name: "kubebuilder:skip", Target: PackageTarget,
		Help: "Accepted for kubebuilder compatibility (skips CRD generation there); no effect here."})
	add(Definition{Name: "kubebuilder:skipversion", Target: pt,
		Help: "Accepted for kubebuilder compatibility; no effect here."})
	add(Definition{Name: "kubebuilder:deprecatedversion", Target: TypeTarget, Tolerated: true, Args: []Arg{
		{Name: "warning", Type: StringArg},
	}, Help: "Accepted and ignored for now."})

	// Validation. Every schema marker of controller-tools also has an
	// items: spelling (+kubebuilder:validation:items:MaxLength=5) that
	// applies to each item of a list, on fields and on list types.
	validation := func(name string, d Definition, itemsHelp ...string) {
		d.Name, d.Target = "kubebuilder:validation:"+name, tf
		add(d)
		items := d
		items.Name, items.Alias = "kubebuilder:validation:items:"+name, ""
		help := lowerFirst(d.Help)
		if len(itemsHelp) > 0 {
			help = itemsHelp[0]
		}
		items.Help = "Applies to each item of the list (OpenAPI items), on a list field or list type: " + help +
			" An error on a field that is not a list, or on items the constraint does not fit."
		add(items)
	}
	num := func(name, help string) {
		validation(name, Definition{Value: val(NumberArg, "number"), Help: help})
	}
	integer := func(name, help string) {
		validation(name, Definition{Value: val(IntArg, "integer"), Help: help})
	}
	flag := func(name, help string) {
		validation(name, Definition{Value: val(BoolArg, "true (default) or false"), Help: help})
	}
	num("Minimum", "Smallest allowed value of a number.")
	num("Maximum", "Largest allowed value of a number.")
	flag("ExclusiveMinimum", "Minimum itself is not allowed.")
	flag("ExclusiveMaximum", "Maximum itself is not allowed.")
	num("MultipleOf", "The number must be a multiple of this.")
	integer("MinLength", "Shortest allowed string length (in characters).")
	integer("MaxLength", "Longest allowed string length (in characters).")
	validation("Pattern", Definition{Value: val(StringArg, "regular expression"),
		Help: "The string must match this regular expression; write it as a raw string in backquotes."})
	validation("Enum", Definition{Value: val(AnyListArg, "allowed values"),
		Help: "Allowed values, separated by ; (`Enum=small;medium;large`)."})
	integer("MinItems", "Fewest allowed list items.")
	integer("MaxItems", "Most allowed list items.")
	flag("UniqueItems", "List items must be unique.")
	integer("MinProperties", "Fewest allowed map entries.")
	integer("MaxProperties", "Most allowed map entries.")
	validation("Format", Definition{Value: val(StringArg, "OpenAPI format"),
		Help: "OpenAPI string format (email, uri, date-time, ...)."})
	validation("Type", Definition{Value: val(StringArg, "OpenAPI type", "string", "integer", "number", "boolean", "object", "array"),
		Help: "Overrides the OpenAPI type. Accepted for controller-tools compatibility; no effect here: the Go type decides the JSON (and the schema) of a value."})
	validation("XValidation", Definition{Repeatable: true, Args: []Arg{
		{Name: "rule", Type: StringArg, Required: true, Help: "CEL expression"},
		{Name: "message", Type: StringArg, Help: "message when the rule fails"},
		{Name: "messageExpression", Type: StringArg, Help: "CEL expression giving the message (a string)"},
		{Name: "reason", Type: StringArg, Enum: []string{"FieldValueInvalid", "FieldValueForbidden", "FieldValueRequired", "FieldValueDuplicate"}, Help: "the error's reason (default FieldValueInvalid)"},
		{Name: "fieldPath", Type: StringArg, Help: "path, relative to the rule's field, the error is reported at"},
		{Name: "optionalOldSelf", Type: BoolArg, Help: "run the transition rule on creates too, with oldSelf an optional"},
	}, Help: "A CEL validation rule, enforced on every write as kube-apiserver enforces a CRD's (Kubernetes' own CEL validator and library, cost limits and messages; transition rules with oldSelf run on updates), compiled and cost-checked when the server starts, and published in OpenAPI (x-kubernetes-validations)."},
		"a CEL rule with self the item, enforced as +kubebuilder:validation:XValidation is, its error at the item's index (spec.names[1]).")
	add(Definition{Name: "kubebuilder:validation:EmbeddedResource", Target: tf,
		Help: "The field holds a whole Kubernetes object (apiVersion, kind, metadata): x-kubernetes-embedded-resource in OpenAPI."})
	validation("XIntOrString", Definition{
		Help: "The value is an integer or a string (x-kubernetes-int-or-string). Accepted for controller-tools compatibility; no effect here: the Go type decides (intstr.IntOrString is one)."})
	validation("XEmbeddedResource", Definition{Alias: "kubebuilder:validation:EmbeddedResource",
		Help: "Same as +kubebuilder:validation:EmbeddedResource (controller-tools' spelling): the value is a whole Kubernetes object, x-kubernetes-embedded-resource in OpenAPI."},
		"each item is a whole Kubernetes object (apiVersion, kind, metadata), x-kubernetes-embedded-resource on the items schema in OpenAPI.")
	add(Definition{Name: "kubebuilder:validation:Schemaless", Target: FieldTarget,
		Help: "No schema is published for the field."})
	add(Definition{Name: "kubebuilder:pruning:PreserveUnknownFields", Target: tf,
		Help: "Unknown fields inside this field are kept (x-kubernetes-preserve-unknown-fields in OpenAPI)."})
	validation("XPreserveUnknownFields", Definition{Alias: "kubebuilder:pruning:PreserveUnknownFields",
		Help: "Same as +kubebuilder:pruning:PreserveUnknownFields (controller-tools' older spelling): unknown fields inside the value are kept, x-kubernetes-preserve-unknown-fields in OpenAPI."},
		"unknown fields inside each item are kept, x-kubernetes-preserve-unknown-fields on the items schema in OpenAPI.")

	// Type-level CEL shorthands of controller-tools: each adds one
	// x-kubernetes-validations rule to the struct, worded as controller-gen
	// words it.
	oneOf := func(name, help string) {
		add(Definition{Name: "kubebuilder:validation:" + name, Target: TypeTarget, Repeatable: true,
			Value: val(StringListArg, "JSON names of fields of the struct"), Help: help +
				" The fields are JSON names of this struct (no nested paths), each optional (a pointer or omitempty, not +required), as controller-gen requires. Enforced by the CEL rule path as kube-apiserver enforces it (see +kubebuilder:validation:XValidation)."})
	}
	oneOf("ExactlyOneOf", "Exactly one of the listed fields must be set (`ExactlyOneOf=http;https`): the rule `(has(self.http)?1:0)+(has(self.https)?1:0) == 1`, message \"exactly one of the fields in [http https] must be set\".")
	oneOf("AtMostOneOf", "At most one of the listed fields may be set: the rule `(has(self.a)?1:0)+(has(self.b)?1:0) <= 1`, message \"at most one of the fields in [a b] may be set\".")
	oneOf("AtLeastOneOf", "At least one of the listed fields must be set: the rule `has(self.a)||has(self.b)`, message \"at least one of the fields in [a b] must be set\".")
	add(Definition{Name: "k8s:immutable", Target: FieldTarget,
		Help: "Once set, the field cannot change: the CEL rule `self == oldSelf` (message \"field is immutable\") on the field and, when the field is optional, `!has(oldSelf.f) || has(self.f)` (message \"field f is immutable once set\") on its struct, as controller-gen writes them; unset to set is allowed. Enforced on updates by the CEL rule path. Only in your own packages: on a field of k8s.io/api (which Kubernetes' declarative validation reads) it has no effect here."})

	// OpenAPI documentation and CRD metadata.
	add(Definition{Name: "kubebuilder:title", Target: tf, Value: val(TextArg, "title"),
		Help: "The schema's title in OpenAPI (`+kubebuilder:title=\"Replica Count\"`): documentation only."})
	add(Definition{Name: "kubebuilder:example", Target: FieldTarget, Value: val(LiteralArg, "example value"),
		Help: "An example value, published as the schema's example in OpenAPI: documentation only. JSON, a bare string for string fields, or controller-tools' literals (`{8080,8443}`, `{cpu: \"100m\"}`); it must be a value of the field's type."})
	add(Definition{Name: "kubebuilder:externalDocs", Target: tf, Args: []Arg{
		{Name: "url", Type: StringArg, Required: true, Help: "an absolute URL or an absolute path"},
		{Name: "description", Type: StringArg, Help: "what the link documents"},
	}, Help: "A link to further documentation, published as the schema's externalDocs in OpenAPI: documentation only."})
	add(Definition{Name: "kubebuilder:metadata", Target: TypeTarget, Args: []Arg{
		{Name: "annotations", Type: StringListArg, Help: "key=value pairs (a;b)"},
		{Name: "labels", Type: StringListArg, Help: "key=value pairs (a;b)"},
	}, Help: "Labels and annotations controller-gen puts on the generated CRD object. Accepted and checked (every item key=value); no effect here: kubeforge serves the kind without a CustomResourceDefinition object."})

	// k8s: spellings (declarative validation), equivalent to the above.
	alias := func(name, canonical string, target Target) {
		add(Definition{Name: name, Target: target, Alias: canonical, Help: "Same as +" + canonical + "."})
	}
	alias("k8s:optional", "optional", FieldTarget)
	alias("k8s:minimum", "kubebuilder:validation:Minimum", tf)
	alias("k8s:maximum", "kubebuilder:validation:Maximum", tf)
	alias("k8s:minLength", "kubebuilder:validation:MinLength", tf)
	alias("k8s:maxLength", "kubebuilder:validation:MaxLength", tf)
	alias("k8s:minItems", "kubebuilder:validation:MinItems", tf)
	alias("k8s:maxItems", "kubebuilder:validation:MaxItems", tf)
	alias("k8s:format", "kubebuilder:validation:Format", tf)
	alias("k8s:enum", "enum", TypeTarget)
	alias("k8s:listType", "listType", tf)
	alias("k8s:listMapKey", "listMapKey", tf)
	alias("k8s:default", "default", tf)

	// Other code generators' markers: known, no effect.
	tol := func(name string, family bool, help string) {
		add(Definition{Name: name, Target: all, Tolerated: true, Family: family, Value: val(AnyArg, "anything"), Help: help})
	}
	tol("genclient", true, "client-gen marker (and +genclient:...): accepted, no effect.")
	tol("k8s:deepcopy-gen", true, "deepcopy-gen marker: accepted, no effect (kubeforge generates deepcopy for every type).")
	tol("k8s:openapi-gen", true, "openapi-gen marker: accepted, no effect.")
	tol("k8s:defaulter-gen", true, "defaulter-gen marker: accepted, no effect.")
	tol("k8s:conversion-gen", true, "conversion-gen marker: accepted, no effect.")
	tol("k8s:prerelease-lifecycle-gen", true, "prerelease-lifecycle-gen marker: accepted, no effect.")
	tol("k8s:protobuf", true, "go-to-protobuf marker: accepted, no effect.")
	tol("kubebuilder:rbac", true, "controller RBAC marker: accepted, no effect.")
	add(Definition{Name: "kubebuilder:webhook", Target: all, Repeatable: true, Args: []Arg{
		{Name: "mutating", Type: BoolArg, Required: true, Help: "true: a defaulter (controller-runtime's Defaulter[T] or CustomDefaulter), called before validation; false: a validator (Validator[T] or CustomValidator), called after it"},
		{Name: "name", Type: StringArg, Required: true, Help: "the webhook's name, as errors name it (`admission webhook \"vcronjob-v1.kb.io\" denied the request: ...`)"},
		{Name: "groups", Type: StringListArg, Required: true, Help: "the API group of the kind (one)"},
		{Name: "resources", Type: StringListArg, Required: true, Help: "the plural of the kind (one)"},
		{Name: "versions", Type: StringListArg, Required: true, Help: "the version whose type the webhook takes (one); it runs on the storage version's store, the object converted to that version for the call"},
		{Name: "verbs", Type: StringListArg, Required: true, Help: "the operations the webhook is called for: create, update, delete (connect is accepted and never called)"},
		{Name: "failurePolicy", Type: StringArg, Enum: []string{"fail", "Fail", "ignore", "Ignore"}, Help: "fail (default): a webhook that cannot be called (it panicked) fails the write with a 500; ignore: the write goes on"},
		{Name: "sideEffects", Type: StringArg, Enum: []string{"None", "NoneOnDryRun", "Some", "Unknown"}, Help: "None or NoneOnDryRun: called on dry runs; Some or Unknown: a dry run is refused with kube's 400 \"admission webhook ... does not support dry run\""},
		{Name: "path", Type: StringArg, Help: "the HTTP path on a webhook server: accepted, unused (no HTTP hop)"},
		{Name: "admissionReviewVersions", Type: StringListArg, Help: "accepted, unused (no AdmissionReview is serialized)"},
		{Name: "webhookVersions", Type: StringListArg, Help: "accepted, unused"},
		{Name: "matchPolicy", Type: StringArg, Enum: []string{"Exact", "Equivalent"}, Help: "Equivalent (default): called for writes through every version, the object converted to the webhook's version; Exact: only for writes through the webhook's version"},
		{Name: "timeoutSeconds", Type: IntArg, Help: "accepted, unused (the webhook runs in the request)"},
		{Name: "reinvocationPolicy", Type: StringArg, Enum: []string{"Never", "IfNeeded"}, Help: "accepted; a defaulter is called once"},
		{Name: "serviceName", Type: StringArg, Help: "accepted, unused"},
		{Name: "serviceNamespace", Type: StringArg, Help: "accepted, unused"},
		{Name: "servicePort", Type: IntArg, Help: "accepted, unused"},
		{Name: "url", Type: StringArg, Help: "accepted, unused"},
		{Name: "patch", Type: StringArg, Help: "a strategic merge patch controller-gen applies to the webhook's manifest: accepted, unused"},
	}, Help: "A controller-runtime webhook of the project (in internal/webhook/<version>/ or a types package's *_webhook.go), run inside the server where kube-apiserver would call it over HTTPS: the type in the same package implementing the kind's Defaulter[T]/CustomDefaulter (mutating=true) or Validator[T]/CustomValidator (mutating=false) is called on every write through any version (README \"Bring a kubebuilder project\")."})
	add(Definition{Name: "kubebuilder:webhookconfiguration", Target: all, Repeatable: true, Args: []Arg{
		{Name: "mutating", Type: BoolArg, Required: true, Help: "a MutatingWebhookConfiguration (true) or a ValidatingWebhookConfiguration (false)"},
		{Name: "name", Type: StringArg, Help: "the configuration object's name"},
	}, Help: "Names the MutatingWebhookConfiguration or ValidatingWebhookConfiguration controller-gen writes for the +kubebuilder:webhook markers. Accepted and checked; no effect here: webhooks run in process, with no configuration object."})
	tol("kubebuilder:ac", true, "applyconfiguration marker: accepted, no effect.")

	return r, errors.Join(errs...)
}
