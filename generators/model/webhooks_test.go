package model

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/kubeforge/kubeforge/generators/markers"
)

// TestWebhooks: +kubebuilder:webhook markers of internal/webhook/** and of
// the types packages' *_webhook.go are resolved to their kind and
// implementing type (typed or untyped, with Configure<Type>), a spoke
// version's too; markers naming an unknown resource or verb, or with no
// implementation, are errors at their positions.
func TestWebhooks(t *testing.T) {
	t.Parallel()
	_, err := Load("testdata/webhooksbad", LoadOptions{})
	var list markers.ErrorList
	if !errors.As(err, &list) {
		t.Fatalf("want a markers.ErrorList, got %v", err)
	}
	want := []string{
		`internal/webhook/bad/bad_webhook.go:11:4: +kubebuilder:webhook nokind.example.dev: no kind with resource widgets in hooks.example.dev/v1 under types`,
		`internal/webhook/bad/bad_webhook.go:13:4: +kubebuilder:webhook verb.example.dev: verb "patch" is not create, update, delete, connect or *`,
		`internal/webhook/bad/bad_webhook.go:15:4: +kubebuilder:webhook noimpl.example.dev: no type in package github.com/kubeforge/kubeforge/generators/model/testdata/webhooksbad/internal/webhook/bad implements controller-runtime's admission.Validator[*Thing] or CustomValidator (ValidateCreate, ValidateUpdate, ValidateDelete)`,
	}
	var got []string
	for _, e := range list {
		got = append(got, e.Error())
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("errors:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestWebhooksFound(t *testing.T) {
	t.Parallel()
	api := load(t, "testdata/webhooks")
	var got []string
	for _, w := range api.Webhooks {
		got = append(got, fmt.Sprintf("%s mutating=%v %s %s %v %s.%s typed=%v configure=%v %s/%s", w.Name, w.Mutating, w.FailurePolicy, w.SideEffects, w.Operations,
			w.Package[strings.LastIndex(w.Package, "testdata/")+len("testdata/"):], w.Type, w.Typed, w.Configure, w.Kind.Version.Name, w.Kind.Name))
	}
	want := []string{
		"mthing.example.dev mutating=true Fail None [CREATE UPDATE] webhooks/internal/webhook/v1.ThingDefaulter typed=true configure=true v1/Thing",
		"vthing.example.dev mutating=false Fail None [CREATE UPDATE DELETE] webhooks/internal/webhook/v1.ThingValidator typed=true configure=false v1/Thing",
		"mthing-v2.example.dev mutating=true Fail Unknown [CREATE] webhooks/internal/webhook/v2.ThingDefaulter typed=true configure=false v2/Thing",
		"old-vthing.example.dev mutating=false Ignore NoneOnDryRun [DELETE] webhooks/types/hooks/v1.ThingValidator typed=false configure=false v1/Thing",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("webhooks:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
