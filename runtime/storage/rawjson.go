package storage

import (
	"bytes"
	"context"
	"fmt"
	"hash/maphash"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"time"

	"go.etcd.io/etcd/api/v3/mvccpb"
	clientv3 "go.etcd.io/etcd/client/v3"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubeforge/kubeforge/runtime/jsonencode"
)

// JSONReader is implemented by *Store: reads answered with the JSON the
// typed path would encode (json.Marshal of what Get returns, or of each
// item List returns, with apiVersion/kind of the storage version), built
// from the stored bytes without decoding them when that is known to give
// the same bytes. The handlers use it for plain JSON responses in the
// storage version. A converted view does not implement it.
type JSONReader interface {
	// StorageGroupVersionKind is the apiVersion/kind the JSON carries.
	StorageGroupVersionKind() schema.GroupVersionKind
	// GetJSON is json.Marshal of what Get returns.
	GetJSON(ctx context.Context, namespace, name string, opts GetOptions) ([]byte, error)
	// ListJSON is List with each item as json.Marshal of the item List
	// returns, and the list's continue token and remaining item count
	// List's. A list without a limit or continue token is read from etcd
	// in pages at the list's revision as the items are taken (see
	// JSONList); a page of a paginated list is read whole, as List reads
	// it. ok is false, with nothing read, for what it does not serve
	// (the options of a converted view): call List then.
	ListJSON(ctx context.Context, namespace string, opts ListOptions) (list *JSONList, ok bool, err error)
}

// jsonListPage is how many keys ListJSON reads from etcd at a time: a list
// holds about one page of stored values instead of all of them (eight
// concurrent lists of 10k objects of 1.1 KB otherwise hold some 180 MB).
const jsonListPage = 1000

// JSONList is a list read by ListJSON: the list's metadata, and its
// items' JSON in key order through Next. The first page is read by
// ListJSON, so its errors are List's; the next pages are read by Next at
// the same revision, so an error there (etcd unreachable, or the revision
// compacted since the list began) comes after the first items.
type JSONList struct {
	ResourceVersion string
	// Continue and RemainingItemCount are the list's metadata.continue
	// and metadata.remainingItemCount (nil where kube leaves it out).
	Continue           string
	RemainingItemCount *int64

	page []jsonItem
	next func() ([]jsonItem, bool, error)
	more bool
}

// Next appends the next item's JSON to dst; ok is false at the end.
func (l *JSONList) Next(dst []byte) (out []byte, ok bool, err error) {
	for len(l.page) == 0 {
		if !l.more {
			return dst, false, nil
		}
		if l.page, l.more, err = l.next(); err != nil {
			l.more = false
			return dst, false, err
		}
	}
	it := &l.page[0]
	l.page = l.page[1:]
	switch {
	case it.raw == nil:
		return append(dst, it.enc...), true, nil
	case it.packed != nil:
		out, err := appendStoredSpliced(dst, it.packed, it.raw, it.off, it.mode, it.rv)
		return out, err == nil, err
	}
	return appendSpliced(dst, it.raw, it.off, it.mode, it.rv), true, nil
}

// jsonItem is one item: the stored bytes with resourceVersion inserted at
// off (raw set), or its encoding when that splice was not proven (enc).
type jsonItem struct {
	raw  []byte
	rv   int64
	off  int
	mode byte
	enc  []byte
	// packed, when set, packed raw (the watch cache's, cache_object.go).
	packed *packer
}

// The typed path's JSON of a stored object is the stored bytes with
// "resourceVersion":"<mod revision>" inserted into metadata, where
// json.Marshal puts ObjectMeta.ResourceVersion: after name, generateName,
// namespace, selfLink and uid. That holds only if decoding the stored
// bytes and encoding the result gives them back, which is not true of
// every stored value (fields since removed from the type, values written
// by other programs, marshalers that normalise). So a store checks it once
// per stored version (key and mod revision) by doing exactly what the
// typed path does and comparing, and remembers the versions that passed.
// A key's value at a mod revision never changes; the length and a hash of
// the bytes are kept too, so a different etcd behind the same prefix
// cannot be mistaken for the one checked.

