package endpoints

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"

	"github.com/kubeforge/kubeforge/runtime/jsondecode"
)

// DefaultMaxRequestBodyBytes is kube-apiserver's default body limit (3 MiB).
const DefaultMaxRequestBodyBytes = 3 * 1024 * 1024

// readBody reads the whole body, at most limit bytes (413 past that).
func readBody(req *http.Request, limit int64) ([]byte, error) {
	if req.Body == nil {
		return nil, nil
	}
	defer req.Body.Close()
	data, err := readAll(io.LimitReader(req.Body, limit+1), req.ContentLength, limit)
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			return nil, apierrors.NewRequestEntityTooLargeError(fmt.Sprintf("limit is %d", tooLarge.Limit))
		}
		return nil, apierrors.NewBadRequest(fmt.Sprintf("error reading the request body: %v", err))
	}
	if int64(len(data)) > limit {
		return nil, apierrors.NewRequestEntityTooLargeError(fmt.Sprintf("limit is %d", limit))
	}
	return data, nil
}

// readAll is io.ReadAll into a buffer of the declared length (one
// allocation instead of io.ReadAll's growth from 512 bytes), when the
// length is declared, within limit and small: memory for a large body is
// taken only as its bytes arrive, so that clients declaring big bodies
// and sending none cannot make the server hold the limit per stream.
// preallocBody is the largest declared length read into one buffer
// taken up front.
const preallocBody = 64 << 10

func readAll(r io.Reader, declared, limit int64) ([]byte, error) {
	if declared <= 0 || declared > limit || declared > preallocBody {
		return io.ReadAll(r)
	}
	// One byte more, so that a body longer than declared is read whole
	// without a second growth before EOF.
	b := make([]byte, 0, declared+1)
	for {
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
	}
}

// bodyToJSON turns a JSON or YAML body into JSON. For YAML, duplicate keys
// are reported as strict errors (what UnmarshalStrict finds for JSON).
func bodyToJSON(contentType string, body []byte, directive string) (data []byte, strictErrs []error, err error) {
	mt := mediaJSON
	if contentType != "" {
		parsed, _, perr := mime.ParseMediaType(contentType)
		if perr != nil {
			return nil, nil, unsupportedMediaType(supportedInputTypes)
		}
		mt = parsed
	}
	switch mt {
	case mediaJSON:
		return body, nil, nil
	case mediaYAML:
		data, err := yaml.YAMLToJSON(body)
		if err != nil {
			return nil, nil, apierrors.NewBadRequest(fmt.Sprintf("error decoding yaml: %v", err))
		}
		if directive != metav1.FieldValidationIgnore {
			if _, serr := yaml.YAMLToJSONStrict(body); serr != nil {
				strictErrs = append(strictErrs, yamlStrictErrors(serr)...)
			}
		}
		return data, strictErrs, nil
	default:
		return nil, nil, unsupportedMediaType(supportedInputTypes)
	}
}

// unmarshal decodes JSON data into obj per the fieldValidation directive:
// Strict turns unknown and duplicate fields into a 400, Warn into Warning
// headers, Ignore drops them. Syntax and type errors are a 400.
func unmarshal(w http.ResponseWriter, data []byte, obj any, directive string, extraStrict []error, what string) error {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return apierrors.NewBadRequest(fmt.Sprintf("the %s is empty", what))
	}
	if trimmed[0] != '{' {
		return apierrors.NewBadRequest(fmt.Sprintf("error decoding the %s: expected a JSON or YAML object", what))
	}
	var strictErrs []error
	var err error
	if directive == metav1.FieldValidationIgnore {
		err = jsondecode.UnmarshalCaseSensitivePreserveInts(data, obj)
	} else {
		strictErrs, err = jsondecode.UnmarshalStrict(data, obj)
	}
	if err != nil {
		return apierrors.NewBadRequest(fmt.Sprintf("error decoding the %s: %v", what, err))
	}
	strictErrs = append(extraStrict, strictErrs...)
	return handleStrict(w, strictErrs, directive)
}

