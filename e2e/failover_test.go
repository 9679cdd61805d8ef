package e2e

import (
	"context"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.etcd.io/etcd/server/v3/embed"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/watch"
)

// member is one etcd of a three-member cluster on loopback.
type member struct {
	name, dir      string
	peer, client   url.URL
	e              *embed.Etcd
	initialCluster string
}

func (m *member) start(t *testing.T) <-chan error {
	t.Helper()
	cfg := embed.NewConfig()
	cfg.Name, cfg.Dir = m.name, m.dir
	cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{m.peer}, []url.URL{m.peer}
	cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{m.client}, []url.URL{m.client}
	cfg.InitialCluster = m.initialCluster
	cfg.InitialClusterToken = "failover"
	cfg.LogLevel = "error"
	cfg.Logger = "zap"
	cfg.LogOutputs = []string{filepath.Join(m.dir + ".log")}
	done := make(chan error, 1)
	go func() {
		e, err := embed.StartEtcd(cfg)
		if err != nil {
			done <- err
			return
		}
		m.e = e
		select {
		case <-e.Server.ReadyNotify():
			done <- nil
		case <-time.After(60 * time.Second):
			done <- fmt.Errorf("%s not ready", m.name)
		}
	}()
	return done
}

func (m *member) stop() {
	if m.e != nil {
		m.e.Close()
		<-m.e.Server.StopNotify()
		m.e = nil
	}
}

func (m *member) isLeader() bool {
	return m.e != nil && m.e.Server.Leader() == m.e.Server.MemberID()
}

