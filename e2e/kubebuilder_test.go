package e2e

import (
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
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
	for _, args := range [][]string{{"generate", "./..."}, {"build", "-o", "apiserver", "./cmd/apiserver"}} {
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
		if e.Manager == "ops" {
			found = e.APIVersion == "batch.tutorial.kubebuilder.io/v2" && string(e.FieldsV1) == `{"f:spec":{"f:schedule":{"f:dayOfWeek":{}}}}`
		}
	}
	if !found {
		t.Errorf("no v2 managedFields entry for the applier: %+v", obj.Metadata.ManagedFields)
	}
	// Another applier of the day of week through v2 conflicts.
	if r := k.run(t, strings.Replace(apply, "1-5", "0", 1), "apply", "--server-side", "--field-manager=other", "-f", "-"); r.code == 0 || !strings.Contains(r.stderr, `conflict with "ops"`) {
		t.Errorf("a second applier: want a conflict naming ops:\n%s", r)
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
