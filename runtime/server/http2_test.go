package server

import (
	"bytes"
	"math/rand/v2"
	"testing"
	"time"

	"golang.org/x/net/http2"
)

// TestResetBudget: the frame walk counts the client's RST_STREAM frames
// however the bytes are split across reads, never mistakes payload bytes
// for a frame header, and trips past the budget until time refills it.
func TestResetBudget(t *testing.T) {
	var wire bytes.Buffer
	wire.WriteString(http2.ClientPreface)
	fr := http2.NewFramer(&wire, nil)
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(fr.WriteSettings())
	// A DATA payload full of what would be RST_STREAM headers if the
	// walk lost its place.
	fake := bytes.Repeat([]byte{0, 0, 4, byte(http2.FrameRSTStream), 0, 0, 0, 0, 1, 0, 0, 0, 8}, 100)
	must(fr.WriteData(1, false, fake))
	for i := range resetBurst {
		must(fr.WritePing(false, [8]byte{}))
		must(fr.WriteRSTStream(uint32(2*i+1), http2.ErrCodeCancel))
	}
	now := time.Unix(1000, 0)
	c := newResetLimitedConn(nil, func() time.Time { return now })
	rnd := rand.New(rand.NewPCG(1, 2))
	b := wire.Bytes()
	for len(b) > 0 {
		k := min(len(b), 1+rnd.IntN(40))
		if c.scan(b[:k]) {
			t.Fatalf("tripped within the budget, %d bytes before the end", len(b))
		}
		b = b[k:]
	}
	rst := func() []byte {
		var w bytes.Buffer
		must(http2.NewFramer(&w, nil).WriteRSTStream(999, http2.ErrCodeCancel))
		return w.Bytes()
	}
	if !c.scan(rst()) {
		t.Fatalf("reset %d did not trip the budget of %d", resetBurst+1, resetBurst)
	}

	// Refilled over time: a second later, resetPerSecond more pass.
	c = newResetLimitedConn(nil, func() time.Time { return now })
	c.preface = 0
	for range resetBurst {
		if c.scan(rst()) {
			t.Fatal("tripped within the budget")
		}
	}
	now = now.Add(time.Second)
	for i := range resetPerSecond {
		if c.scan(rst()) {
			t.Fatalf("tripped at refilled reset %d of %d", i+1, resetPerSecond)
		}
	}
	if !c.scan(rst()) {
		t.Fatal("not tripped past the refill")
	}
}
