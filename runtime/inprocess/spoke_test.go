package inprocess

import (
	"context"
	"errors"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/kubeforge/kubeforge/runtime/storage"
)

// secretDefaulter is a webhook written for a "spoke" (here a Secret whose
// data is the hub ConfigMap's): it records the kind it was told about.
type secretDefaulter struct{}

func (secretDefaulter) Default(ctx context.Context, s *corev1.Secret) error {
	req, err := admission.RequestFromContext(ctx)
	if err != nil {
		return err
	}
	if _, ok := req.Object.Object.(*corev1.Secret); !ok {
		return errors.New("the request's object is not the converted one")
	}
	s.Data["kind"] = []byte(req.Kind.Kind)
	return nil
}

func secretFromHub(cm *corev1.ConfigMap) (*corev1.Secret, error) {
	s := &corev1.Secret{ObjectMeta: *cm.ObjectMeta.DeepCopy(), Data: map[string][]byte{}}
	for k, v := range cm.Data {
		s.Data[k] = []byte(v)
	}
	return s, nil
}

func secretToHub(s *corev1.Secret) (*corev1.ConfigMap, error) {
	cm := &corev1.ConfigMap{ObjectMeta: *s.ObjectMeta.DeepCopy(), Data: map[string]string{}}
	for k, v := range s.Data {
		cm.Data[k] = string(v)
	}
	return cm, nil
}

// TestSpokeWebhook: a webhook of another version gets the object converted
// to it, with the request naming its kind, and a defaulter's changes come
// back to the stored version.
func TestSpokeWebhook(t *testing.T) {
	w := SpokeWebhook(&Webhook[*corev1.Secret]{Name: "s.example.dev", SideEffects: "None", Operations: []string{"CREATE"}, Defaulter: secretDefaulter{}},
		schema.GroupVersionKind{Version: "v1", Kind: "Secret"}, schema.GroupVersionResource{Version: "v1", Resource: "secrets"}, secretToHub, secretFromHub)
	c := &Chain[*corev1.ConfigMap]{GVK: schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}, Webhooks: []*Webhook[*corev1.ConfigMap]{w}}
	obj := cm("1")
	if _, err := c.Mutate(context.Background(), storage.AdmissionAttributes[*corev1.ConfigMap]{Operation: "CREATE", Object: obj}); err != nil {
		t.Fatal(err)
	}
	if obj.Data["kind"] != "Secret" || obj.Data["size"] != "1" || obj.Name != "c" {
		t.Errorf("after the spoke defaulter: %+v", obj)
	}
}
