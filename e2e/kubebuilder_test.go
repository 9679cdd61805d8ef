package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"
)

// kubebuilderProject adds testdata/kubebuilder (the kubebuilder book's
// CronJob in two versions: v1 the hub with Hub(), v2 a spoke converted by
// ConvertTo/ConvertFrom, and the project's webhooks) to a copy of the
// project as a kubebuilder user would, generates, builds and starts it.
func kubebuilderProject(t *testing.T) (*apiserver, string) {
	t.Helper()
	if testing.Short() {
		t.Skip("generates and builds a copy of the project")
	}
	root := t.TempDir()
	copyProject(t, root)
	src := filepath.Join("testdata", "kubebuilder")
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		dst := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	// As a user does after adding packages with new imports: go mod tidy
	// records what the webhook packages need of controller-runtime.
	for _, args := range [][]string{{"mod", "tidy"}, {"generate", "./..."}, {"build", "-o", "apiserver", "./cmd/apiserver"}} {
		cmd := exec.Command("go", args...)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go %s with the kubebuilder project: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	s, err := startServerBin(filepath.Join(root, "apiserver"), t.TempDir(), 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.stop() })
	return s, root
}

const (
	cronV1 = "cronjobs.v1.batch.tutorial.kubebuilder.io"
	cronV2 = "cronjobs.v2.batch.tutorial.kubebuilder.io"
)

// TestKubebuilderProject serves a kubebuilder project dropped in whole:
// its conversions (controller-runtime Convertible) and webhooks run in the
// apiserver, checked with kubectl as a user of the CRDs would.
func TestKubebuilderProject(t *testing.T) {
	s, _ := kubebuilderProject(t)
	k := newKubectl(t, s)
	manifest := func(name string) string {
		return mustRead(t, filepath.Join("testdata", "kubebuilder", "manifests", name))
	}
	t.Run("conversion", func(t *testing.T) { kubebuilderConversion(t, k, manifest) })
	t.Run("webhooks", func(t *testing.T) { kubebuilderWebhooks(t, s, k, manifest) })
}

