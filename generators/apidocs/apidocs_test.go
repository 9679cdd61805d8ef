package apidocs

import (
	"flag"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/kubeforge/kubeforge/generators/internal/gentest"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

func TestGolden(t *testing.T) {
	api := gentest.Load(t, "testdata")
	files, err := Generator{}.Generate(api)
	if err != nil {
		t.Fatal(err)
	}
	gentest.Golden(t, files, "testdata/golden")
	again, err := Generator{}.Generate(gentest.Load(t, "testdata"))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(files, again) {
		t.Error("output is not deterministic")
	}
}

// TestContent checks what a reader relies on, independently of the golden:
// every in-page link has its anchor, and fields carry their facts.
func TestContent(t *testing.T) {
	files, err := Generator{}.Generate(gentest.Load(t, "testdata"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 1 || files[0].Path != "docs/api/docs.example.dev.md" {
		t.Fatalf("files: %v", files)
	}
	doc := string(files[0].Content)
	anchors := map[string]bool{}
	for _, m := range regexp.MustCompile(`<a id="([^"]+)"></a>`).FindAllStringSubmatch(doc, -1) {
		anchors[m[1]] = true
	}
	for _, m := range regexp.MustCompile(`\]\(#([^)]+)\)`).FindAllStringSubmatch(doc, -1) {
		if !anchors[m[1]] {
			t.Errorf("link to #%s has no anchor", m[1])
		}
	}
	for _, want := range []string{
		"Versions, preferred first: [v1](#v1) (storage version), [v1beta1](#v1beta1).",
		"| `owner` | string | yes |  | min length 1; max length 64 | Owner is who to call when the lamp breaks. |",
		"| `watts` | integer (int32) |  | `40` | minimum 0; maximum 100 |",
		"| `bulbs` | [][Bulb](#v1-bulb) |  |  | list type map, keys `name` |",
		"rule `self.size != 'large' \\|\\| self.watts >= 60`: large lamps need at least 60 watts",
		"| `editor` | string |  |  |  | Editor is the last person to edit the spec. (from Audit) |",
		"Size of the lamp \\| with a pipe in its doc.",
		"| `since` | [Time (date-time string)](https://pkg.go.dev/k8s.io/apimachinery/pkg/apis/meta/v1#Time) |  |",
		"| path | `/apis/docs.example.dev/v1/namespaces/{namespace}/lamps` |",
		"| path | `/apis/docs.example.dev/v1/rooms` |",
		"| stored | as docs.example.dev/v1, converted on every read and write |",
		"A string. one of `\"small\"`, `\"medium\"`, `\"large\"`.",
		"| `apiVersion` | string |",
	} {
		if !strings.Contains(doc, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if strings.Contains(doc, "#### LampList") {
		t.Error("lists are documented with their kind, not as types")
	}
}
