package validate

import (
	"math/rand/v2"
	"strings"

	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// The inputs of the parity tests: strings and metadata close to the
// edges of what apimachinery accepts (lengths 63/64 and 253/254, a dot or
// dash at either end, upper case, slashes, Unicode that lower-cases to
// ASCII) and random ones, most of them valid or one mutation away.

// adversarialStrings are written out by hand.
func adversarialStrings() []string {
	s := []string{
		"", "a", "A", "0", "-", ".", "..", "_", "/", "%", "a-", "-a", "a.", ".a", "a_", "_a", "a-b", "a.b", "a_b", "a..b",
		"a.-b", "a-.b", "a--", "--", "a/", "/a", "a/b", "a/b/c", "A/b", "a.B/c", "a/B", "a/-b", "-a/b", "a./b", ".a/b",
		"example.com/MyName", "Example.COM/name", "example.com/", "/name", "a%b", "a b", "a\n", "\na", "a\x00", "é", "aé",
		"\u212A", "\u212Aey", "example.com/\u212A", "\u212Aexample.com/x", "\u0130", "\u0130a/b", "K/x", "\xff", "a\xffb",
		"v1", "/v1", "apps/v1", "apps/", "//", "a//b", "xn--bcher-kva.example", "foregroundDeletion", "orphan",
		"kubectl.kubernetes.io/last-applied-configuration", "m\x7f", "m\u200b", "m\u00a0", "m\t", "tab\tname", "a~b",
	}
	for _, n := range []int{62, 63, 64, 127, 128, 129, 252, 253, 254, 255, 256, 257} {
		s = append(s, strings.Repeat("a", n), strings.Repeat("a", n-1)+"-", "a"+strings.Repeat("-", n-2)+"a",
			strings.Repeat("a.", n/2)+strings.Repeat("b", n%2+1), "p/"+strings.Repeat("n", n), strings.Repeat("p", n)+"/n")
	}
	// Prefixes of 253 and 254 bytes with a name part of 63 and 64.
	for _, p := range []int{253, 254} {
		for _, n := range []int{63, 64} {
			s = append(s, strings.Repeat("ab.", p/3)+strings.Repeat("c", p%3)+"/"+strings.Repeat("N", n))
		}
	}
	return s
}

// metaGen makes random strings and metadata; clean metadata has no
// deliberate mistakes, so that valid cases are frequent too.
type metaGen struct {
	r     *rand.Rand
	clean bool
}

func newMetaGen(seed uint64) *metaGen { return &metaGen{r: rand.New(rand.NewPCG(seed, seed*7+1))} }

func (g *metaGen) pick(xs ...string) string { return xs[g.r.IntN(len(xs))] }

// pickValid picks from the first nValid of xs when g is clean.
func (g *metaGen) pickValid(nValid int, xs ...string) string {
	if g.clean {
		return xs[g.r.IntN(nValid)]
	}
	return g.pick(xs...)
}

// length favours the limits' edges.
func (g *metaGen) length() int {
	if g.r.IntN(4) == 0 {
		if g.clean {
			return []int{1, 2, 62, 63}[g.r.IntN(4)]
		}
		return []int{1, 2, 3, 62, 63, 64, 252, 253, 254}[g.r.IntN(9)]
	}
	return 1 + g.r.IntN(20)
}

// word is n bytes of lower case letters and digits with some interior
// dashes, dots, underscores or upper case (often valid as something).
func (g *metaGen) word(n int) string {
	b := make([]byte, n)
	const lower, inner = "abcxyz0189", "-._AZ"
	innerRate := g.r.IntN(4) // 0: none at all
	if g.clean {
		innerRate = 0
	}
	for i := range b {
		b[i] = lower[g.r.IntN(len(lower))]
		if innerRate > 0 && i > 0 && i < n-1 && g.r.IntN(10) < innerRate {
			b[i] = inner[g.r.IntN(len(inner))]
		}
	}
	return string(b)
}

// mutate breaks s now and then, as a user's typo would.
func (g *metaGen) mutate(s string) string {
	if g.clean || g.r.IntN(5) != 0 || s == "" {
		return s
	}
	const bad = "-._/A%\x00 ~:"
	i := g.r.IntN(len(s))
	switch g.r.IntN(6) {
	case 0:
		return s[:i] + string(bad[g.r.IntN(len(bad))]) + s[i+1:]
	case 1:
		return g.pick("-", ".", "_", "/") + s
	case 2:
		return s + g.pick("-", ".", "_", "/")
	case 3:
		return s[:i] + g.pick("é", "\u212A", "\u0130", "\xff") + s[i:]
	case 4:
		return strings.ToUpper(s)
	}
	return ""
}

// anyString is a word, a dotted word, or a prefix/name key.
func (g *metaGen) anyString() string {
	switch g.r.IntN(4) {
	case 0:
		return g.mutate(g.word(g.length()))
	case 1:
		return g.mutate(g.word(1+g.r.IntN(10)) + "." + g.word(g.length()))
	case 2:
		return g.mutate(g.dotted() + "/" + g.word(g.length()))
	}
	return g.mutate(g.pick("a", "bench", "s-1", "x") + g.pick("", "-", "--", ".", "-a", "0"))
}

// dotted is a DNS subdomain-like string.
func (g *metaGen) dotted() string {
	parts := make([]string, 1+g.r.IntN(4))
	for i := range parts {
		parts[i] = g.word(1 + g.r.IntN(8))
	}
	return strings.ToLower(strings.Join(parts, "."))
}

// dnsName is a name with lower case labels (valid more often than not).
func (g *metaGen) dnsName() string {
	if g.r.IntN(3) == 0 {
		return g.mutate(g.dotted())
	}
	return g.mutate(strings.ToLower(strings.NewReplacer(".", "-", "_", "-").Replace(g.word(g.length()))))
}

func (g *metaGen) key() string {
	if g.r.IntN(2) == 0 {
		return g.mutate(g.word(g.length()))
	}
	return g.mutate(g.dotted() + "/" + g.word(1+g.r.IntN(63)))
}

// meta is random metadata, most fields set half of the time.
func (g *metaGen) meta() *metav1.ObjectMeta {
	g.clean = g.r.IntN(2) == 0
	m := &metav1.ObjectMeta{Name: g.dnsName(), UID: types.UID("u")}
	if !g.clean && g.r.IntN(10) == 0 {
		m.Name = ""
	}
	if g.r.IntN(3) == 0 {
		m.GenerateName = g.dnsName() + g.pick("", "-")
	}
	if g.r.IntN(2) == 0 {
		m.Namespace = g.dnsName()
		if g.clean {
			m.Namespace = strings.ReplaceAll(m.Namespace, ".", "-")
		}
	}
	if !g.clean && g.r.IntN(20) == 0 {
		m.Generation = -1 - g.r.Int64N(3)
	} else {
		m.Generation = g.r.Int64N(5)
	}
	g.labels(m)
	g.annotations(m)
	g.ownerReferences(m)
	g.finalizers(m)
	g.managedFields(m)
	return m
}

func (g *metaGen) labels(m *metav1.ObjectMeta) {
	if g.r.IntN(2) == 0 {
		return
	}
	m.Labels = map[string]string{}
	for range 1 + g.r.IntN(4) {
		v := ""
		if g.r.IntN(4) != 0 {
			v = g.mutate(g.word(g.length() % 70))
		}
		m.Labels[g.key()] = v
	}
}

// bigValue backs annotations near the size limit.
var bigValue = strings.Repeat("v", apivalidation.TotalAnnotationSizeLimitB+2)

func (g *metaGen) annotations(m *metav1.ObjectMeta) {
	if g.r.IntN(2) == 0 {
		return
	}
	m.Annotations = map[string]string{}
	for range 1 + g.r.IntN(3) {
		k := g.key()
		if prefix := g.pickValid(2, "", "a.B/", "A_B/"); prefix != "" {
			k = prefix + g.word(1+g.r.IntN(10)) // upper case in a prefix is fine here
		}
		m.Annotations[k] = g.word(1 + g.r.IntN(10))
	}
	if g.r.IntN(8) == 0 {
		// One more annotation that brings the total to the limit, one
		// byte under or one over.
		size := 0
		for k, v := range m.Annotations {
			size += len(k) + len(v)
		}
		const k = "big"
		off := g.r.IntN(3) - 1
		if g.clean {
			off = -g.r.IntN(2)
		}
		if n := apivalidation.TotalAnnotationSizeLimitB - size - len(k) + off; n >= 0 {
			m.Annotations[k] = bigValue[:n]
		}
	}
}

func (g *metaGen) ownerReferences(m *metav1.ObjectMeta) {
	if g.r.IntN(2) == 0 {
		return
	}
	for range 1 + g.r.IntN(3) {
		ref := metav1.OwnerReference{
			APIVersion: g.pickValid(5, "v1", "v1", "apps/v1", "example.com/v1alpha1", "/v1", "apps/", "/", "", "a/b/c", "v1/"),
			Kind:       g.pickValid(2, "Order", "Order", "Event", ""),
			Name:       g.pickValid(2, "o-1", "o-1", ""),
			UID:        types.UID(g.pickValid(2, "u-1", "u-1", "")),
		}
		if c := g.r.IntN(4); c < 2 && !(g.clean && c == 0 && len(m.OwnerReferences) > 0) {
			ctl := c == 0
			ref.Controller = &ctl
		}
		m.OwnerReferences = append(m.OwnerReferences, ref)
	}
}

func (g *metaGen) finalizers(m *metav1.ObjectMeta) {
	if g.r.IntN(2) == 0 {
		return
	}
	for range 1 + g.r.IntN(3) {
		f := g.pickValid(3, "kubernetes", "example.com/cleanup", metav1.FinalizerOrphanDependents, metav1.FinalizerDeleteDependents)
		if g.r.IntN(2) == 0 {
			f = g.key()
		}
		m.Finalizers = append(m.Finalizers, f)
	}
}

func (g *metaGen) managedFields(m *metav1.ObjectMeta) {
	if g.r.IntN(2) == 0 {
		return
	}
	for range 1 + g.r.IntN(3) {
		m.ManagedFields = append(m.ManagedFields, metav1.ManagedFieldsEntry{
			Manager:     g.pickValid(5, "kubectl", "bench", "", "é", "\u00e9"+strings.Repeat("m", 126), "m\x7f", "m\u200b", "m\xff", strings.Repeat("m", 128), strings.Repeat("m", 129)),
			Operation:   metav1.ManagedFieldsOperationType(g.pickValid(3, "Update", "Apply", "Update", "", "update", "Patch")),
			FieldsType:  g.pickValid(3, "FieldsV1", "", "FieldsV1", "FieldsV2"),
			Subresource: g.pickValid(4, "", "status", "", strings.Repeat("s", 256), strings.Repeat("s", 257)),
		})
	}
}

// adversarialMetas each break (or nearly break) one rule.
func adversarialMetas() []*metav1.ObjectMeta {
	yes, no := true, false
	ok := func(edit func(m *metav1.ObjectMeta)) *metav1.ObjectMeta {
		m := &metav1.ObjectMeta{Name: "n", Namespace: "ns"}
		edit(m)
		return m
	}
	return []*metav1.ObjectMeta{
		ok(func(m *metav1.ObjectMeta) {}),
		ok(func(m *metav1.ObjectMeta) { m.Name = "" }),
		ok(func(m *metav1.ObjectMeta) { m.Name, m.GenerateName = "", "gen-" }),
		ok(func(m *metav1.ObjectMeta) { m.GenerateName = "--" }),
		ok(func(m *metav1.ObjectMeta) { m.GenerateName = "-" }),
		ok(func(m *metav1.ObjectMeta) { m.GenerateName = "a.-" }),
		ok(func(m *metav1.ObjectMeta) { m.GenerateName = strings.Repeat("a", 253) + "-" }),
		ok(func(m *metav1.ObjectMeta) { m.GenerateName = strings.Repeat("a", 254) + "-" }),
		ok(func(m *metav1.ObjectMeta) { m.GenerateName = strings.Repeat("a", 63) + "-" }),
		ok(func(m *metav1.ObjectMeta) { m.Namespace = strings.Repeat("a", 64) }),
		ok(func(m *metav1.ObjectMeta) { m.Namespace = "a.b" }),
		ok(func(m *metav1.ObjectMeta) { m.Generation = -1 }),
		ok(func(m *metav1.ObjectMeta) { m.Labels = map[string]string{"a": "", "b/c": "d"} }),
		ok(func(m *metav1.ObjectMeta) { m.Annotations = map[string]string{"\u212A": "v"} }),
		ok(func(m *metav1.ObjectMeta) { m.Annotations = map[string]string{"EXAMPLE.com/X": "v"} }),
		ok(func(m *metav1.ObjectMeta) {
			m.Annotations = map[string]string{"k": bigValue[:apivalidation.TotalAnnotationSizeLimitB-1]}
		}),
		ok(func(m *metav1.ObjectMeta) {
			m.Annotations = map[string]string{"k": bigValue[:apivalidation.TotalAnnotationSizeLimitB]}
		}),
		ok(func(m *metav1.ObjectMeta) {
			m.Finalizers = []string{metav1.FinalizerOrphanDependents, metav1.FinalizerDeleteDependents}
		}),
		ok(func(m *metav1.ObjectMeta) {
			m.Finalizers = []string{metav1.FinalizerOrphanDependents, metav1.FinalizerOrphanDependents}
		}),
		ok(func(m *metav1.ObjectMeta) {
			m.OwnerReferences = []metav1.OwnerReference{
				{APIVersion: "v1", Kind: "A", Name: "a", UID: "1", Controller: &yes},
				{APIVersion: "v1", Kind: "B", Name: "b", UID: "2", Controller: &no},
				{APIVersion: "v1", Kind: "C", Name: "c", UID: "3", Controller: &yes},
			}
		}),
		ok(func(m *metav1.ObjectMeta) {
			m.OwnerReferences = []metav1.OwnerReference{{APIVersion: "/v1", Kind: "Event", Name: "e", UID: "1"}}
		}),
		ok(func(m *metav1.ObjectMeta) {
			m.OwnerReferences = []metav1.OwnerReference{{APIVersion: "events.k8s.io/v1", Kind: "Event", Name: "e", UID: "1"}}
		}),
		ok(func(m *metav1.ObjectMeta) { m.OwnerReferences = []metav1.OwnerReference{{}} }),
		ok(func(m *metav1.ObjectMeta) {
			m.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "m", Operation: "Apply", FieldsType: "FieldsV1"}, {Operation: "Update"}}
		}),
		ok(func(m *metav1.ObjectMeta) {
			m.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "m", Operation: "Apply", FieldsType: "fieldsV1"}}
		}),
		ok(func(m *metav1.ObjectMeta) {
			m.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "m\u0085", Operation: "Apply"}}
		}),
	}
}