func kubebuilderConversion(t *testing.T, k *kubectl, manifest func(string) string) {
	// Created through v1, read through v2: the cron line is split.
	wantOut(t, k.ok(t, manifest("cronjob-v1.yaml"), "create", "-f", "-"), "cronjob.batch.tutorial.kubebuilder.io/cronjob-sample created\n")
	if got := k.ok(t, "", "get", cronV2, "cronjob-sample", "-o", "jsonpath={.apiVersion} {.spec.schedule.minute} {.spec.schedule.hour} {.spec.startingDeadlineSeconds}"); got != "batch.tutorial.kubebuilder.io/v2 */1 * 60" {
		t.Errorf("v1 object read through v2: %q", got)
	}
	// Created through v2, read through v1: the parts are joined.
	wantOut(t, k.ok(t, manifest("cronjob-v2.yaml"), "create", "-f", "-"), "cronjob.batch.tutorial.kubebuilder.io/cronjob-v2 created\n")
	if got := k.ok(t, "", "get", cronV1, "cronjob-v2", "-o", "jsonpath={.apiVersion} {.spec.schedule}"); got != "batch.tutorial.kubebuilder.io/v1 */1 * * * *" {
		t.Errorf("v2 object read through v1: %q", got)
	}
	// Listed through v2, and watched: the initial events are v2 objects.
	if got := k.ok(t, "", "get", cronV2, "-o", "jsonpath={range .items[*]}{.metadata.name}={.spec.schedule.minute} {end}"); got != "cronjob-sample=*/1 cronjob-v2=*/1 " {
		t.Errorf("list through v2: %q", got)
	}
	watch := k.start(t, "get", cronV2, "--watch", "-o", "jsonpath={.metadata.name}={.spec.schedule.hour};", "--request-timeout=6s")
	time.Sleep(time.Second)
	// A merge patch through v2 changes one part of the stored cron line.
	k.ok(t, "", "patch", cronV2, "cronjob-sample", "--type=merge", "-p", `{"spec":{"schedule":{"hour":"3"}}}`)
	if got := k.ok(t, "", "get", cronV1, "cronjob-sample", "-o", "jsonpath={.spec.schedule}"); got != "*/1 3 * * *" {
		t.Errorf("after a merge patch of hour through v2, v1 schedule = %q", got)
	}
	w := await(t, watch, 20*time.Second, "watch through v2")
	for _, want := range []string{"cronjob-sample=*;", "cronjob-v2=*;", "cronjob-sample=3;"} {
		if !strings.Contains(w.stdout, want) {
			t.Errorf("watch through v2 lacks %q:\n%s", want, w)
		}
	}
	// Server-side apply through v2 owns the day of week, in v2's terms.
	apply := "apiVersion: batch.tutorial.kubebuilder.io/v2\nkind: CronJob\nmetadata:\n  name: cronjob-sample\nspec:\n  schedule:\n    dayOfWeek: \"1-5\"\n"
	k.ok(t, apply, "apply", "--server-side", "--field-manager=ops", "-f", "-")
	var obj struct {
		Metadata struct {
			ManagedFields []struct {
				Manager, APIVersion string
				FieldsV1            json.RawMessage
			} `json:"managedFields"`
		} `json:"metadata"`
		Spec struct {
			Schedule string `json:"schedule"`
		} `json:"spec"`
	}
	if err := json.Unmarshal([]byte(k.ok(t, "", "get", cronV1, "cronjob-sample", "-o", "json", "--show-managed-fields")), &obj); err != nil {
		t.Fatal(err)
	}
	if obj.Spec.Schedule != "*/1 3 * * 1-5" {
		t.Errorf("after apply of dayOfWeek through v2, v1 schedule = %q", obj.Spec.Schedule)
	}
	var found bool
	for _, e := range obj.Metadata.ManagedFields {
		var fields bytes.Buffer
		if e.Manager == "ops" && json.Compact(&fields, e.FieldsV1) == nil {
			found = e.APIVersion == "batch.tutorial.kubebuilder.io/v2" && fields.String() == `{"f:spec":{"f:schedule":{"f:dayOfWeek":{}}}}`
		}
	}
	if !found {
		t.Errorf("no v2 managedFields entry for the applier: %+v", obj.Metadata.ManagedFields)
	}
	// Another applier of the day of week through v2 conflicts.
	if r := k.run(t, strings.Replace(apply, "1-5", "0", 1), "apply", "--server-side", "--field-manager=other", "-f", "-"); r.code == 0 || !strings.Contains(r.stderr, `conflict with "ops"`) {
		t.Errorf("a second applier: want a conflict naming ops:\n%s", r)
	}

	// An apply through v1 of a schedule v2 cannot express, on an object
	// with v2 managers: their fields are computed in v2, so the apply
	// fails as a failing conversion webhook does; nothing is stored.
	daily := "apiVersion: batch.tutorial.kubebuilder.io/v1\nkind: CronJob\nmetadata:\n  name: cronjob-sample\nspec:\n  schedule: \"@daily\"\n"
	if r := k.run(t, daily, "apply", "--server-side", "--field-manager=v1-applier", "--force-conflicts", "-f", "-"); r.code == 0 || !strings.Contains(r.stderr, `conversion webhook for batch.tutorial.kubebuilder.io/v1, Kind=CronJob failed: schedule "@daily" is not five fields`) {
		t.Errorf("apply of @daily through v1 over v2 managers: want the conversion's error:\n%s", r)
	}
	if got := k.ok(t, "", "get", cronV1, "cronjob-sample", "-o", "jsonpath={.spec.schedule}"); got != "*/1 3 * * 1-5" {
		t.Errorf("after the refused apply, schedule = %q", got)
	}

	// A part with a space is refused by v2's ConvertTo: kube's answer to
	// a failing conversion webhook, and nothing is stored.
	bad := strings.Replace(strings.Replace(manifest("cronjob-v2.yaml"), `"*/1"`, `"1 2"`, 1), "cronjob-v2", "spaced", 1)
	r := k.run(t, bad, "create", "-f", "-")
	if r.code == 0 || !strings.Contains(r.stderr, `conversion webhook for batch.tutorial.kubebuilder.io/v2, Kind=CronJob failed: schedule part 1 ("1 2") has a space`) {
		t.Errorf("create with a spaced part: want the conversion's error:\n%s", r)
	}
	if r := k.run(t, "", "get", cronV1, "spaced"); r.code == 0 || !strings.Contains(r.stderr, "not found") {
		t.Errorf("the refused object was stored:\n%s", r)
	}
	// A v1 schedule v2 cannot express (a descriptor) is stored through v1
	// and cannot be read through v2: a 500, as a failing conversion
	// webhook is in kube-apiserver, and v1 still reads it.
	hourly := strings.Replace(strings.Replace(manifest("cronjob-v1.yaml"), `"*/1 * * * *"`, `"@hourly"`, 1), "cronjob-sample", "hourly", 1)
	k.ok(t, hourly, "create", "-f", "-")
	r = k.run(t, "", "get", cronV2, "hourly", "-v=6")
	if r.code == 0 || !strings.Contains(r.stderr, `conversion webhook for batch.tutorial.kubebuilder.io/v1, Kind=CronJob failed: schedule "@hourly" is not five fields`) || !strings.Contains(r.stderr, `status="500 Internal Server Error"`) {
		t.Errorf("read of @hourly through v2: want a 500 with the conversion's error:\n%s", r)
	}
	if got := k.ok(t, "", "get", cronV1, "hourly", "-o", "jsonpath={.spec.schedule}"); got != "@hourly" {
		t.Errorf("v1 read of hourly: %q", got)
	}
	k.ok(t, "", "delete", cronV1, "hourly")
}

