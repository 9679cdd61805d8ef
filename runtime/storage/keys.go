package storage

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/validate/content"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// resourcePrefix is "<prefix>/<group>/<plural>/" ("<prefix>/<plural>/" for
// the core group).
func (st *access[T, L]) resourcePrefix() string {
	if st.s.Info.Group == "" {
		return st.b.prefix + "/" + st.s.Info.Plural + "/"
	}
	return st.b.prefix + "/" + st.s.Info.Group + "/" + st.s.Info.Plural + "/"
}

// listPrefix is the range of a list in namespace ("" for all).
func (st *access[T, L]) listPrefix(namespace string) string {
	if st.s.Info.Namespaced && namespace != "" {
		return st.resourcePrefix() + namespace + "/"
	}
	return st.resourcePrefix()
}

// key builds the key of an object whose name and namespace were validated.
func (st *access[T, L]) key(namespace, name string) string {
	if st.s.Info.Namespaced {
		return st.resourcePrefix() + namespace + "/" + name
	}
	return st.resourcePrefix() + name
}

// validateMetaForWrite checks name and namespace of an object about to be
// written: 422 with field causes. A bad name made from generateName is
// reported with the generateName's own errors first, as kube's
// ValidateObjectMeta does.
func (st *Store[T, L]) validateMetaForWrite(namespace, name, generateName string) error {
	var errs field.ErrorList
	if generateName != "" && len(st.nameErrors(name)) > 0 {
		for _, msg := range st.prefixErrors(generateName) {
			errs = append(errs, field.Invalid(field.NewPath("metadata", "generateName"), generateName, msg))
		}
	}
	if name == "" {
		errs = append(errs, field.Required(field.NewPath("metadata", "name"), "name or generateName is required"))
	} else {
		for _, msg := range st.nameErrors(name) {
			errs = append(errs, field.Invalid(field.NewPath("metadata", "name"), name, msg))
		}
	}
	if st.s.Info.Namespaced {
		if namespace == "" {
			errs = append(errs, field.Required(field.NewPath("metadata", "namespace"), ""))
		} else {
			for _, msg := range namespaceErrors(namespace) {
				errs = append(errs, field.Invalid(field.NewPath("metadata", "namespace"), namespace, msg))
			}
		}
	}
	if len(errs) > 0 {
		return apierrors.NewInvalid(st.groupKind(), name, errs)
	}
	return nil
}

// readKey validates the name and namespace of a request on an existing
// object and returns its key. Names that are unsafe in a key are a 400;
// names that no object can have are a 404.
func (st *Store[T, L]) readKey(namespace, name string) (string, error) {
	if err := st.checkNamespace(namespace); err != nil {
		return "", err
	}
	if name == "" {
		return "", apierrors.NewBadRequest("name is required")
	}
	if msgs := content.IsPathSegmentName(name); len(msgs) > 0 {
		return "", apierrors.NewBadRequest(fmt.Sprintf("invalid name %q: %s", name, strings.Join(msgs, ", ")))
	}
	if len(st.nameErrors(name)) > 0 {
		return "", apierrors.NewNotFound(st.s.Info.GroupResource(), name)
	}
	return st.key(namespace, name), nil
}

// checkNamespace validates the namespace of a request (400).
func (st *Store[T, L]) checkNamespace(namespace string) error {
	if !st.s.Info.Namespaced {
		if namespace != "" {
			return apierrors.NewBadRequest(fmt.Sprintf("%s is cluster-scoped: namespace %q not allowed", st.s.Info.GroupResource(), namespace))
		}
		return nil
	}
	if namespace == "" {
		return nil
	}
	if msgs := namespaceErrors(namespace); len(msgs) > 0 {
		return apierrors.NewBadRequest(fmt.Sprintf("invalid namespace %q: %s", namespace, strings.Join(msgs, ", ")))
	}
	return nil
}

// nameErrors: names are DNS subdomains, or only path segments for the
// kinds whose Info says so (the generated validation has the kind's own,
// possibly stricter, rule). The messages are util/validation's, which
// kube's ValidateObjectMeta gives ("no more than 253 characters").
func (st *Store[T, L]) nameErrors(name string) []string {
	if st.isNamespaces() {
		// A namespace is named as the label it becomes in every key.
		return namespaceErrors(name)
	}
	if isDNS1123Subdomain(name) {
		return nil // nearly every name: no path segment rule refuses one either
	}
	if msgs := content.IsPathSegmentName(name); len(msgs) > 0 || st.s.Info.PathSegmentNames {
		return msgs
	}
	return validation.IsDNS1123Subdomain(name)
}

