package delegate

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// The clients are plain JSON over client-go's authenticated transport
// (rest.HTTPClientFor: kubeconfig certificates, tokens, exec plugins),
// not client-go's typed clients and informers: those link every built-in
// group's scheme and apply configurations, 22 MB of binary for three
// requests and two watches.

// maxResponseBytes bounds what the server reads of one answer.
const maxResponseBytes = 64 << 20

// do sends a JSON request and decodes the answer into out; a non-2xx
// answer is the Status it carries, as a kube StatusError.
func (c *Cluster) do(ctx context.Context, method, path string, query url.Values, in, out any) error {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return fmt.Errorf("%s %s: %w", method, path, err)
		}
		body = bytes.NewReader(b)
	}
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	resp, err := c.send(ctx, method, path, query, body)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes))
	if err != nil {
		return fmt.Errorf("%s %s: read answer: %w", method, path, err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return statusError(resp.StatusCode, data)
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("%s %s: decode answer: %w", method, path, err)
	}
	return nil
}

func (c *Cluster) send(ctx context.Context, method, path string, query url.Values, body io.Reader) (*http.Response, error) {
	u := c.base.JoinPath(path)
	u.RawQuery = query.Encode()
	req, err := http.NewRequestWithContext(ctx, method, u.String(), body)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", method, path, err)
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", userAgent)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", method, path, err)
	}
	return resp, nil
}

// statusError turns an error answer into kube's StatusError.
func statusError(code int, data []byte) error {
	var st metav1.Status
	if json.Unmarshal(data, &st) == nil && st.Kind == "Status" {
		if st.Code == 0 {
			st.Code = int32(code)
		}
		return &apierrors.StatusError{ErrStatus: st}
	}
	msg := strings.TrimSpace(string(data))
	if len(msg) > 200 {
		msg = msg[:200]
	}
	return apierrors.NewGenericServerResponse(code, "", schema.GroupResource{}, "", msg, 0, false)
}

// watched follows one collection of the cluster (list, then watch from
// the list's resourceVersion, again from a list after an error or a 410),
// keeping its objects by name: a small reflector.
type watched[T any] struct {
	c     *Cluster
	path  string
	query url.Values
	name  func(*T) string
	// changed is called after each change with the current objects' map
	// (not to be kept or modified); may be nil.
	changed func(map[string]*T)

	mu      sync.RWMutex
	objs    map[string]*T
	synced  chan struct{}
	didSync sync.Once
}

func newWatched[T any](c *Cluster, path string, query url.Values, name func(*T) string) *watched[T] {
	return &watched[T]{c: c, path: path, query: query, name: name, objs: map[string]*T{}, synced: make(chan struct{})}
}

func (w *watched[T]) get(name string) (*T, bool) {
	w.mu.RLock()
	defer w.mu.RUnlock()
	o, ok := w.objs[name]
	return o, ok
}

// run lists and watches until ctx is done, backing off (up to 30 s) while
// the cluster fails.
func (w *watched[T]) run(ctx context.Context) {
	backoff := 250 * time.Millisecond
	for ctx.Err() == nil {
		err := w.listAndWatch(ctx)
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			w.c.log.Warn("watch the main cluster", "path", w.path, "err", err)
			backoff = min(2*backoff, 30*time.Second)
		} else {
			backoff = 250 * time.Millisecond
		}
		select {
		case <-ctx.Done():
		case <-time.After(backoff/2 + rand.N(backoff/2)):
		}
	}
}

func (w *watched[T]) listAndWatch(ctx context.Context) error {
	var list struct {
		Metadata metav1.ListMeta `json:"metadata"`
		Items    []T             `json:"items"`
	}
	if err := w.c.do(ctx, http.MethodGet, w.path, w.query, nil, &list); err != nil {
		return fmt.Errorf("list: %w", err)
	}
	objs := make(map[string]*T, len(list.Items))
	for i := range list.Items {
		objs[w.name(&list.Items[i])] = &list.Items[i]
	}
	w.mu.Lock()
	w.objs = objs
	w.notify()
	w.mu.Unlock()
	w.didSync.Do(func() { close(w.synced) })

	q := url.Values{}
	for k, v := range w.query {
		q[k] = v
	}
	q.Set("watch", "true")
	q.Set("resourceVersion", list.Metadata.ResourceVersion)
	q.Set("allowWatchBookmarks", "true")
	// The cluster ends a watch after this; it is then resumed.
	q.Set("timeoutSeconds", fmt.Sprint(300+rand.IntN(300)))
	rv := list.Metadata.ResourceVersion
	for {
		q.Set("resourceVersion", rv)
		next, err := w.watch(ctx, q)
		if err != nil || next == "" {
			return err
		}
		rv = next
	}
}

// watch follows one watch request; it returns the last resourceVersion
// seen ("" to list again).
func (w *watched[T]) watch(ctx context.Context, q url.Values) (string, error) {
	resp, err := w.c.watchClient(ctx, w.path, q)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		data, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		err := statusError(resp.StatusCode, data)
		if apierrors.IsGone(err) || apierrors.IsResourceExpired(err) {
			return "", nil
		}
		return "", fmt.Errorf("watch: %w", err)
	}
	rv := q.Get("resourceVersion")
	dec := json.NewDecoder(resp.Body)
	for {
		var ev struct {
			Type   string          `json:"type"`
			Object json.RawMessage `json:"object"`
		}
		if err := dec.Decode(&ev); err != nil {
			if errors.Is(err, io.EOF) || ctx.Err() != nil {
				return rv, nil
			}
			return "", fmt.Errorf("watch: %w", err)
		}
		if ev.Type == "ERROR" {
			var st metav1.Status
			_ = json.Unmarshal(ev.Object, &st)
			if st.Code == http.StatusGone {
				return "", nil
			}
			return "", fmt.Errorf("watch: %s", st.Message)
		}
		var meta struct {
			Metadata metav1.ObjectMeta `json:"metadata"`
		}
		if err := json.Unmarshal(ev.Object, &meta); err != nil {
			return "", fmt.Errorf("watch: decode event: %w", err)
		}
		rv = meta.Metadata.ResourceVersion
		if ev.Type == "BOOKMARK" {
			continue
		}
		o := new(T)
		if err := json.Unmarshal(ev.Object, o); err != nil {
			return "", fmt.Errorf("watch: decode event: %w", err)
		}
		w.mu.Lock()
		switch ev.Type {
		case "ADDED", "MODIFIED":
			w.objs[w.name(o)] = o
		case "DELETED":
			delete(w.objs, w.name(o))
		}
		w.notify()
		w.mu.Unlock()
	}
}

func (w *watched[T]) notify() {
	if w.changed != nil {
		w.changed(w.objs)
	}
}

// watchClient starts a watch request: no overall timeout (the cluster
// ends it after timeoutSeconds), only ctx.
func (c *Cluster) watchClient(ctx context.Context, path string, q url.Values) (*http.Response, error) {
	return c.send(ctx, http.MethodGet, path, q, nil)
}
