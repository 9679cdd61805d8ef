package delegate

import (
	"context"
	"net/http"
	"sync"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// Namespaces is the cluster's namespaces, watched.
type Namespaces struct {
	c *Cluster
	w *watched[corev1.Namespace]
}

// WatchNamespaces lists and watches the cluster's namespaces until ctx is
// done (wg tracks the watch).
func (c *Cluster) WatchNamespaces(ctx context.Context, wg *sync.WaitGroup) *Namespaces {
	w := newWatched(c, "/api/v1/namespaces", nil, func(ns *corev1.Namespace) string { return ns.Name })
	run(ctx, wg, w.run)
	return &Namespaces{c: c, w: w}
}

// Synced is closed once the first list has arrived.
func (n *Namespaces) Synced() <-chan struct{} { return n.w.synced }

// Get returns the namespace: from the watch, or, when the watch has not
// seen it (it may lag a create by a moment, as kube's NamespaceLifecycle
// allows for), from the cluster. A namespace that does not exist is kube's
// NotFound error; a cluster that cannot answer is a 503.
func (n *Namespaces) Get(ctx context.Context, name string) (*corev1.Namespace, error) {
	if ns, ok := n.w.get(name); ok {
		return ns, nil
	}
	ns := &corev1.Namespace{}
	err := n.c.do(ctx, http.MethodGet, "/api/v1/namespaces/"+name, nil, nil, ns)
	if apierrors.IsNotFound(err) {
		return nil, err
	}
	if err != nil {
		return nil, apierrors.NewServiceUnavailable("look up namespace " + name + " in the main cluster: " + err.Error())
	}
	return ns, nil
}