func handleStrict(w http.ResponseWriter, strictErrs []error, directive string) error {
	if len(strictErrs) == 0 {
		return nil
	}
	switch directive {
	case metav1.FieldValidationStrict:
		return apierrors.NewBadRequest(runtime.NewStrictDecodingError(strictErrs).Error())
	case metav1.FieldValidationWarn:
		for _, e := range strictErrs {
			AddWarning(w, e.Error())
		}
	}
	return nil
}

// requireTypeMeta refuses a body without kind or apiVersion, as
// kube-apiserver refuses one for a custom resource (its unstructured
// decoder has nothing else to go by; a built-in kind's typed decoder
// takes both from the URL, as checkTypeMeta does), with its messages.
func requireTypeMeta(obj runtime.Object, want schema.GroupVersionKind) error {
	gvk := obj.GetObjectKind().GroupVersionKind()
	if gvk.Kind == "" {
		return apierrors.NewBadRequest(runtime.NewMissingKindErr("object has no kind field ").Error())
	}
	if gvk.Version == "" {
		return apierrors.NewBadRequest(fmt.Sprintf("the API version in the data () does not match the expected API version (%s)", want.GroupVersion()))
	}
	return nil
}

// typeMetaInvalid is kube's 422 for a custom resource whose kind or
// apiVersion is not its resource's (its validator's ValidateTypeMeta, which
// reports these alone): `Other.shipping.example.com "s1" is invalid: kind:
// Invalid value: "Other": must be Shipment`, named by the object's own
// group and kind. nil when both agree.
func typeMetaInvalid(got, want schema.GroupVersionKind, name string) error {
	var errs field.ErrorList
	if got.Kind != want.Kind {
		errs = append(errs, field.Invalid(field.NewPath("kind"), got.Kind, "must be "+want.Kind))
	}
	if got.GroupVersion() != want.GroupVersion() {
		errs = append(errs, field.Invalid(field.NewPath("apiVersion"), got.GroupVersion().String(), "must be "+want.GroupVersion().String()))
	}
	if len(errs) == 0 {
		return nil
	}
	return apierrors.NewInvalid(got.GroupKind(), name, errs)
}

// checkTypeMeta fills an empty apiVersion/kind from the URL and rejects
// ones that differ.
func checkTypeMeta(obj runtime.Object, want schema.GroupVersionKind) error {
	got := obj.GetObjectKind().GroupVersionKind()
	apiVersion, kind := got.GroupVersion().String(), got.Kind
	if got.Group == "" && got.Version == "" {
		apiVersion = ""
	}
	if apiVersion != "" && apiVersion != want.GroupVersion().String() {
		return apierrors.NewBadRequest(fmt.Sprintf("the API version in the data (%s) does not match the expected API version (%s)", apiVersion, want.GroupVersion().String()))
	}
	if kind != "" && kind != want.Kind {
		return apierrors.NewBadRequest(fmt.Sprintf("the kind in the data (%s) does not match the expected kind (%s)", kind, want.Kind))
	}
	obj.GetObjectKind().SetGroupVersionKind(want)
	return nil
}

// yamlStrictErrors splits "yaml: unmarshal errors:\n  line 4: key ..."
// into one error per line, as kube-apiserver does for its warnings (a
// Warning header cannot hold a newline).
func yamlStrictErrors(err error) []error {
	msg := err.Error()
	for _, prefix := range []string{"error converting YAML to JSON: yaml: unmarshal errors:\n", "yaml: unmarshal errors:\n"} {
		msg = strings.TrimPrefix(msg, prefix)
	}
	var out []error
	for _, line := range strings.Split(msg, "\n") {
		if line = strings.TrimSpace(line); line != "" {
			out = append(out, errors.New(line))
		}
	}
	return out
}
