package storage

import (
	"math/rand/v2"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/validate/content"
)

// TestDNSFastPaths: the byte loops that let names and namespaces skip
// apimachinery's regular expressions accept exactly what those accept.
func TestDNSFastPaths(t *testing.T) {
	cases := []string{
		"", "a", "-", "a-", "-a", "a-b", "a.b", "a..b", ".a", "a.", "A", "aB", "a_b", "a/b", "..", ".",
		"0", "0-0", "a.-b", "a-.b", "xn--bcher-kva.example", "s-000001", "bench-0", "a\n", "\na", "é",
		strings.Repeat("a", 63), strings.Repeat("a", 64), strings.Repeat("a", 253), strings.Repeat("a", 254),
		strings.Repeat("a.", 126) + "a", strings.Repeat("a.", 127),
	}
	r := rand.New(rand.NewPCG(1, 2))
	const alphabet = "ab09-.A_/%\x00"
	for range 20000 {
		b := make([]byte, r.IntN(12))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		cases = append(cases, string(b))
	}
	for _, s := range cases {
		if got, want := isDNS1123Label(s, content.DNS1123LabelMaxLength), len(content.IsDNS1123Label(s)) == 0; got != want {
			t.Errorf("isDNS1123Label(%q) = %v, content says %v", s, got, want)
		}
		if got, want := isDNS1123Subdomain(s), len(content.IsDNS1123Subdomain(s)) == 0; got != want {
			t.Errorf("isDNS1123Subdomain(%q) = %v, content says %v", s, got, want)
		}
	}
}

// BenchmarkReadKey is the name and namespace check of every request on
// one object.
func BenchmarkReadKey(b *testing.B) {
	f := newFixture(b, true, false)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := f.st.readKey("bench-0", "s-000001"); err != nil {
			b.Fatal(err)
		}
	}
}
