package webhook

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubeforge/kubeforge/runtime/admission"
	"github.com/kubeforge/kubeforge/runtime/admission/match"
)

type source struct {
	validating []*admissionregistrationv1.ValidatingWebhookConfiguration
}

func (s *source) MutatingWebhookConfigurations() []*admissionregistrationv1.MutatingWebhookConfiguration {
	return nil
}

func (s *source) ValidatingWebhookConfigurations() []*admissionregistrationv1.ValidatingWebhookConfiguration {
	return s.validating
}

// answering is a real TLS webhook that answers every review with resp
// (the request's uid filled in unless resp sets one).
func answering(t *testing.T, resp admissionv1.AdmissionResponse) *httptest.Server {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var rv admissionv1.AdmissionReview
		if err := json.NewDecoder(r.Body).Decode(&rv); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		out := resp
		if out.UID == "" {
			out.UID = rv.Request.UID
		}
		rv.Request, rv.Response = nil, &out
		_ = json.NewEncoder(w).Encode(rv)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func configFor(srv *httptest.Server, fp admissionregistrationv1.FailurePolicyType) *source {
	url := srv.URL
	none := admissionregistrationv1.SideEffectClassNone
	caPEM := pemOf(srv)
	return &source{validating: []*admissionregistrationv1.ValidatingWebhookConfiguration{{
		ObjectMeta: metav1.ObjectMeta{Name: "c"},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{
			Name:          "v.example.dev",
			ClientConfig:  admissionregistrationv1.WebhookClientConfig{URL: &url, CABundle: caPEM},
			FailurePolicy: &fp,
			SideEffects:   &none,
			Rules: []admissionregistrationv1.RuleWithOperations{{
				Operations: []admissionregistrationv1.OperationType{"*"},
				Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"configmaps"}},
			}},
		}},
	}}}
}

func write() *admission.Attributes {
	cm := &corev1.ConfigMap{TypeMeta: metav1.TypeMeta{Kind: "ConfigMap", APIVersion: "v1"}, ObjectMeta: metav1.ObjectMeta{Name: "cm", Namespace: "default"}}
	return &admission.Attributes{Operation: admission.Create, Kind: schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"},
		Resource: schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, Namespace: "default", Name: "cm", Object: cm}
}

// TestValidatingAnswers: kube's messages and codes for what a webhook
// answers, and failurePolicy for answers that cannot be used.
func TestValidatingAnswers(t *testing.T) {
	for _, tc := range []struct {
		name string
		resp admissionv1.AdmissionResponse
		fp   admissionregistrationv1.FailurePolicyType
		code int32
		msg  string
	}{
		{"allowed", admissionv1.AdmissionResponse{Allowed: true}, admissionregistrationv1.Fail, 0, ""},
		{"denied with a message and code", admissionv1.AdmissionResponse{Result: &metav1.Status{Code: 403, Message: "no"}}, admissionregistrationv1.Fail,
			403, `admission webhook "v.example.dev" denied the request: no`},
		{"denied without explanation, code below 400", admissionv1.AdmissionResponse{Result: &metav1.Status{Code: 200}}, admissionregistrationv1.Fail,
			400, `admission webhook "v.example.dev" denied the request without explanation`},
		{"a wrong uid under Fail", admissionv1.AdmissionResponse{UID: "other", Allowed: true}, admissionregistrationv1.Fail,
			500, `failed calling webhook "v.example.dev": expected response.uid=`},
		{"a wrong uid under Ignore", admissionv1.AdmissionResponse{UID: "other", Allowed: true}, admissionregistrationv1.Ignore, 0, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := New(&match.Env{}, configFor(answering(t, tc.resp), tc.fp), NewMetrics(nil))
			err := p.Validate(context.Background(), write())
			if tc.code == 0 {
				if err != nil {
					t.Fatalf("want allowed, got %v", err)
				}
				return
			}
			var se *apierrors.StatusError
			if !errorsAs(err, &se) || se.ErrStatus.Code != tc.code || !strings.Contains(se.ErrStatus.Message, tc.msg) {
				t.Fatalf("want %d %q, got %v", tc.code, tc.msg, err)
			}
		})
	}
}

// TestUntrustedCertificate: a webhook whose certificate the caBundle does
// not sign is a call failure. (Every httptest server shares one
// certificate, so the other CA is made here.)
func TestUntrustedCertificate(t *testing.T) {
	src := configFor(answering(t, admissionv1.AdmissionResponse{Allowed: true}), admissionregistrationv1.Fail)
	src.validating[0].Webhooks[0].ClientConfig.CABundle = otherCA(t)
	err := New(&match.Env{}, src, nil).Validate(context.Background(), write())
	if err == nil || !strings.Contains(err.Error(), "failed calling webhook") || !strings.Contains(err.Error(), "certificate") {
		t.Errorf("got %v", err)
	}
}

// TestConfigurationsExempt: a webhook that matches everything and denies
// never sees writes of the admission configurations themselves, so it
// can be deleted.
func TestConfigurationsExempt(t *testing.T) {
	src := configFor(answering(t, admissionv1.AdmissionResponse{Result: &metav1.Status{Message: "no"}}), admissionregistrationv1.Fail)
	r := &src.validating[0].Webhooks[0].Rules[0]
	r.APIGroups, r.APIVersions, r.Resources = []string{"*"}, []string{"*"}, []string{"*/*"}
	p := New(&match.Env{}, src, nil)
	if err := p.Validate(context.Background(), write()); err == nil {
		t.Fatal("the webhook matching everything did not deny a ConfigMap")
	}
	del := &admission.Attributes{Operation: admission.Delete, Name: "c",
		Kind:     admissionregistrationv1.SchemeGroupVersion.WithKind("ValidatingWebhookConfiguration"),
		Resource: admissionregistrationv1.SchemeGroupVersion.WithResource("validatingwebhookconfigurations")}
	if err := p.Validate(context.Background(), del); err != nil {
		t.Errorf("the delete of a webhook configuration was sent to a webhook: %v", err)
	}
}
