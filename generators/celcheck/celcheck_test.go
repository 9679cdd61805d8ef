package celcheck

import (
	"strings"
	"testing"

	"github.com/kubeforge/kubeforge/generators/internal/gentest"
)

// TestRulesCheckedAtGenerateTime: every rule that cannot be enforced fails
// generation at its marker's file:line:col with the CEL message; the good
// rule passes.
func TestRulesCheckedAtGenerateTime(t *testing.T) {
	api := gentest.Load(t, "testdata")
	_, err := Generator{}.Generate(api)
	if err == nil {
		t.Fatal("want errors")
	}
	got := err.Error()
	for _, want := range []string{
		`types/rules/v1/types.go:7:4: rule "self.nope > 1": compilation failed: ERROR: <input>:1:5: undefined field 'nope'`,
		`types/rules/v1/types.go:13:5: rule "self.size() >": `,
		`types/rules/v1/types.go:16:5: rule "self == 'x'": messageExpression: `,
		`types/rules/v1/types.go:19:5: rule "self.all(a, self.all(b, a + b != ''))": estimated rule cost`,
		`types/rules/v1/types.go:22:5: rule "self.nope == 1": compilation failed: ERROR: <input>:1:5: undefined field 'nope'`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("errors lack %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "large things need two") || strings.Count(got, "types/rules/v1/types.go:") != 5 {
		t.Errorf("want exactly the five bad rules:\n%s", got)
	}
}