// Insertion modes: before a key (`"resourceVersion":"N",` then the key),
// at the closing brace of a metadata object with keys (`,"resourceVersion":"N"`),
// or of an empty one (`"resourceVersion":"N"`).
const (
	spliceBeforeKey byte = iota
	spliceAtEnd
	spliceEmpty
)

// metaBeforeRV are the ObjectMeta fields json.Marshal writes before
// resourceVersion.
var metaBeforeRV = [][]byte{[]byte("name"), []byte("generateName"), []byte("namespace"), []byte("selfLink"), []byte("uid")}

func appendSpliced(dst, raw []byte, off int, mode byte, rv int64) []byte {
	dst = append(dst, raw[:off]...)
	if mode == spliceAtEnd {
		dst = append(dst, ',')
	}
	dst = append(dst, `"resourceVersion":"`...)
	dst = strconv.AppendInt(dst, rv, 10)
	dst = append(dst, '"')
	if mode == spliceBeforeKey {
		dst = append(dst, ',')
	}
	return append(dst, raw[off:]...)
}

// spliceOffset finds where resourceVersion goes in compact JSON data (what
// json.Marshal writes): ok is false when data is not of that shape (no
// top-level metadata object, or one that already has resourceVersion).
// A wrong guess is harmless: the result is compared with the typed path's.
func spliceOffset(data []byte) (off int, mode byte, ok bool) {
	i := 0
	if len(data) < 2 || data[0] != '{' {
		return 0, 0, false
	}
	i = 1
	for i < len(data) && data[i] != '}' {
		key, next, ok := scanString(data, i)
		if !ok || next >= len(data) || data[next] != ':' {
			return 0, 0, false
		}
		i = next + 1
		if string(key) != "metadata" {
			if i, ok = skipValue(data, i); !ok {
				return 0, 0, false
			}
			if i < len(data) && data[i] == ',' {
				i++
			}
			continue
		}
		if i >= len(data) || data[i] != '{' {
			return 0, 0, false
		}
		i++
		if i < len(data) && data[i] == '}' {
			return i, spliceEmpty, true
		}
		for i < len(data) {
			mkey, next, ok := scanString(data, i)
			if !ok || next >= len(data) || data[next] != ':' {
				return 0, 0, false
			}
			if string(mkey) == "resourceVersion" {
				return 0, 0, false
			}
			before := false
			for _, k := range metaBeforeRV {
				if bytes.Equal(mkey, k) {
					before = true
					break
				}
			}
			if !before {
				return i, spliceBeforeKey, true
			}
			if i, ok = skipValue(data, next+1); !ok || i >= len(data) {
				return 0, 0, false
			}
			switch data[i] {
			case ',':
				i++
			case '}':
				return i, spliceAtEnd, true
			default:
				return 0, 0, false
			}
		}
		return 0, 0, false
	}
	return 0, 0, false
}

// scanString reads the string starting at data[i] ('"'); key is its raw
// content (escapes not decoded) and next the index after the closing quote.
func scanString(data []byte, i int) (key []byte, next int, ok bool) {
	if i >= len(data) || data[i] != '"' {
		return nil, 0, false
	}
	for j := i + 1; j < len(data); j++ {
		switch data[j] {
		case '\\':
			j++
		case '"':
			return data[i+1 : j], j + 1, true
		}
	}
	return nil, 0, false
}

// skipValue returns the index after the JSON value starting at data[i].
func skipValue(data []byte, i int) (int, bool) {
	if i >= len(data) {
		return 0, false
	}
	switch data[i] {
	case '"':
		_, next, ok := scanString(data, i)
		return next, ok
	case '{', '[':
		depth := 0
		for j := i; j < len(data); j++ {
			switch data[j] {
			case '"':
				_, next, ok := scanString(data, j)
				if !ok {
					return 0, false
				}
				j = next - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1, true
				}
			}
		}
		return 0, false
	default:
		j := i
		for j < len(data) && data[j] != ',' && data[j] != '}' && data[j] != ']' {
			j++
		}
		return j, j > i
	}
}

// rawCacheMax bounds the stored versions a store remembers; past it the
// memory is dropped and versions are checked again as they are read.
const rawCacheMax = 1 << 16

