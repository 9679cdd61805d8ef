package inprocess

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/kubeforge/kubeforge/runtime/auth"
	"github.com/kubeforge/kubeforge/runtime/storage"
	"github.com/kubeforge/kubeforge/runtime/warnings"
)

// defaulter is a project's typed defaulter: it labels the object with
// what the admission request in its context says.
type defaulter struct{ panics bool }

func (d *defaulter) Default(ctx context.Context, cm *corev1.ConfigMap) error {
	if d.panics {
		panic("boom")
	}
	req, err := admission.RequestFromContext(ctx)
	if err != nil {
		return err
	}
	if cm.Labels == nil {
		cm.Labels = map[string]string{}
	}
	cm.Labels["op"] = string(req.Operation)
	cm.Labels["user"] = req.UserInfo.Username
	if *req.DryRun {
		cm.Labels["dry"] = "yes"
	}
	return nil
}

// validator is a project's untyped CustomValidator.
type validator struct{}

func (validator) ValidateCreate(_ context.Context, obj runtime.Object) (admission.Warnings, error) {
	cm := obj.(*corev1.ConfigMap)
	if cm.Data["size"] == "" {
		return admission.Warnings{"size is empty"}, nil
	}
	if cm.Data["size"] == "huge" {
		return nil, errors.New("huge is too big")
	}
	return nil, nil
}
func (validator) ValidateUpdate(ctx context.Context, _, obj runtime.Object) (admission.Warnings, error) {
	return validator{}.ValidateCreate(ctx, obj)
}
func (validator) ValidateDelete(_ context.Context, obj runtime.Object) (admission.Warnings, error) {
	return nil, apierrors.NewConflict(schema.GroupResource{Resource: "configmaps"}, obj.(*corev1.ConfigMap).Name, errors.New("still in use"))
}

func chain(d *defaulter, sideEffects, policy string) *Chain[*corev1.ConfigMap] {
	return &Chain[*corev1.ConfigMap]{
		GVK:      schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"},
		Resource: schema.GroupVersionResource{Version: "v1", Resource: "configmaps"},
		Webhooks: []*Webhook[*corev1.ConfigMap]{
			{Name: "m.example.dev", FailurePolicy: policy, SideEffects: sideEffects, Operations: []string{"CREATE", "UPDATE"}, Defaulter: d},
			{Name: "v.example.dev", FailurePolicy: "Fail", SideEffects: "None", Operations: []string{"CREATE", "UPDATE", "DELETE"}, Validator: UntypedValidator[*corev1.ConfigMap](validator{})},
		},
	}
}

func cm(size string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c", Namespace: "ns"}, Data: map[string]string{"size": size}}
}

func TestChain(t *testing.T) {
	var warned []string
	ctx := warnings.WithRecorder(auth.WithUser(context.Background(), &auth.User{Name: "alice"}), func(s string) { warned = append(warned, s) })
	c := chain(&defaulter{}, "NoneOnDryRun", "Fail")

	obj := cm("")
	if called, err := c.Mutate(ctx, storage.AdmissionAttributes[*corev1.ConfigMap]{Operation: "CREATE", Object: obj, DryRun: true}); err != nil || !called {
		t.Fatalf("mutate: called %v, %v", called, err)
	}
	if obj.Labels["op"] != "CREATE" || obj.Labels["user"] != "alice" || obj.Labels["dry"] != "yes" {
		t.Errorf("the defaulter saw the request as %v", obj.Labels)
	}
	if err := c.Validate(ctx, storage.AdmissionAttributes[*corev1.ConfigMap]{Operation: "CREATE", Object: obj}); err != nil || len(warned) != 1 || warned[0] != "size is empty" {
		t.Errorf("validate: %v, warnings %q", err, warned)
	}

	// A plain error is kube's 403 denial; an API status keeps its code.
	err := c.Validate(ctx, storage.AdmissionAttributes[*corev1.ConfigMap]{Operation: "UPDATE", Object: cm("huge"), Old: cm("")})
	if !apierrors.IsForbidden(err) || err.Error() != `admission webhook "v.example.dev" denied the request: huge is too big` {
		t.Errorf("a refused update: %v", err)
	}
	err = c.Validate(ctx, storage.AdmissionAttributes[*corev1.ConfigMap]{Operation: "DELETE", Old: cm("")})
	if !apierrors.IsConflict(err) || !strings.HasPrefix(err.Error(), `admission webhook "v.example.dev" denied the request: Operation cannot be fulfilled on configmaps "c": still in use`) {
		t.Errorf("a refused delete: %v", err)
	}
	// DELETE is not among the defaulter's verbs, nor does a defaulter see deletes.
	if called, err := c.Mutate(ctx, storage.AdmissionAttributes[*corev1.ConfigMap]{Operation: "DELETE", Old: cm("")}); err != nil || called {
		t.Errorf("mutate on delete: called %v, %v", called, err)
	}

	// A dry run through a webhook with side effects: kube's 400.
	_, err = chain(&defaulter{}, "Some", "Fail").Mutate(ctx, storage.AdmissionAttributes[*corev1.ConfigMap]{Operation: "CREATE", Object: cm("1"), DryRun: true})
	if !apierrors.IsBadRequest(err) || err.Error() != `admission webhook "m.example.dev" does not support dry run` {
		t.Errorf("dry run with side effects: %v", err)
	}

	// A panicking webhook could not be called: failurePolicy decides.
	_, err = chain(&defaulter{panics: true}, "None", "Fail").Mutate(ctx, storage.AdmissionAttributes[*corev1.ConfigMap]{Operation: "CREATE", Object: cm("1")})
	var se *apierrors.StatusError
	if !errors.As(err, &se) || se.ErrStatus.Code != http.StatusInternalServerError || !strings.Contains(err.Error(), `failed calling webhook "m.example.dev": the webhook panicked: boom`) {
		t.Errorf("panic with failurePolicy Fail: %v", err)
	}
	if _, err := chain(&defaulter{panics: true}, "None", "Ignore").Mutate(ctx, storage.AdmissionAttributes[*corev1.ConfigMap]{Operation: "CREATE", Object: cm("1")}); err != nil {
		t.Errorf("panic with failurePolicy Ignore: %v", err)
	}
}

// BenchmarkChain is what the in-process webhooks of a kind add to a
// create besides the project's own code (here trivial): building the
// admission.Request and calling each webhook on the typed object. There
// is no serialization: compare with one JSON encode and decode of the
// object, what an HTTP webhook costs before any network.
func BenchmarkChain(b *testing.B) {
	ctx := auth.WithUser(context.Background(), &auth.User{Name: "alice"})
	c := chain(&defaulter{}, "None", "Fail")
	obj := cm("1")
	b.ReportAllocs()
	for b.Loop() {
		a := storage.AdmissionAttributes[*corev1.ConfigMap]{Operation: "CREATE", Object: obj}
		if _, err := c.Mutate(ctx, a); err != nil {
			b.Fatal(err)
		}
		if err := c.Validate(ctx, a); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkJSONRoundTrip is the least an HTTP webhook adds before any
// network: the object encoded into the request and decoded by the webhook
// (the AdmissionReview envelope, the response and its JSON patch not
// counted). BenchmarkChain does none of it.
func BenchmarkJSONRoundTrip(b *testing.B) {
	obj := cm("1")
	b.ReportAllocs()
	for b.Loop() {
		data, err := json.Marshal(obj)
		if err != nil {
			b.Fatal(err)
		}
		var back corev1.ConfigMap
		if err := json.Unmarshal(data, &back); err != nil {
			b.Fatal(err)
		}
	}
}
