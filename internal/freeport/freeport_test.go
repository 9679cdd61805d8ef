package freeport

import (
	"net"
	"strconv"
	"testing"
)

// Ports come from below the ephemeral range, are never handed out twice,
// and a server can listen on each.
func TestPick(t *testing.T) {
	high := ephemeralLow()
	seen := map[int]bool{}
	for range 200 {
		p, err := Pick()
		if err != nil {
			t.Fatal(err)
		}
		if p < lowest || p >= high {
			t.Fatalf("port %d outside [%d, %d)", p, lowest, high)
		}
		if seen[p] {
			t.Fatalf("port %d handed out twice", p)
		}
		seen[p] = true
	}
	// A server can listen on a picked port.
	p, err := Pick()
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p))
	if err != nil {
		t.Fatalf("listen on picked port %d: %v", p, err)
	}
	l.Close()
}