// rawEntry is a checked stored version, with what selectors read.
type rawEntry struct {
	rev       int64
	size      int
	hash      uint64
	off       int
	mode      byte
	name      string
	namespace string
	labels    map[string]string
}

type rawCache struct {
	seed maphash.Seed
	mu   sync.RWMutex
	m    map[string]*rawEntry
}

func newRawCache() *rawCache {
	return &rawCache{seed: maphash.MakeSeed(), m: map[string]*rawEntry{}}
}

// lookup returns the entry of kv if this exact version was checked.
func (c *rawCache) lookup(kv *mvccpb.KeyValue) *rawEntry {
	c.mu.RLock()
	e := c.m[string(kv.Key)]
	c.mu.RUnlock()
	if e == nil || e.rev != kv.ModRevision || e.size != len(kv.Value) || e.hash != maphash.Bytes(c.seed, kv.Value) {
		return nil
	}
	return e
}

// lookupAt is lookup of the value stored at key with mod revision rev.
func (c *rawCache) lookupAt(key string, rev int64, value []byte) *rawEntry {
	c.mu.RLock()
	e := c.m[key]
	c.mu.RUnlock()
	if e == nil || e.rev != rev || e.size != len(value) || e.hash != maphash.Bytes(c.seed, value) {
		return nil
	}
	return e
}

// entry is the entry of value, stored at rev and decoded as obj, whose
// splice at off in mode was checked.
func (c *rawCache) entry(rev int64, value []byte, off int, mode byte, obj metav1.Object) *rawEntry {
	return &rawEntry{
		rev: rev, size: len(value), hash: maphash.Bytes(c.seed, value),
		off: off, mode: mode,
		name: obj.GetName(), namespace: obj.GetNamespace(), labels: obj.GetLabels(),
	}
}

func (c *rawCache) put(key []byte, e *rawEntry) {
	c.mu.Lock()
	if len(c.m) >= rawCacheMax {
		if _, ok := c.m[string(key)]; !ok {
			c.m = map[string]*rawEntry{}
		}
	}
	c.m[string(key)] = e
	c.mu.Unlock()
}

func (c *rawCache) forget(key string) {
	c.mu.Lock()
	delete(c.m, key)
	c.mu.Unlock()
}

// StorageGroupVersionKind is the apiVersion/kind of stored objects.
func (st *Store[T, L]) StorageGroupVersionKind() schema.GroupVersionKind { return st.storageGVK() }

// checkJSON does what the typed path does with kv (decode, encode) and
// remembers kv's version when the stored bytes with resourceVersion
// spliced in are that encoding. It returns the typed object, its encoding
// and the entry (nil when the splice does not give the encoding).
func (st *access[T, L]) checkJSON(kv *mvccpb.KeyValue) (T, []byte, *rawEntry, error) {
	obj, err := st.decode(kv.Value, kv.ModRevision)
	if err != nil {
		var zero T
		return zero, nil, nil, err
	}
	enc, err := jsonencode.Marshal(obj)
	if err != nil {
		var zero T
		return zero, nil, nil, apierrors.NewInternalError(fmt.Errorf("encode %s %q: %w", st.resourceName(), obj.GetName(), err))
	}
	off, mode, ok := spliceOffset(kv.Value)
	if !ok || len(enc) != len(kv.Value)+spliceLen(mode, kv.ModRevision) ||
		!bytes.Equal(appendSpliced(make([]byte, 0, len(enc)), kv.Value, off, mode, kv.ModRevision), enc) {
		return obj, enc, nil, nil
	}
	e := st.raw.entry(kv.ModRevision, kv.Value, off, mode, obj)
	st.raw.put(kv.Key, e)
	return obj, enc, e, nil
}

func spliceLen(mode byte, rv int64) int {
	n := len(`"resourceVersion":""`) + len(strconv.FormatInt(rv, 10))
	if mode != spliceEmpty {
		n++
	}
	return n
}

// GetJSON implements JSONReader.
func (st *Store[T, L]) GetJSON(ctx context.Context, namespace, name string, opts GetOptions) ([]byte, error) {
	key, err := st.readKey(namespace, name)
	if err != nil {
		return nil, err
	}
	return st.reads.getJSON(ctx, key, name, opts)
}

