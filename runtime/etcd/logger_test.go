package etcd

import (
	"sync/atomic"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"
)

func TestQuietOnCloseDropsOnlyShutdownNoise(t *testing.T) {
	core, logs := observer.New(zapcore.InfoLevel)
	closing := new(atomic.Bool)
	lg := zap.New(quietOnClose{Core: core, closing: closing}).With(zap.String("member", "kubeforge"))

	lg.Error(servingFailed, zap.String("error", "accept: use of closed network connection"))
	closing.Store(true)
	lg.Error(servingFailed, zap.String("error", "mux: server closed"))
	lg.Warn("stopping server")
	lg.Debug("below the level")

	var got []string
	for _, e := range logs.All() {
		got = append(got, e.Message)
		if e.ContextMap()["member"] != "kubeforge" {
			t.Errorf("entry %q lost the fields of With: %v", e.Message, e.ContextMap())
		}
	}
	want := []string{servingFailed, "stopping server"}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("logged %q, want %q (serving errors kept until Close, dropped after)", got, want)
	}
}

func TestNewLoggerHonoursLevel(t *testing.T) {
	lg, err := newLogger("error", new(atomic.Bool))
	if err != nil {
		t.Fatal(err)
	}
	if lg.Core().Enabled(zapcore.WarnLevel) || !lg.Core().Enabled(zapcore.ErrorLevel) {
		t.Fatal("level error: warn enabled or error disabled")
	}
}
