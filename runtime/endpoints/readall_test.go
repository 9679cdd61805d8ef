package endpoints

import (
	"bytes"
	"io"
	"testing"
	"testing/iotest"
)

// TestReadAll: whatever length a body declares (none, exact, too short or
// too long), readAll reads what io.ReadAll reads, also in one-byte reads.
func TestReadAll(t *testing.T) {
	body := bytes.Repeat([]byte("0123456789"), 100)
	for _, c := range []struct {
		name     string
		declared int64
	}{
		{"undeclared", -1}, {"zero", 0}, {"exact", 1000}, {"declared short", 10},
		{"declared long", 4000}, {"over the limit", 1 << 30},
	} {
		for _, oneByte := range []bool{false, true} {
			var r io.Reader = bytes.NewReader(body)
			if oneByte {
				r = iotest.OneByteReader(r)
			}
			got, err := readAll(r, c.declared, 1<<20)
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			if !bytes.Equal(got, body) {
				t.Errorf("%s (one byte %v): read %d bytes, want %d", c.name, oneByte, len(got), len(body))
			}
		}
	}
	if _, err := readAll(iotest.ErrReader(io.ErrUnexpectedEOF), 10, 100); err != io.ErrUnexpectedEOF {
		t.Errorf("a failing read: %v", err)
	}
	// A large declared length with no bytes behind it takes no memory
	// up front.
	got, err := readAll(bytes.NewReader(nil), 2<<20, 3<<20)
	if err != nil || cap(got) > preallocBody {
		t.Errorf("empty body declared as 2 MiB: cap %d, %v; want at most %d", cap(got), err, preallocBody)
	}
}