// getJSON is GetJSON read from etcd.
func (st etcdReader[T, L]) getJSON(ctx context.Context, key, name string, opts GetOptions) ([]byte, error) {
	kv, err := st.getKV(ctx, key, name, opts)
	if err != nil {
		return nil, err
	}
	if e := st.raw.lookup(kv); e != nil {
		return appendSpliced(make([]byte, 0, len(kv.Value)+32), kv.Value, e.off, e.mode, kv.ModRevision), nil
	}
	_, enc, _, err := st.checkJSON(kv)
	return enc, err
}

// ListJSON implements JSONReader.
func (st *Store[T, L]) ListJSON(ctx context.Context, namespace string, opts ListOptions) (*JSONList, bool, error) {
	// Declined before anything is checked: List, called next, checks
	// the request once. A converted view's selector reads its own
	// version's fields.
	if opts.selectable != nil {
		return nil, false, nil
	}
	opts, pred, err := st.listRequest(namespace, opts)
	if err != nil {
		return nil, true, err
	}
	l, err := st.reads.listJSON(ctx, namespace, opts, pred)
	return l, true, err
}

// listJSON is ListJSON read from etcd.
func (st etcdReader[T, L]) listJSON(ctx context.Context, namespace string, opts ListOptions, pred predicate) (*JSONList, error) {
	if opts.Limit > 0 || opts.Continue != "" {
		return st.pageJSON(ctx, namespace, opts, pred)
	}
	withRev, minRV, serializable, err := listRevision(opts)
	if err != nil {
		return nil, err
	}
	keyPrefix := st.readPrefix(namespace, opts)
	rangeEnd := clientv3.GetPrefixRangeEnd(keyPrefix)
	read := func(key string, rev int64) (*clientv3.GetResponse, error) {
		ops := []clientv3.OpOption{clientv3.WithRange(rangeEnd), clientv3.WithLimit(jsonListPage)}
		if rev > 0 {
			ops = append(ops, clientv3.WithRev(rev))
		}
		if serializable {
			ops = append(ops, clientv3.WithSerializable())
		}
		start := time.Now()
		resp, err := st.b.client.Get(ctx, key, ops...)
		st.observe("list", start)
		if err != nil {
			return nil, st.listError(ctx, namespace, rev, err)
		}
		st.fromStorageAll(ctx, resp.Kvs)
		return resp, nil
	}
	resp, err := read(keyPrefix, withRev)
	if err != nil {
		return nil, err
	}
	rev := resp.Header.Revision
	if withRev > 0 {
		rev = withRev
	}
	if minRV > rev {
		return nil, tooLargeRV(minRV, rev)
	}
	page, err := st.jsonPage(nil, resp.Kvs, pred)
	if err != nil {
		return nil, err
	}
	l := &JSONList{ResourceVersion: strconv.FormatInt(rev, 10), page: page, more: resp.More}
	last := lastKey(resp.Kvs)
	l.next = func() ([]jsonItem, bool, error) {
		resp, err := read(last+"\x00", rev)
		if err != nil {
			return nil, false, err
		}
		last = lastKey(resp.Kvs)
		page, err := st.jsonPage(nil, resp.Kvs, pred)
		return page, resp.More && len(resp.Kvs) > 0, err
	}
	return l, nil
}

func lastKey(kvs []*mvccpb.KeyValue) string {
	if len(kvs) == 0 {
		return ""
	}
	return string(kvs[len(kvs)-1].Key)
}

// pageJSON is listJSON of one page of a paginated list (a limit or a
// continue token), read as List reads it: its continue token comes before
// its items in the response, and is known once the page is read.
func (st etcdReader[T, L]) pageJSON(ctx context.Context, namespace string, opts ListOptions, pred predicate) (*JSONList, error) {
	var page []jsonItem
	take := func(kvs []*mvccpb.KeyValue, room int64) (int, int64, error) {
		consumed, kept := 0, int64(0)
		for consumed < len(kvs) && (room == 0 || kept < room) {
			// Each key gives at most one item, so all of the next
			// room-kept keys are part of the page: they are checked
			// together (in parallel), and none past the page's last.
			n := len(kvs) - consumed
			if room > 0 {
				n = min(n, int(room-kept))
			}
			before := len(page)
			var err error
			if page, err = st.jsonPage(page, kvs[consumed:consumed+n], pred); err != nil {
				return 0, 0, err
			}
			kept += int64(len(page) - before)
			consumed += n
		}
		return consumed, kept, nil
	}
	rev, cont, remaining, err := st.readRange(ctx, namespace, opts, take)
	if err != nil {
		return nil, err
	}
	return &JSONList{
		ResourceVersion:    strconv.FormatInt(rev, 10),
		Continue:           cont,
		RemainingItemCount: remainingItemCount(cont, remaining, pred),
		page:               page,
	}, nil
}

