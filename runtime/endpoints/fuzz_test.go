package endpoints

import (
	"encoding/json"
	"errors"
	"net/url"
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
)

// clientError fails t unless err is nil or a Status with a 4xx code:
// whatever a client sends, it never causes a 500 (or a panic).
func clientError(t *testing.T, what string, err error) {
	t.Helper()
	if err == nil {
		return
	}
	var se apierrors.APIStatus
	if !errors.As(err, &se) {
		t.Fatalf("%s: %v (%T) is not a Status", what, err, err)
	}
	if c := se.Status().Code; c < 400 || c >= 500 {
		t.Fatalf("%s: status %d: %v", what, c, err)
	}
}

var patchTypes = []string{MediaTypeJSONPatch, MediaTypeMergePatch, MediaTypeStrategicMergePatch}

const fuzzDoc = `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","labels":{"a":"b"}},"spec":{"containers":[{"name":"c","image":"i","ports":[{"containerPort":80}]}]}}`

// FuzzPatch applies arbitrary JSON, merge and strategic merge patches to a
// Pod: a 4xx or a result, never a panic or a 500, and bounded work (the
// copy and operation limits).
func FuzzPatch(f *testing.F) {
	f.Add(uint8(0), []byte(`[{"op":"add","path":"/metadata/labels/x","value":"y"}]`))
	f.Add(uint8(0), []byte(`[{"op":"copy","from":"/spec","path":"/spec/x"},{"op":"move","from":"/metadata","path":"/m"}]`))
	f.Add(uint8(1), []byte(`{"metadata":{"labels":{"a":null}},"spec":{"containers":[]}}`))
	f.Add(uint8(2), []byte(`{"spec":{"containers":[{"name":"c","$patch":"delete"}],"$setElementOrder/containers":[{"name":"c"}]}}`))
	f.Add(uint8(2), []byte(`{"spec":{"$retainKeys":["containers"],"containers":[{"name":"d","ports":[{"containerPort":1,"$patch":"replace"}]}]}}`))
	meta, err := strategicpatch.NewPatchMetaFromStruct(corev1.Pod{})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, kind uint8, body []byte) {
		pt := patchTypes[int(kind)%len(patchTypes)]
		for _, directive := range []string{metav1.FieldValidationStrict, metav1.FieldValidationIgnore} {
			apply, _, err := preparePatch(pt, body, directive, func() (strategicpatch.LookupPatchMeta, error) { return meta, nil })
			clientError(t, pt+" prepare", err)
			if err != nil {
				continue
			}
			_, err = apply([]byte(fuzzDoc))
			clientError(t, pt+" apply", err)
		}
	})
}

// FuzzBody decodes arbitrary JSON and YAML request bodies into an object:
// a 4xx or an object.
func FuzzBody(f *testing.F) {
	f.Add(true, []byte(fuzzDoc))
	f.Add(false, []byte("a: &x [*x, *x]\nb: *x\n"))
	f.Add(false, []byte("apiVersion: v1\nkind: Pod\nmetadata: {name: p, name: q}\n"))
	f.Add(true, []byte(`{"metadata":{"name":"p","name":"q"},"spec":{"containers":[{"name":1}]}}`))
	f.Fuzz(func(t *testing.T, isJSON bool, body []byte) {
		ct := "application/yaml"
		if isJSON {
			ct = "application/json"
		}
		data, strict, err := bodyToJSON(ct, body, metav1.FieldValidationStrict)
		clientError(t, "body to JSON", err)
		if err != nil {
			return
		}
		var pod corev1.Pod
		clientError(t, "unmarshal", unmarshal(nil, data, &pod, metav1.FieldValidationStrict, strict, "pod"))
		// The retry and the wrong-type walk a kind of yours gets: no
		// panic, valid JSON stays valid, and every cause names a field.
		if fixed, changed := integralFloats(data); changed && json.Valid(data) && !json.Valid(fixed) {
			t.Errorf("integralFloats made %s invalid: %s", data, fixed)
		}
		errs, unknown := typeErrors(reflect.TypeFor[corev1.Pod](), data)
		for _, e := range errs {
			if e.Field == "" || e.Field == "<nil>" {
				t.Errorf("a wrong type without a field: %v", e)
			}
		}
		for _, e := range unknown {
			if !strings.HasPrefix(e.Error(), "unknown field \"") {
				t.Errorf("an unknown field reported as %v", e)
			}
		}
	})
}

// FuzzListParams parses arbitrary list query parameters (selectors,
// limit, continue, resourceVersion): a 4xx or options (the store checks
// them further: runtime/storage tests).
func FuzzListParams(f *testing.F) {
	f.Add("a=b,c!=d,e in (f,g),!h", "metadata.name=x", "500", "", "0")
	f.Add("a in (", "spec.x==y", "-1", "eyJ2IjoxfQ", "abc")
	f.Add("", "metadata.namespace!=default,metadata.name=a", "1", "!!", "12")
	f.Fuzz(func(t *testing.T, labels, fields, limit, cont, rv string) {
		q := url.Values{"labelSelector": {labels}, "fieldSelector": {fields}, "limit": {limit}, "continue": {cont}, "resourceVersion": {rv}}
		_, err := parseListOptions(q)
		clientError(t, "list options", err)
	})
}
