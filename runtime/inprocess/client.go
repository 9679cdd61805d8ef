package inprocess

import (
	"context"
	"fmt"
	"sync"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// SelfClient returns a controller-runtime client of the server itself, as
// the admin (the kubeconfig the server writes once it serves), for the
// webhook structs that hold a client (Configure<Type>(w, c)). It connects
// on first use, after ready is closed: webhooks are configured before the
// server listens, and call it while serving. A webhook calling it inside a
// request makes a second request to the same server, as a webhook server
// calling kube-apiserver does.
func SelfClient(ready <-chan struct{}, kubeconfig string, scheme *runtime.Scheme) client.Client {
	return &selfClient{ready: ready, kubeconfig: kubeconfig, scheme: scheme}
}

type selfClient struct {
	ready      <-chan struct{}
	kubeconfig string
	scheme     *runtime.Scheme

	once sync.Once
	c    client.Client
	err  error
}

// get waits for the server (or ctx) and connects once.
func (s *selfClient) get(ctx context.Context) (client.Client, error) {
	select {
	case <-s.ready:
	case <-ctx.Done():
		return nil, fmt.Errorf("self client: the server is not serving yet: %w", ctx.Err())
	}
	s.once.Do(func() {
		cfg, err := clientcmd.BuildConfigFromFlags("", s.kubeconfig)
		if err != nil {
			s.err = fmt.Errorf("self client: read %s: %w", s.kubeconfig, err)
			return
		}
		// The server is on this machine: compressing a large list would
		// cost both ends CPU and save no network.
		cfg.DisableCompression = true
		s.c, s.err = client.New(cfg, client.Options{Scheme: s.scheme})
		if s.err != nil {
			s.err = fmt.Errorf("self client: %w", s.err)
		}
	})
	return s.c, s.err
}

func (s *selfClient) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	c, err := s.get(ctx)
	if err != nil {
		return err
	}
	return c.Get(ctx, key, obj, opts...)
}

func (s *selfClient) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	c, err := s.get(ctx)
	if err != nil {
		return err
	}
	return c.List(ctx, list, opts...)
}

func (s *selfClient) Apply(ctx context.Context, obj runtime.ApplyConfiguration, opts ...client.ApplyOption) error {
	c, err := s.get(ctx)
	if err != nil {
		return err
	}
	return c.Apply(ctx, obj, opts...)
}

func (s *selfClient) Create(ctx context.Context, obj client.Object, opts ...client.CreateOption) error {
	c, err := s.get(ctx)
	if err != nil {
		return err
	}
	return c.Create(ctx, obj, opts...)
}

func (s *selfClient) Delete(ctx context.Context, obj client.Object, opts ...client.DeleteOption) error {
	c, err := s.get(ctx)
	if err != nil {
		return err
	}
	return c.Delete(ctx, obj, opts...)
}

func (s *selfClient) Update(ctx context.Context, obj client.Object, opts ...client.UpdateOption) error {
	c, err := s.get(ctx)
	if err != nil {
		return err
	}
	return c.Update(ctx, obj, opts...)
}

func (s *selfClient) Patch(ctx context.Context, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
	c, err := s.get(ctx)
	if err != nil {
		return err
	}
	return c.Patch(ctx, obj, patch, opts...)
}

func (s *selfClient) DeleteAllOf(ctx context.Context, obj client.Object, opts ...client.DeleteAllOfOption) error {
	c, err := s.get(ctx)
	if err != nil {
		return err
	}
	return c.DeleteAllOf(ctx, obj, opts...)
}

func (s *selfClient) Status() client.SubResourceWriter { return s.SubResource("status") }

func (s *selfClient) SubResource(name string) client.SubResourceClient {
	return &selfSubResource{s: s, name: name}
}

func (s *selfClient) Scheme() *runtime.Scheme { return s.scheme }

// RESTMapper is nil until the client has connected (a first call with a
// context).
func (s *selfClient) RESTMapper() meta.RESTMapper {
	if c, err := s.get(closedContext(s.ready)); err == nil {
		return c.RESTMapper()
	}
	return nil
}

func (s *selfClient) GroupVersionKindFor(obj runtime.Object) (schema.GroupVersionKind, error) {
	c, err := s.get(closedContext(s.ready))
	if err != nil {
		return schema.GroupVersionKind{}, err
	}
	return c.GroupVersionKindFor(obj)
}

func (s *selfClient) IsObjectNamespaced(obj runtime.Object) (bool, error) {
	c, err := s.get(closedContext(s.ready))
	if err != nil {
		return false, err
	}
	return c.IsObjectNamespaced(obj)
}

// closedContext is a context already done unless ready is closed: the
// methods without a context do not wait for the server.
func closedContext(ready <-chan struct{}) context.Context {
	select {
	case <-ready:
		return context.Background()
	default:
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		return ctx
	}
}

// selfSubResource is SubResource of a selfClient, connecting on first use.
type selfSubResource struct {
	s    *selfClient
	name string
}

func (r *selfSubResource) Get(ctx context.Context, obj, sub client.Object, opts ...client.SubResourceGetOption) error {
	c, err := r.s.get(ctx)
	if err != nil {
		return err
	}
	return c.SubResource(r.name).Get(ctx, obj, sub, opts...)
}

func (r *selfSubResource) Create(ctx context.Context, obj, sub client.Object, opts ...client.SubResourceCreateOption) error {
	c, err := r.s.get(ctx)
	if err != nil {
		return err
	}
	return c.SubResource(r.name).Create(ctx, obj, sub, opts...)
}

func (r *selfSubResource) Update(ctx context.Context, obj client.Object, opts ...client.SubResourceUpdateOption) error {
	c, err := r.s.get(ctx)
	if err != nil {
		return err
	}
	return c.SubResource(r.name).Update(ctx, obj, opts...)
}

func (r *selfSubResource) Patch(ctx context.Context, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
	c, err := r.s.get(ctx)
	if err != nil {
		return err
	}
	return c.SubResource(r.name).Patch(ctx, obj, patch, opts...)
}

func (r *selfSubResource) Apply(ctx context.Context, obj runtime.ApplyConfiguration, opts ...client.SubResourceApplyOption) error {
	c, err := r.s.get(ctx)
	if err != nil {
		return err
	}
	return c.SubResource(r.name).Apply(ctx, obj, opts...)
}

var _ client.Client = (*selfClient)(nil)