// jsonPage appends to dst the JSON of the items among kvs pred selects:
// remembered versions as stored bytes to splice, the others checked (in
// parallel).
func (st etcdReader[T, L]) jsonPage(dst []jsonItem, kvs []*mvccpb.KeyValue, pred predicate) ([]jsonItem, error) {
	base := len(dst)
	dst = slices.Grow(dst, len(kvs))[:base+len(kvs)]
	items := dst[base:]
	keep := make([]bool, len(kvs))
	var misses []int
	for i, kv := range kvs {
		e := st.raw.lookup(kv)
		if e == nil {
			items[i] = jsonItem{} // raw unset: to be checked
			misses = append(misses, i)
			continue
		}
		items[i] = jsonItem{raw: kv.Value, rv: kv.ModRevision, off: e.off, mode: e.mode}
		if pred.fieldsOf != nil {
			// Selectable fields are read from the decoded object
			// (with the misses); it need not be encoded.
			misses = append(misses, i)
			continue
		}
		keep[i] = pred.matchesMeta(e.labels, e.name, e.namespace)
	}
	err := parallelDo(len(misses), func(j int) error {
		i := misses[j]
		if items[i].raw != nil {
			return st.selectRemembered(kvs[i], pred, &keep[i])
		}
		obj, enc, e, err := st.checkJSON(kvs[i])
		if err != nil {
			if !bytes.Equal(kvs[i].Value, undecryptable) {
				st.unreadable(kvs[i].Key, err)
			}
			return nil // left out; the rest of the collection is served
		}
		ok, err := pred.matches(obj)
		if err != nil {
			return err
		}
		keep[i] = ok
		if e != nil {
			items[i] = jsonItem{raw: kvs[i].Value, rv: kvs[i].ModRevision, off: e.off, mode: e.mode}
		} else {
			items[i] = jsonItem{enc: enc}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := dst[:base]
	for i := range items {
		if keep[i] {
			out = append(out, items[i])
		}
	}
	clear(dst[len(out):])
	return out, nil
}

// selectRemembered sets keep when pred selects the remembered version
// kv, decoded; an unreadable one is left out.
func (st etcdReader[T, L]) selectRemembered(kv *mvccpb.KeyValue, pred predicate, keep *bool) error {
	obj, ok := st.readable(kv)
	if !ok {
		return nil
	}
	ok, err := pred.matches(obj)
	*keep = ok
	return err
}

// matchesMeta is matches for a predicate without fieldsOf, from the
// labels, name and namespace of an object.
func (p predicate) matchesMeta(lbls map[string]string, name, namespace string) bool {
	if !p.label.Empty() && !p.label.Matches(labels.Set(lbls)) {
		return false
	}
	if p.field.Empty() {
		return true
	}
	return p.field.Matches(fields.Set{"metadata.name": name, "metadata.namespace": namespace})
}

// parallelDo calls f(0..n-1), spreading big n over GOMAXPROCS goroutines
// in contiguous shares. The error is the first in index order.
func parallelDo(n int, f func(i int) error) error {
	workers := min(runtime.GOMAXPROCS(0), n/(parallelDecodeMin/2))
	if n < parallelDecodeMin || workers < 2 {
		for i := range n {
			if err := f(i); err != nil {
				return err
			}
		}
		return nil
	}
	errs := make([]error, workers)
	var wg sync.WaitGroup
	share := (n + workers - 1) / workers
	for w := range workers {
		lo, hi := w*share, min((w+1)*share, n)
		wg.Go(func() {
			for i := lo; i < hi; i++ {
				if err := f(i); err != nil {
					errs[w] = err
					return
				}
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