// kubebuilderWebhooks: the project's defaulter and validator
// (internal/webhook/v1) run in the apiserver on writes through either
// version, as kube-apiserver calls them with matchPolicy Equivalent.
func kubebuilderWebhooks(t *testing.T, s *apiserver, k *kubectl, manifest func(string) string) {
	rename := func(m, name string) string {
		return strings.Replace(strings.Replace(m, "cronjob-sample", name, 1), "cronjob-v2", name, 1)
	}
	// The defaulter (its fields set by ConfigureCronJobCustomDefaulter)
	// fills what the manifest leaves out, through v1 and through v2, and
	// reads the user from admission.RequestFromContext.
	for _, c := range []struct{ file, name string }{{"cronjob-v1.yaml", "def-v1"}, {"cronjob-v2.yaml", "def-v2"}} {
		k.ok(t, rename(manifest(c.file), c.name), "create", "-f", "-")
		got := k.ok(t, "", "get", cronV1, c.name, "-o", `jsonpath={.spec.successfulJobsHistoryLimit} {.spec.failedJobsHistoryLimit} {.spec.suspend} {.spec.concurrencyPolicy} {.metadata.annotations.batch\.tutorial\.kubebuilder\.io/created-by}`)
		if got != "3 1 false Allow kubeforge-admin" {
			t.Errorf("%s: defaults and creator = %q, want \"3 1 false Allow kubeforge-admin\"", c.name, got)
		}
	}
	// The validator refuses a bad schedule with its own message, as
	// kube's answer to a denying webhook; nothing is stored.
	bad := strings.Replace(rename(manifest("cronjob-v1.yaml"), "badsched"), `"*/1 * * * *"`, `"*/1 * * *"`, 1)
	r := k.run(t, bad, "create", "-f", "-")
	if r.code == 0 || !strings.Contains(r.stderr, `The CronJob "badsched" is invalid: spec.schedule: Invalid value: "*/1 * * *": expected exactly 5 fields, found 4`) {
		t.Errorf("create with a 4-field schedule: want the validator's 422:\n%s", r)
	}
	cron := s.dynamic(t).Resource(schema.GroupVersionResource{Group: "batch.tutorial.kubebuilder.io", Version: "v1", Resource: "cronjobs"}).Namespace("default")
	var u unstructured.Unstructured
	if err := yamlToUnstructured(bad, &u); err != nil {
		t.Fatal(err)
	}
	_, err := cron.Create(ctx(t, 10*time.Second), &u, metav1.CreateOptions{})
	want := `admission webhook "vcronjob-v1.kb.io" denied the request: CronJob.batch.tutorial.kubebuilder.io "badsched" is invalid: spec.schedule: Invalid value: "*/1 * * *": expected exactly 5 fields, found 4: */1 * * *`
	if err == nil || err.Error() != want {
		t.Errorf("create with a 4-field schedule through client-go: %v, want %s", err, want)
	}
	if r := k.run(t, "", "get", cronV1, "badsched"); !strings.Contains(r.stderr, "not found") {
		t.Errorf("the refused object was stored:\n%s", r)
	}
	// Through v2: the hour 77 is refused by the v1 validator, after
	// conversion; the object keeps its schedule.
	if r := k.run(t, "", "patch", cronV2, "def-v2", "--type=merge", "-p", `{"spec":{"schedule":{"hour":"77"}}}`); r.code == 0 || !strings.Contains(r.stderr, "end of range (77) above maximum (23)") {
		t.Errorf("patch of hour 77 through v2: want the validator's 422:\n%s", r)
	}
	if got := k.ok(t, "", "get", cronV1, "def-v2", "-o", "jsonpath={.spec.schedule}"); got != "*/1 * * * *" {
		t.Errorf("after the refused patch, schedule = %q", got)
	}
	// A warning of the validator reaches kubectl.
	r = k.run(t, "", "patch", cronV2, "def-v2", "--type=merge", "-p", `{"spec":{"suspend":true}}`)
	if r.code != 0 || strings.Count(r.stderr, "Warning: cronjob def-v2 is suspended: no job will run until spec.suspend is false") != 1 {
		t.Errorf("suspending: want the validator's warning once:\n%s", r)
	}
	// ValidateDelete blocks the deletion of a protected CronJob.
	k.ok(t, "", "label", cronV1, "def-v1", "protected=true")
	r = k.run(t, "", "delete", cronV2, "def-v1")
	if r.code == 0 || !strings.Contains(r.stderr, `Error from server (Forbidden): admission webhook "vcronjob-v1.kb.io" denied the request: cronjob "def-v1" is protected: remove the label protected=true first`) {
		t.Errorf("delete of a protected CronJob: want the validator's 403:\n%s", r)
	}
	k.ok(t, "", "get", cronV1, "def-v1")
	k.ok(t, "", "label", cronV1, "def-v1", "protected-")
	k.ok(t, "", "delete", cronV1, "def-v1")
	// The v2 validator (internal/webhook/v2, matchPolicy=Exact) sees the
	// writes through v2, in their v2 form, and not those through v1.
	if r := k.run(t, "", "patch", cronV2, "def-v2", "--type=merge", "-p", `{"spec":{"schedule":{"hour":"13"}}}`); r.code == 0 || !strings.Contains(r.stderr, `admission webhook "vcronjob-v2.kb.io" denied the request: the hour 13 is reserved (request for v2)`) {
		t.Errorf("patch through v2 to hour 13: want the v2 validator's refusal:\n%s", r)
	}
	thirteen := strings.Replace(rename(manifest("cronjob-v1.yaml"), "thirteen"), `"*/1 * * * *"`, `"0 13 * * *"`, 1)
	k.ok(t, thirteen, "create", "-f", "-")
	// The validator's client (given by ConfigureCronJobCustomValidator)
	// reads this server from inside the request: a second exclusive
	// CronJob with a taken schedule is refused.
	exclusive := func(name string) string {
		m := strings.Replace(rename(manifest("cronjob-v1.yaml"), name), `"*/1 * * * *"`, `"7 7 * * *"`, 1)
		return strings.Replace(m, "metadata:\n", "metadata:\n  annotations:\n    batch.tutorial.kubebuilder.io/exclusive: \"true\"\n", 1)
	}
	k.ok(t, exclusive("excl-1"), "create", "-f", "-")
	if r := k.run(t, exclusive("excl-2"), "create", "-f", "-"); r.code == 0 || !strings.Contains(r.stderr, `admission webhook "vcronjob-v1.kb.io" denied the request: schedule "7 7 * * *" is taken by cronjob excl-1`) {
		t.Errorf("a second exclusive CronJob: want the validator's refusal naming excl-1:\n%s", r)
	}
	// Dry run: the webhooks (sideEffects=None) run, nothing is stored.
	out := k.ok(t, rename(manifest("cronjob-v2.yaml"), "dry"), "create", "--dry-run=server", "-f", "-", "-o", "jsonpath={.spec.successfulJobsHistoryLimit}")
	if out != "3" {
		t.Errorf("dry-run create: successfulJobsHistoryLimit %q, want the default 3", out)
	}
	if r := k.run(t, "", "get", cronV1, "dry"); !strings.Contains(r.stderr, "not found") {
		t.Errorf("the dry-run object was stored:\n%s", r)
	}
	if r := k.run(t, strings.Replace(bad, "badsched", "drybad", 1), "create", "--dry-run=server", "-f", "-"); r.code == 0 || !strings.Contains(r.stderr, "expected exactly 5 fields") {
		t.Errorf("dry-run create with a bad schedule: want the validator's 422:\n%s", r)
	}
}

func yamlToUnstructured(y string, u *unstructured.Unstructured) error {
	j, err := yaml.YAMLToJSON([]byte(y))
	if err != nil {
		return fmt.Errorf("convert manifest to JSON: %w", err)
	}
	return u.UnmarshalJSON(j)
}
