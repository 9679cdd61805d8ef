package audit

import (
	"log/slog"
	"path/filepath"
	"testing"
)

// TestAdmitAbandoned: events of abandoned reads are kept up to the burst,
// then dropped (and counted) until time refills the budget.
func TestAdmitAbandoned(t *testing.T) {
	a, err := New(Options{Path: filepath.Join(t.TempDir(), "audit.log")}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	kept := 0
	for range 10 * abandonedBurst {
		if a.AdmitAbandoned() {
			kept++
		}
	}
	// The loop takes well under a second: at most a few refilled.
	if kept < abandonedBurst || kept > abandonedBurst+abandonedPerSecond {
		t.Errorf("kept %d of %d abandoned events at once, want the burst of %d", kept, 10*abandonedBurst, abandonedBurst)
	}
	if a.abandoned.dropped != int64(10*abandonedBurst-kept) {
		t.Errorf("dropped count %d, want %d", a.abandoned.dropped, 10*abandonedBurst-kept)
	}
}
