package etcd

import (
	"context"
	"fmt"

	"go.etcd.io/etcd/api/v3/etcdserverpb"
	clientv3 "go.etcd.io/etcd/client/v3"
	"golang.org/x/sys/unix"
)

// QuotaForDisk returns the backend quota for an embedded etcd whose data
// is in dir: etcd's default, or less when the disk has less free: etcd
// then raises its NOSPACE alarm and refuses writes, which the server
// survives, before the disk fills, which stops etcd and the server with
// it. It keeps a quarter of the free space (at least 64 MiB) for the
// write-ahead log and snapshots.
func QuotaForDisk(dir string, quota int64) (int64, error) {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return 0, fmt.Errorf("free space of %s: %w", dir, err)
	}
	free := int64(st.Bavail) * int64(st.Bsize)
	fit := free - max(free/4, 64<<20)
	const floor = 16 << 20
	if fit < quota {
		quota = max(fit, floor)
	}
	return quota, nil
}

// NoSpace reports whether etcd's NOSPACE alarm is raised.
func NoSpace(ctx context.Context, c *clientv3.Client) (bool, error) {
	resp, err := c.AlarmList(ctx)
	if err != nil {
		return false, fmt.Errorf("list etcd alarms: %w", err)
	}
	for _, a := range resp.Alarms {
		if a.Alarm == etcdserverpb.AlarmType_NOSPACE {
			return true, nil
		}
	}
	return false, nil
}

// Reclaim is what recovers an embedded etcd from its NOSPACE alarm once
// objects have been deleted: compact to the current revision, defragment
// so the file shrinks, and disarm the alarm if the database now leaves
// real room under the quota (64 MiB, or half of a smaller quota), so that
// writes do not run straight back into it. It reports whether the alarm
// is gone.
func (e *Embedded) Reclaim(ctx context.Context, quota int64) (bool, error) {
	c := e.client
	status, err := c.Status(ctx, e.endpoints[0])
	if err != nil {
		return false, fmt.Errorf("etcd status: %w", err)
	}
	if _, err := c.Compact(ctx, status.Header.Revision); err != nil && !isCompactedAlready(err) {
		return false, fmt.Errorf("compact etcd: %w", err)
	}
	if _, err := c.Defragment(ctx, e.endpoints[0]); err != nil {
		return false, fmt.Errorf("defragment etcd: %w", err)
	}
	if status, err = c.Status(ctx, e.endpoints[0]); err != nil {
		return false, fmt.Errorf("etcd status: %w", err)
	}
	if room := quota - status.DbSizeInUse; room < min(64<<20, quota/2) {
		return false, nil
	}
	if _, err := c.AlarmDisarm(ctx, &clientv3.AlarmMember{MemberID: status.Header.MemberId, Alarm: etcdserverpb.AlarmType_NOSPACE}); err != nil {
		return false, fmt.Errorf("disarm etcd NOSPACE alarm: %w", err)
	}
	return true, nil
}

func isCompactedAlready(err error) bool {
	return err != nil && (err.Error() == "etcdserver: mvcc: required revision has been compacted")
}
