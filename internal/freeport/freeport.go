// Package freeport hands out loopback ports for servers started with a
// port number (a test's etcd member or kube-apiserver, the bench's floor).
//
// A port picked by listening on :0 and closing comes from the kernel's
// ephemeral range, and between the close and the server's own bind any
// outgoing connection (an etcd client, kubectl, another package's test
// running at the same time) may be given it: TestEtcdFailover once failed
// on "address already in use" that way. Below the range only a listener
// asks for a port by number, so ports come from there, each handed out
// once per process.
package freeport

import (
	"errors"
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
)

const lowest = 10000

var given struct {
	sync.Mutex
	ports map[int]bool
}

// ephemeralLow is the first port of the kernel's ephemeral range.
func ephemeralLow() int {
	if b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range"); err == nil {
		if f := strings.Fields(string(b)); len(f) == 2 {
			if n, err := strconv.Atoi(f[0]); err == nil && n > lowest+2000 {
				return n
			}
		}
	}
	return 32768 // Linux's default
}

// Pick returns a loopback port below the ephemeral range that nothing
// listens on, never the same twice in one process.
func Pick() (int, error) {
	given.Lock()
	defer given.Unlock()
	if given.ports == nil {
		given.ports = map[int]bool{}
	}
	high := ephemeralLow()
	for range 1000 {
		p := lowest + rand.IntN(high-lowest)
		if given.ports[p] {
			continue
		}
		l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p))
		if err != nil {
			continue // taken
		}
		l.Close()
		given.ports[p] = true
		return p, nil
	}
	return 0, errors.New("pick a loopback port: none free below the ephemeral range after 1000 tries")
}
