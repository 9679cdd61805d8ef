package webhooks

import (
	"strings"
	"testing"

	"github.com/kubeforge/kubeforge/generators/internal/gentest"
)

// TestGenerate: one Install<Kind>Webhooks for the storage version, every
// webhook in marker order, untyped ones adapted, Configure<Type> called.
func TestGenerate(t *testing.T) {
	api := gentest.Load(t, "../model/testdata/webhooks")
	files, err := Generator{}.Generate(api)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 1 || files[0].Path != "generated/hooks/v1/zz_generated.webhooks.go" {
		t.Fatalf("files: %v", files)
	}
	src := string(files[0].Content)
	for _, want := range []string{
		"func InstallThingWebhooks(st *storage.Store[*v1.Thing, *v1.ThingList], c client.Client) error {",
		"w0 := &webhookv1.ThingDefaulter{}",
		"webhookv1.ConfigureThingDefaulter(w0)",
		"w3 := &v1.ThingValidator{}",
		"Validator:     inprocess.UntypedValidator[*v1.Thing](w3),",
		`Operations:    []string{"DELETE"},`,
		`FailurePolicy: "Ignore",`,
		"inprocess.SpokeWebhook(&inprocess.Webhook[*v2.Thing]{",
		"hooksv2.ThingToHub, hooksv2.ThingFromHub)",
	} {
		if !strings.Contains(src, want) {
			t.Errorf("generated file lacks %q:\n%s", want, src)
		}
	}
}

// TestNoWebhooks: a project without webhooks gets no file (and so links
// neither runtime/inprocess nor controller-runtime).
func TestNoWebhooks(t *testing.T) {
	api := gentest.Load(t, "../..")
	files, err := Generator{}.Generate(api)
	if err != nil || len(files) != 0 {
		t.Errorf("files %v, err %v", files, err)
	}
}
