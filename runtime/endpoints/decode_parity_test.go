package endpoints

import (
	"bytes"
	"fmt"
	"math/rand"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kjson "sigs.k8s.io/json"

	"github.com/kubeforge/kubeforge/runtime/jsondecode"
	shippingv1 "github.com/kubeforge/kubeforge/types/shipping/v1"
)

// unmarshalBefore is unmarshal as it was before runtime/jsondecode: the
// reference the request path must still match byte for byte.
func unmarshalBefore(w http.ResponseWriter, data []byte, obj any, directive string, extraStrict []error, what string) error {
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
		err = kjson.UnmarshalCaseSensitivePreserveInts(data, obj)
	} else {
		strictErrs, err = kjson.UnmarshalStrict(data, obj)
	}
	if err != nil {
		return apierrors.NewBadRequest(fmt.Sprintf("error decoding the %s: %v", what, err))
	}
	strictErrs = append(extraStrict, strictErrs...)
	return handleStrict(w, strictErrs, directive)
}

var requestBodies = []string{
	`{"apiVersion":"shipping.kubeforge.dev/v1","kind":"Shipment","metadata":{"name":"a","labels":{"x":"y"}},"spec":{"priority":"Low","origin":{"street":"s","city":"c"},"destination":{"street":"s","city":"c"},"parcels":[{"name":"p","weight":"1Gi","count":2}],"pickupAfter":"2024-01-02T03:04:05Z","delayTolerance":"5m","handlingTime":"1h","notify":"n"}}`,
	`{"metadata":{"name":"a","name":"b"}}`,
	`{"metadata":{"name":"a"},"spec":{"priority":"Low","Priority":"High"}}`,
	`{"metadata":{"Name":"a"}}`,
	`{"metadata":{"name":"a","unknown":1},"spec":{"origin":{"zip":"1"}},"extra":[1,2]}`,
	`{"metadata":{"labels":{"a":"1","a":"2"}}}`,
	`{"spec":{"parcels":[{"name":"p","name":"q"},{"count":"2"}]}}`,
	`{"spec":{"parcels":[{"count":2147483648}]}}`,
	`{"spec":{"parcels":[{"count":1.5}]}}`,
	`{"spec":{"pickupAfter":"yesterday"}}`,
	`{"spec":{"pickupAfter":null,"carrier":null,"tags":null}}`,
	`{"spec":{"delayTolerance":1.5}}`,
	`{"metadata":{"name":"\u0061\ud800"}}`,
	"{\"metadata\":{\"name\":\"\xff\"}}",
	`{"metadata":{"name":"a"}`,
	`{"metadata":{"name":"a"}} {}`,
	`{"metadata":{"name":"a"},}`,
	`{"metadata":` + strings.Repeat("[", 10001) + strings.Repeat("]", 10001) + `}`,
	`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"i","ports":[{"containerPort":80,"protocol":"TCP"}],"resources":{"limits":{"cpu":"1"}}}]}}`,
	`{"spec":{"containers":[{"name":"c","Image":"i"}],"unknown":{"a":1},"nodeSelector":{"a":"b","a":"c"}}}`,
	` {} `, `{}`, ``, `[]`, `null`,
}

// TestUnmarshalMatchesBefore: the request-body decode on the fast path
// returns, per fieldValidation directive, the same object, error (Status
// and message) and Warning headers as before, for plain bodies, unknown,
// duplicate and case-variant fields, type errors and syntax errors, and
// random byte edits of them.
func TestUnmarshalMatchesBefore(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	bodies := append([]string(nil), requestBodies...)
	for range 300 {
		b := []byte(requestBodies[r.Intn(2)*18])
		i := r.Intn(len(b))
		b[i] = `{}[]":,0a1\ .-e`[r.Intn(15)]
		bodies = append(bodies, string(b))
	}
	types := []reflect.Type{reflect.TypeFor[shippingv1.Shipment](), reflect.TypeFor[corev1.Pod]()}
	fastBefore, _ := jsondecode.Counts()
	for _, body := range bodies {
		for _, typ := range types {
			for _, directive := range []string{metav1.FieldValidationStrict, metav1.FieldValidationWarn, metav1.FieldValidationIgnore} {
				compareUnmarshal(t, typ, body, directive)
			}
		}
	}
	if fast, _ := jsondecode.Counts(); fast == fastBefore {
		t.Fatal("no request body decoded on the fast path")
	}
}

func compareUnmarshal(t *testing.T, typ reflect.Type, body, directive string) {
	t.Helper()
	extra := []error{fmt.Errorf(`line 1: key "x" already set in map`)}
	for _, extraStrict := range [][]error{nil, extra} {
		gotObj, wantObj := reflect.New(typ).Interface(), reflect.New(typ).Interface()
		gotW, wantW := httptest.NewRecorder(), httptest.NewRecorder()
		gotErr := unmarshal(gotW, []byte(body), gotObj, directive, extraStrict, "request body")
		wantErr := unmarshalBefore(wantW, []byte(body), wantObj, directive, extraStrict, "request body")
		if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) || reflect.TypeOf(gotErr) != reflect.TypeOf(wantErr) {
			t.Fatalf("%v %s %q: error %v, before %v", typ, directive, body, gotErr, wantErr)
		}
		if gotErr != nil && apierrors.ReasonForError(gotErr) != apierrors.ReasonForError(wantErr) {
			t.Fatalf("%v %s %q: reason %s, before %s", typ, directive, body, apierrors.ReasonForError(gotErr), apierrors.ReasonForError(wantErr))
		}
		if !reflect.DeepEqual(gotW.Header(), wantW.Header()) {
			t.Fatalf("%v %s %q: headers %v, before %v", typ, directive, body, gotW.Header(), wantW.Header())
		}
		if gotErr == nil && !reflect.DeepEqual(gotObj, wantObj) {
			t.Fatalf("%v %s %q: decoded objects differ", typ, directive, body)
		}
	}
}
