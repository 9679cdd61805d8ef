// Package etcdtest starts the embedded etcd a package's tests share, from
// its TestMain.
package etcdtest

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/kubeforge/kubeforge/runtime/etcd"
)

// Run starts an embedded etcd (without fsync, plus opts) in a temporary
// directory, hands it to use, runs the tests and stops it; the result is
// TestMain's exit code.
func Run(m *testing.M, use func(*etcd.Embedded), opts ...etcd.Option) int {
	dir, err := os.MkdirTemp("", "kubeforge-etcd-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	e, err := etcd.StartEmbedded(ctx, dir, append([]etcd.Option{etcd.WithUnsafeNoFsync()}, opts...)...)
	cancel()
	if err != nil {
		fmt.Fprintln(os.Stderr, "start etcd:", err)
		return 1
	}
	defer e.Close()
	use(e)
	return m.Run()
}