// TestEtcdFailover: two apiserver replicas on a three-member etcd cluster
// under a steady load of creates; the leader is killed, restarted, then a
// follower is killed. No acknowledged create is lost, and a watch on each
// replica (resuming from its last resourceVersion whenever it ends) sees
// every object exactly once.
func TestEtcdFailover(t *testing.T) {
	dir := t.TempDir()
	members := make([]*member, 3)
	var cluster []string
	for i := range members {
		m := &member{name: fmt.Sprintf("m%d", i), dir: filepath.Join(dir, fmt.Sprintf("m%d", i)), peer: freeURL(t), client: freeURL(t)}
		members[i] = m
		cluster = append(cluster, m.name+"="+m.peer.String())
	}
	var endpoints []string
	var starts []<-chan error
	for _, m := range members {
		m.initialCluster = strings.Join(cluster, ",")
		endpoints = append(endpoints, m.client.String())
		starts = append(starts, m.start(t))
	}
	// Stopped however the starts end: a member that did start must not
	// outlive the test (it writes into the test's directory).
	t.Cleanup(func() {
		for _, m := range members {
			m.stop()
		}
	})
	var startErr error
	for _, s := range starts {
		if err := <-s; err != nil && startErr == nil {
			startErr = err
		}
	}
	if startErr != nil {
		t.Fatal(startErr)
	}
	var replicas []*apiserver
	for i := range 2 {
		s, err := startServerBin(binary, filepath.Join(dir, fmt.Sprintf("replica%d", i)), 0, "--etcd-servers", strings.Join(endpoints, ","))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			if err := s.stop(); err != nil {
				t.Error(err)
			}
		})
		replicas = append(replicas, s)
	}
	newKubectl(t, replicas[0]).ok(t, "", "create", "namespace", "failover")

	// A watch per replica, resuming from its last resourceVersion.
	list, err := replicas[0].dynamic(t).Resource(shipmentsGVR).Namespace("failover").List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	startRV := list.GetResourceVersion()
	watchCtx, stopWatches := context.WithCancel(context.Background())
	defer stopWatches()
	seen := make([]map[string]int, len(replicas))
	var seenMu sync.Mutex
	var watchers sync.WaitGroup
	for i, s := range replicas {
		seen[i] = map[string]int{}
		client := s.dynamic(t)
		watchers.Add(1)
		go func() {
			defer watchers.Done()
			rv := startRV
			for watchCtx.Err() == nil {
				w, err := client.Resource(shipmentsGVR).Namespace("failover").Watch(watchCtx, metav1.ListOptions{ResourceVersion: rv, AllowWatchBookmarks: true})
				if err != nil {
					time.Sleep(200 * time.Millisecond)
					continue
				}
				for ev := range w.ResultChan() {
					if ev.Type == watch.Error {
						if watchCtx.Err() == nil {
							t.Errorf("replica %d watch error: %v", i, ev.Object)
						}
						break
					}
					obj, ok := ev.Object.(*unstructured.Unstructured)
					if !ok {
						continue
					}
					rv = obj.GetResourceVersion()
					if ev.Type == watch.Added {
						seenMu.Lock()
						seen[i][obj.GetName()]++
						seenMu.Unlock()
					}
				}
				w.Stop()
			}
		}()
	}

	// Steady creates through both replicas.
	var ackMu sync.Mutex
	acked := map[string]bool{}
	load, stopLoad := context.WithCancel(context.Background())
	var writers sync.WaitGroup
	for w := range 4 {
		client := replicas[w%2].dynamic(t)
		writers.Add(1)
		go func() {
			defer writers.Done()
			for i := 0; load.Err() == nil; i++ {
				name := fmt.Sprintf("w%d-%d", w, i)
				obj := shipment("failover", name, nil)
				cctx, cancel := context.WithTimeout(load, 10*time.Second)
				_, err := client.Resource(shipmentsGVR).Namespace("failover").Create(cctx, obj, metav1.CreateOptions{})
				cancel()
				if err == nil {
					ackMu.Lock()
					acked[name] = true
					ackMu.Unlock()
				} else {
					time.Sleep(100 * time.Millisecond)
				}
			}
		}()
	}
	count := func() int { ackMu.Lock(); defer ackMu.Unlock(); return len(acked) }
	time.Sleep(2 * time.Second)
	var leader *member
	for _, m := range members {
		if m.isLeader() {
			leader = m
		}
	}
	if leader == nil {
		t.Fatal("no leader")
	}
	before := count()
	leader.stop()
	t.Logf("killed leader %s after %d creates", leader.name, before)
	eventually(t, 30*time.Second, "creates continue without the leader", func() error {
		if n := count(); n < before+20 {
			return fmt.Errorf("%d creates", n)
		}
		return nil
	})
	if err := <-leader.start(t); err != nil {
		t.Fatal(err)
	}
	var follower *member
	for _, m := range members {
		if m != leader && !m.isLeader() && m.e != nil {
			follower = m
		}
	}
	before = count()
	follower.stop()
	t.Logf("restarted %s, killed follower %s after %d creates", leader.name, follower.name, before)
	eventually(t, 30*time.Second, "creates continue without a follower", func() error {
		if n := count(); n < before+20 {
			return fmt.Errorf("%d creates", n)
		}
		return nil
	})
	stopLoad()
	writers.Wait()

	// Every acknowledged create is stored and was seen once by each watch.
	total := count()
	final, err := replicas[1].dynamic(t).Resource(shipmentsGVR).Namespace("failover").List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	stored := map[string]bool{}
	for _, it := range final.Items {
		stored[it.GetName()] = true
	}
	eventually(t, 20*time.Second, "every watch caught up", func() error {
		seenMu.Lock()
		defer seenMu.Unlock()
		for i := range seen {
			for name := range stored {
				if seen[i][name] == 0 {
					return fmt.Errorf("replica %d has not seen %s", i, name)
				}
			}
		}
		return nil
	})
	stopWatches()
	watchers.Wait()
	ackMu.Lock()
	defer ackMu.Unlock()
	for name := range acked {
		if !stored[name] {
			t.Errorf("acknowledged create %s lost", name)
		}
	}
	for i := range seen {
		for name, n := range seen[i] {
			if n != 1 {
				t.Errorf("replica %d saw %s ADDED %d times", i, name, n)
			}
		}
	}
	t.Logf("%d acknowledged creates, %d stored, each seen once by both watches", total, len(stored))
}