// prefixErrors are nameErrors' for a generateName, to which characters
// will be appended (apimachinery's name functions with prefix set).
func (st *Store[T, L]) prefixErrors(prefix string) []string {
	switch {
	case st.isNamespaces():
		return apivalidation.NameIsDNSLabel(prefix, true)
	case st.s.Info.PathSegmentNames:
		return content.IsPathSegmentPrefix(prefix)
	}
	if msgs := content.IsPathSegmentPrefix(prefix); len(msgs) > 0 {
		return msgs
	}
	return apivalidation.NameIsDNSSubdomain(prefix, true)
}

func namespaceErrors(ns string) []string {
	if isDNS1123Label(ns, content.DNS1123LabelMaxLength) {
		return nil
	}
	if msgs := content.IsPathSegmentName(ns); len(msgs) > 0 {
		return msgs
	}
	return validation.IsDNS1123Label(ns)
}

// isDNS1123Label reports whether s is a DNS-1123 label no longer than max
// (content.IsDNS1123Label finds nothing wrong with it at max 63): names
// and namespaces are checked on every request, and that function's
// regular expression cost more than the rest of the check.
func isDNS1123Label(s string, max int) bool {
	if s == "" || len(s) > max {
		return false
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
		case c == '-' && i > 0 && i < len(s)-1:
		default:
			return false
		}
	}
	return true
}

// isDNS1123Subdomain reports whether content.IsDNS1123Subdomain finds
// nothing wrong with s: at most 253 bytes of labels (of any length)
// joined by dots.
func isDNS1123Subdomain(s string) bool {
	if s == "" || len(s) > content.DNS1123SubdomainMaxLength {
		return false
	}
	for label := range strings.SplitSeq(s, ".") {
		if !isDNS1123Label(label, len(label)) {
			return false
		}
	}
	return true
}

// Continue tokens: kube-apiserver's format.
type continueToken struct {
	APIVersion      string `json:"v"`
	ResourceVersion int64  `json:"rv"`
	StartKey        string `json:"start"`
}

func encodeContinue(key, keyPrefix string, rev int64) (string, error) {
	next := strings.TrimPrefix(key, keyPrefix)
	if next == key {
		return "", fmt.Errorf("encode continue token: key %q is outside prefix %q", key, keyPrefix)
	}
	out, err := json.Marshal(&continueToken{APIVersion: "meta.k8s.io/v1", ResourceVersion: rev, StartKey: next})
	if err != nil {
		return "", fmt.Errorf("encode continue token: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(out), nil
}

var errInvalidContinue = errors.New("continue key is not valid")

// decodeContinue returns the absolute start key and the list revision
// (-1: continue at the latest revision).
func decodeContinue(token, keyPrefix string) (string, int64, error) {
	data, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil {
		return "", 0, fmt.Errorf("%w: %v", errInvalidContinue, err)
	}
	var c continueToken
	if err := json.Unmarshal(data, &c); err != nil {
		return "", 0, fmt.Errorf("%w: %v", errInvalidContinue, err)
	}
	if c.APIVersion != "meta.k8s.io/v1" {
		return "", 0, fmt.Errorf("%w: server does not recognize this encoded version %q", errInvalidContinue, c.APIVersion)
	}
	if c.ResourceVersion == 0 {
		return "", 0, fmt.Errorf("%w: incorrect encoded start resourceVersion (version meta.k8s.io/v1)", errInvalidContinue)
	}
	if c.StartKey == "" {
		return "", 0, fmt.Errorf("%w: encoded start key empty (version meta.k8s.io/v1)", errInvalidContinue)
	}
	// path.Clean keeps the start key inside keyPrefix.
	k := c.StartKey
	if !strings.HasPrefix(k, "/") {
		k = "/" + k
	}
	if cleaned := path.Clean(k); cleaned != k {
		return "", 0, fmt.Errorf("%w: %v", errInvalidContinue, c.StartKey)
	}
	return keyPrefix + k[1:], c.ResourceVersion, nil
}
