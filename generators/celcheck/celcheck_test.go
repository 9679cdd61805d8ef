package celcheck

import (
	"strings"
	"testing"

	"github.com/kubeforge/kubeforge/generators/internal/gentest"
)

// TestRulesCheckedAtGenerateTime: every rule that cannot be enforced fails
// generation at its marker's file:line:col with the CEL message; the good
// rules pass. Costs are kube-apiserver's for a CRD: a messageExpression's
// own, a rule's times how often it can run under an unbounded list, and
// the kind's sum, reported at the kind.
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
		`types/rules/v1/types.go:27:5: rule "self > 0": messageExpression: estimated messageExpression cost exceeds budget by factor of more than 100x`,
		`types/rules/v1/types.go:32:5: rule "self.startsWith('n')": contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema`,
		`types/rules/v1/types.go:51:6: kind Thing: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("errors lack %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "large things need two") || strings.Contains(got, "startsWith('m')") || strings.Count(got, "types/rules/v1/types.go:") != 10 {
		t.Errorf("want exactly the bad rules, and the costs as kube-apiserver counts them:\n%s", got)
	}
}
