package validate

import (
	"reflect"
	"strings"
	"unicode"

	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/api/validation/path"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ObjectMeta returns exactly what apivalidation.ValidateObjectMeta returns.
// Every create and update validates its metadata, and apimachinery's
// checks are regular expressions (label keys and values, annotation keys,
// finalizers, names): byte loops that accept exactly what those accept
// decide first, and only metadata they find invalid (or a name function
// they do not know) goes to apimachinery, for its error list.
func ObjectMeta(m *metav1.ObjectMeta, requiresNamespace bool, nameFn apivalidation.ValidateNameFunc, fldPath *field.Path) field.ErrorList {
	if m != nil && objectMetaValid(m, requiresNamespace, nameFn) {
		return nil
	}
	return apivalidation.ValidateObjectMeta(m, requiresNamespace, nameFn, fldPath)
}

// objectMetaValid reports whether ValidateObjectMeta finds nothing wrong
// with m; false also for name functions without a byte-loop rule.
func objectMetaValid(m *metav1.ObjectMeta, requiresNamespace bool, nameFn apivalidation.ValidateNameFunc) bool {
	rule := ruleOf(nameFn)
	if rule == unknownRule {
		return false
	}
	if m.GenerateName != "" && !rule.valid(m.GenerateName, true) {
		return false
	}
	if m.Name == "" || !rule.valid(m.Name, false) {
		return false
	}
	if requiresNamespace {
		// ValidateNamespaceName is a variable: use the rule it holds.
		if ns := ruleOf(apivalidation.ValidateNamespaceName); m.Namespace == "" || ns == unknownRule || !ns.valid(m.Namespace, false) {
			return false
		}
	} else if m.Namespace != "" {
		return false
	}
	return m.Generation >= 0 &&
		labelsValid(m.Labels) &&
		annotationsValid(m.Annotations) &&
		ownerReferencesValid(m.OwnerReferences) &&
		finalizersValid(m.Finalizers) &&
		managedFieldsValid(m.ManagedFields)
}

// nameRule is a name function the fast path knows.
type nameRule uint8

const (
	unknownRule nameRule = iota
	dnsSubdomainRule
	dnsLabelRule
	dns1035LabelRule
	pathSegmentRule
)

// knownNameFuncs are the name functions the validation generator emits.
// Functions cannot be compared, their code pointers can.
var knownNameFuncs = [...]struct {
	ptr  uintptr
	rule nameRule
}{
	{funcPointer(apivalidation.NameIsDNSSubdomain), dnsSubdomainRule},
	{funcPointer(apivalidation.NameIsDNSLabel), dnsLabelRule},
	{funcPointer(apivalidation.NameIsDNS1035Label), dns1035LabelRule},
	{funcPointer(path.ValidatePathSegmentName), pathSegmentRule},
}

func funcPointer(fn apivalidation.ValidateNameFunc) uintptr {
	return reflect.ValueOf(fn).Pointer()
}

// ruleOf returns the rule of a known name function; a closure or any
// other function is unknownRule (its code pointer differs).
func ruleOf(fn apivalidation.ValidateNameFunc) nameRule {
	if fn == nil {
		return unknownRule
	}
	p := funcPointer(fn)
	for _, k := range knownNameFuncs {
		if k.ptr == p {
			return k.rule
		}
	}
	return unknownRule
}

// valid reports whether the rule's name function returns no message for
// name (prefix: a generateName, to which characters will be appended).
func (r nameRule) valid(name string, prefix bool) bool {
	if r == pathSegmentRule {
		return !strings.ContainsAny(name, "/%") && (prefix || (name != "." && name != ".."))
	}
	// The DNS rules first mask a trailing dash as apimachinery does
	// (maskTrailingDash: the last two bytes become "a"), in a buffer on
	// the stack: objects made from a generateName keep it.
	if prefix && len(name) > 1 && name[len(name)-1] == '-' {
		if len(name)-1 > dnsSubdomainMaxLength {
			return false
		}
		var buf [dnsSubdomainMaxLength]byte
		masked := append(append(buf[:0], name[:len(name)-2]...), 'a')
		return dnsName(r, masked)
	}
	return dnsName(r, name)
}

const (
	dnsLabelMaxLength     = 63  // RFC 1123 and RFC 1035 labels
	dnsSubdomainMaxLength = 253 // RFC 1123 subdomains
	qualifiedNameMax      = 63  // the name part of a label key, a label value
)

func dnsName[S ~string | ~[]byte](r nameRule, s S) bool {
	switch r {
	case dnsSubdomainRule:
		return isDNSSubdomain(s, false)
	case dnsLabelRule:
		return isDNSLabel(s, dnsLabelMaxLength, false, false)
	case dns1035LabelRule:
		return isDNSLabel(s, dnsLabelMaxLength, true, false)
	}
	return false
}

// isDNSLabel reports whether s, at most max bytes, matches
// [a-z0-9]([-a-z0-9]*[a-z0-9])? (RFC 1123), or [a-z]([-a-z0-9]*[a-z0-9])?
// with letterFirst (RFC 1035). fold also accepts upper case letters.
func isDNSLabel[S ~string | ~[]byte](s S, max int, letterFirst, fold bool) bool {
	n := len(s)
	if n == 0 || n > max {
		return false
	}
	for i := 0; i < n; i++ {
		c := s[i]
		if fold && c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		switch {
		case c >= 'a' && c <= 'z':
		case c >= '0' && c <= '9' && (i > 0 || !letterFirst):
		case c == '-' && i > 0 && i < n-1:
		default:
			return false
		}
	}
	return true
}

// isDNSSubdomain reports whether s is at most 253 bytes of RFC 1123
// labels (each of any length) joined by dots.
func isDNSSubdomain[S ~string | ~[]byte](s S, fold bool) bool {
	n := len(s)
	if n == 0 || n > dnsSubdomainMaxLength {
		return false
	}
	start := 0
	for i := 0; i <= n; i++ {
		if i == n || s[i] == '.' {
			if !isDNSLabel(s[start:i], n, false, fold) {
				return false
			}
			start = i + 1
		}
	}
	return true
}

// isLabelName reports whether s, 1 to 63 bytes, matches
// ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]: a label value that is not
// empty, and the name part of a label key.
func isLabelName(s string) bool {
	n := len(s)
	if n == 0 || n > qualifiedNameMax || !isAlphanumeric(s[0]) || !isAlphanumeric(s[n-1]) {
		return false
	}
	for i := 1; i < n-1; i++ {
		if c := s[i]; !isAlphanumeric(c) && c != '-' && c != '_' && c != '.' {
			return false
		}
	}
	return true
}

func isAlphanumeric(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// isQualifiedName reports whether IsQualifiedName (a label key: an
// optional DNS subdomain prefix and '/', then a name) finds nothing wrong
// with s; fold accepts upper case in the prefix too.
func isQualifiedName(s string, fold bool) bool {
	slash := strings.IndexByte(s, '/')
	if slash < 0 {
		return isLabelName(s)
	}
	// A second '/' is in the name part, which refuses it.
	return isDNSSubdomain(s[:slash], fold) && isLabelName(s[slash+1:])
}

func labelsValid(labels map[string]string) bool {
	if len(labels) == 0 {
		return true
	}
	for k, v := range labels {
		if !isQualifiedName(k, false) || (v != "" && !isLabelName(v)) {
			return false
		}
	}
	return true
}

// annotationsValid: keys are qualified names after strings.ToLower, and
// keys plus values at most 256 KiB.
func annotationsValid(annotations map[string]string) bool {
	if len(annotations) == 0 {
		return true // ranging over even an empty map costs
	}
	var size int64
	for k, v := range annotations {
		size += int64(len(k)) + int64(len(v))
		if !isQualifiedName(k, true) && (isASCII(k) || !isQualifiedName(strings.ToLower(k), false)) {
			// Lower-casing Unicode can make ASCII (the Kelvin sign is
			// 'k'): a key with other bytes is lowered as apimachinery does.
			return false
		}
	}
	return size <= int64(apivalidation.TotalAnnotationSizeLimitB)
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// ownerReferencesValid: apiVersion <version> or <group>/<version>, kind,
// name and uid set, no banned owner, at most one controller.
func ownerReferencesValid(refs []metav1.OwnerReference) bool {
	controllers := 0
	for i := range refs {
		ref := &refs[i]
		group, version, ok := splitAPIVersion(ref.APIVersion)
		if !ok || ref.Kind == "" || ref.Name == "" || ref.UID == "" {
			return false
		}
		if len(apivalidation.BannedOwners) > 0 {
			if _, banned := apivalidation.BannedOwners[schema.GroupVersionKind{Group: group, Version: version, Kind: ref.Kind}]; banned {
				return false
			}
		}
		if ref.Controller != nil && *ref.Controller {
			controllers++
		}
	}
	return controllers <= 1
}

// splitAPIVersion is schema.ParseGroupVersion for the values
// ValidateOwnerReferences accepts: not empty, at most one '/', a version.
func splitAPIVersion(apiVersion string) (group, version string, ok bool) {
	slash := strings.IndexByte(apiVersion, '/')
	if slash < 0 {
		return "", apiVersion, apiVersion != ""
	}
	version = apiVersion[slash+1:]
	return apiVersion[:slash], version, version != "" && strings.IndexByte(version, '/') < 0
}

// finalizersValid: qualified names, not both orphan and foregroundDeletion.
func finalizersValid(finalizers []string) bool {
	orphan, foreground := false, false
	for _, f := range finalizers {
		if !isQualifiedName(f, false) {
			return false
		}
		orphan = orphan || f == metav1.FinalizerOrphanDependents
		foreground = foreground || f == metav1.FinalizerDeleteDependents
	}
	return !orphan || !foreground
}

// managedFieldsValid: operation Apply or Update, fieldsType FieldsV1 or
// empty, a printable manager within its length limit, a subresource
// within its own.
func managedFieldsValid(entries []metav1.ManagedFieldsEntry) bool {
	for i := range entries {
		e := &entries[i]
		if e.Operation != metav1.ManagedFieldsOperationApply && e.Operation != metav1.ManagedFieldsOperationUpdate {
			return false
		}
		if e.FieldsType != "" && e.FieldsType != "FieldsV1" {
			return false
		}
		if len(e.Manager) > metav1validation.FieldManagerMaxLength || len(e.Subresource) > metav1validation.MaxSubresourceNameLength {
			return false
		}
		for _, r := range e.Manager {
			if !unicode.IsPrint(r) {
				return false
			}
		}
	}
	return true
}
