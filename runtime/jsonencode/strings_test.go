package jsonencode

import (
	"encoding/binary"
	"math/rand"
	"testing"
)

// TestPlain8: the eight-byte test agrees with the byte table on words
// of plain and special bytes in every position.
func TestPlain8(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	special := []byte{0, 0x1f, 0x20, '"', '\\', '<', '>', '&', 0x7f, 0x80, 0xe2, 0xff, 'a', '!', '#', '=', '?'}
	for range 200000 {
		var w [8]byte
		want := true
		for j := range w {
			if r.Intn(3) == 0 {
				w[j] = special[r.Intn(len(special))]
			} else {
				w[j] = byte(r.Intn(256))
			}
			want = want && plain[w[j]]
		}
		if got := plain8(binary.LittleEndian.Uint64(w[:])); got != want {
			t.Fatalf("plain8(%q) = %v, want %v", w, got, want)
		}
	}
}
