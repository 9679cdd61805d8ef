package builtin

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestSecretHooks(t *testing.T) {
	h := SecretHooks()
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "s"}, Data: map[string][]byte{"a": []byte("1"), "b": []byte("2")}, StringData: map[string]string{"b": "two"}}
	h.PrepareForCreate(s)
	if string(s.Data["a"]) != "1" || string(s.Data["b"]) != "two" || s.StringData != nil || s.Type != corev1.SecretTypeOpaque {
		t.Fatalf("prepared %+v", s)
	}
	if err := h.Admit(context.Background(), s, nil); err != nil {
		t.Fatal(err)
	}
	bad := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "s"}, Data: map[string][]byte{"no/slash": nil, "big": make([]byte, MaxDataBytes+1)}}
	err := h.Admit(context.Background(), bad, nil)
	if err == nil || !strings.Contains(err.Error(), `data[no/slash]: Invalid value`) || !strings.Contains(err.Error(), "data: Too long") {
		t.Errorf("bad keys and size: %v", err)
	}
	yes := true
	frozen := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "s"}, Immutable: &yes, Data: map[string][]byte{"a": []byte("1")}, Type: "Opaque"}
	changed := frozen.DeepCopy()
	changed.Data["a"] = []byte("2")
	changed.Immutable = nil
	changed.Type = "kubernetes.io/tls"
	err = h.Admit(context.Background(), changed, frozen)
	for _, want := range []string{"type: Invalid value", "immutable: Forbidden: field is immutable when `immutable` is set", "data: Forbidden"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("update of an immutable secret: %v, want %q", err, want)
		}
	}
	if err := h.Admit(context.Background(), frozen.DeepCopy(), frozen); err != nil {
		t.Errorf("unchanged immutable secret: %v", err)
	}
}

func TestConfigMapHooks(t *testing.T) {
	h := ConfigMapHooks()
	c := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c"}, Data: map[string]string{"k": "v", "dup": "x", "bad key": "y"}, BinaryData: map[string][]byte{"dup": nil}}
	err := h.Admit(context.Background(), c, nil)
	if err == nil || !strings.Contains(err.Error(), "duplicate of key present in binaryData") || !strings.Contains(err.Error(), "data[bad key]") {
		t.Errorf("configmap: %v", err)
	}
	yes := true
	frozen := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c"}, Immutable: &yes, Data: map[string]string{"k": "v"}}
	changed := frozen.DeepCopy()
	changed.Data["k"] = "w"
	if err := h.Admit(context.Background(), changed, frozen); err == nil || !strings.Contains(err.Error(), "data: Forbidden") {
		t.Errorf("immutable configmap changed: %v", err)
	}
}

// TestNamespacePhase: kube's ValidateNamespaceStatusUpdate: Active until
// deleted, Terminating after; an unset phase is defaulted, not refused.
func TestNamespacePhase(t *testing.T) {
	now := metav1.Now()
	for _, c := range []struct {
		phase    corev1.NamespacePhase
		deleting bool
		want     string
	}{
		{corev1.NamespaceActive, false, ""},
		{"", false, ""},
		{corev1.NamespaceTerminating, true, ""},
		{corev1.NamespaceTerminating, false, "status.Phase: Invalid value: \"Terminating\": may only be 'Active' if `deletionTimestamp` is empty"},
		{corev1.NamespaceActive, true, "status.Phase: Invalid value: \"Active\": may only be 'Terminating' if `deletionTimestamp` is not empty"},
	} {
		ns := &corev1.Namespace{Status: corev1.NamespaceStatus{Phase: c.phase}}
		if c.deleting {
			ns.DeletionTimestamp = &now
		}
		got := ""
		if errs := ValidateNamespace(ns); len(errs) > 0 {
			got = errs.ToAggregate().Error()
		}
		if got != c.want {
			t.Errorf("phase %q deleting %v: %q, want %q", c.phase, c.deleting, got, c.want)
		}
	}
}
