package main

import (
	"context"
	"crypto/tls"
	"fmt"
	"strconv"
	"strings"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// floorSide drives ../shared/floor with the apiserver side's HTTP client
// (same requests, bodies and connection settings). The floor serves one
// collection, so every namespace of the bench maps onto it; the bench's
// object names are unique across namespaces.
type floorSide struct {
	*httpSide
	etcd *clientv3.Client
}

func newFloorSide(base string, etcdClient *clientv3.Client, c config) *floorSide {
	// The floor's certificate is self-signed and names only localhost.
	h := newHTTPSide(base, &tls.Config{InsecureSkipVerify: true}, c)
	h.floor = true
	return &floorSide{httpSide: h, etcd: etcdClient}
}

// floorKeyPrefix is where the floor keeps the objects of floorColl.
const floorKeyPrefix = "/floor" + floorColl + "/"

// clear deletes the fan-out and load objects, which sort before the
// bench's "s-" objects (the floor has no delete-collection).
func (f *floorSide) clear(ctx context.Context, ns string) error {
	_, err := f.etcd.Delete(ctx, floorKeyPrefix, clientv3.WithRange(floorKeyPrefix+"s-"))
	return err
}

// floorList lists what the apiserver lists: every object, or the objects
// of namespace ns, which are a contiguous range of names on the floor
// (the page after the previous namespace's last name).
func (h *httpSide) floorList(ctx context.Context, ns string) (int, error) {
	url := h.collection(ns)
	if ns != "" {
		k, err := strconv.Atoi(strings.TrimPrefix(ns, nsPrefix))
		if err != nil {
			return 0, fmt.Errorf("floor list: namespace %q is not a bench namespace", ns)
		}
		after := "s-" // sorts before every object name
		if k > 0 {
			after = objectName(k*h.cfg.perNamespace - 1)
		}
		url += "?limit=" + strconv.Itoa(h.cfg.perNamespace) + "&continue=" + after
	}
	return h.count(ctx, url)
}
