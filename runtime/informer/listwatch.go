package informer

import (
	"context"
	"time"
)

// Reflect lists, then watches from the list's revision, until ctx ends.
// After an error it lists again: 100 ms after a watch that followed a
// good list, and with the wait doubling up to 5 s while lists keep
// failing, so that an etcd outage is not hammered. onErr (may be nil)
// hears every error but the one ctx's end causes.
func Reflect(ctx context.Context, list func(context.Context) (rv string, err error), watch func(ctx context.Context, rv string) error, onErr func(error)) {
	const first, most = 100 * time.Millisecond, 5 * time.Second
	delay := first
	for ctx.Err() == nil {
		rv, err := list(ctx)
		if err == nil {
			delay = first
			err = watch(ctx, rv)
		}
		if ctx.Err() != nil {
			return
		}
		if err != nil && onErr != nil {
			onErr(err)
		}
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		delay = min(2*delay, most)
	}
}
