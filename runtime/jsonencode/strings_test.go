package jsonencode

import (
	"encoding/binary"
	"math/bits"
	"math/rand"
	"testing"
)

// TestSpecial8: the eight-byte test agrees with the byte table on words
// of plain and special bytes in every position: no mark when all are
// plain, else the lowest mark on the first byte that is not.
func TestSpecial8(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	special := []byte{0, 0x1f, 0x20, '"', '\\', '<', '>', '&', 0x7f, 0x80, 0xe2, 0xff, 'a', '!', '#', '=', '?'}
	for range 200000 {
		var w [8]byte
		first := 8
		for j := range w {
			switch r.Intn(4) {
			case 0:
				w[j] = special[r.Intn(len(special))]
			case 1:
				w[j] = byte(r.Intn(256))
			default:
				w[j] = byte(0x20 + r.Intn(0x60))
			}
			if !plain[w[j]] && first == 8 {
				first = j
			}
		}
		m := special8(binary.LittleEndian.Uint64(w[:]))
		got := 8
		if m != 0 {
			got = bits.TrailingZeros64(m) >> 3
		}
		if got != first {
			t.Fatalf("special8(%q): first special byte %d, want %d", w, got, first)
		}
	}
}
