package storage

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"go.etcd.io/etcd/api/v3/mvccpb"
	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kubeforge/kubeforge/runtime/resource"
)

const (
	expiredListMsg      = "The resourceVersion for the provided list is too old."
	continueExpiredMsg  = "The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter."
	inconsistentListMsg = "The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list."
	// maxPageFetch bounds one etcd range read while filtering.
	maxPageFetch = 10000
)

// predicate is a compiled label and field selector.
type predicate struct {
	label labels.Selector
	field fields.Selector
	// fieldsOf returns an object's field set; nil when the field selector
	// only reads metadata.name and metadata.namespace, which are then read
	// from the object's metadata directly.
	fieldsOf func(resource.Object) (fields.Set, error)
	// own: fieldsOf is the store's own (Strategy.SelectableFields), not
	// a converted view's.
	own bool
}

func (p predicate) empty() bool { return p.label.Empty() && p.field.Empty() }

// matches reports whether obj is selected. An error (a *StatusError) comes
// from fieldsOf: a converted view whose stored object does not convert.
func (p predicate) matches(obj resource.Object) (bool, error) {
	if !p.label.Empty() && !p.label.Matches(labels.Set(obj.GetLabels())) {
		return false, nil
	}
	if p.field.Empty() {
		return true, nil
	}
	if p.fieldsOf == nil {
		return p.field.Matches(metadataFields(obj)), nil
	}
	set, err := p.fieldsOf(obj)
	if err != nil {
		return false, err
	}
	return p.field.Matches(set), nil
}

// metadataFields is the field set of a kind without selectable fields.
func metadataFields(obj metav1.Object) fields.Set {
	return fields.Set{"metadata.name": obj.GetName(), "metadata.namespace": obj.GetNamespace()}
}

// selectable replaces the store's own field labels and field set in
// ListOptions and WatchOptions: a converted (spoke) view selects on the
// fields of its own version (events.k8s.io regarding.name over the core/v1
// Event store), converting each stored object to read them.
type selectable struct {
	info     *resource.Info
	fieldsOf func(resource.Object) (fields.Set, error)
}

// fieldsOf is the store's own field set function: Strategy.SelectableFields.
func (st *access[T, L]) fieldsOf(obj resource.Object) (fields.Set, error) {
	t, ok := obj.(T)
	if !ok {
		return nil, apierrors.NewInternalError(fmt.Errorf("select %s: object of type %T", st.resourceName(), obj))
	}
	if st.s.SelectableFields == nil {
		return metadataFields(t), nil
	}
	return st.s.SelectableFields(t), nil
}

// newPredicate compiles the selectors of o, rejecting field labels the
// resource does not support with kube-apiserver's 400 (Info.CheckFieldLabel).
func (st *Store[T, L]) newPredicate(o ListOptions) (predicate, error) {
	p := predicate{label: o.LabelSelector, field: o.FieldSelector}
	if p.label == nil {
		p.label = labels.Everything()
	}
	if p.field == nil {
		p.field = fields.Everything()
	}
	info, fieldsOf := st.s.Info, st.fieldsOf
	p.own = o.selectable == nil
	if !p.own {
		info, fieldsOf = o.selectable.info, o.selectable.fieldsOf
	}
	for _, r := range p.field.Requirements() {
		if err := info.CheckFieldLabel(r.Field); err != nil {
			return p, apierrors.NewBadRequest(err.Error())
		}
		if r.Field != "metadata.name" && r.Field != "metadata.namespace" {
			p.fieldsOf = fieldsOf
		}
	}
	return p, nil
}

// listRequest checks a list's namespace and options, the one place List
// and ListJSON do, and compiles its selectors; a negative limit is none.
func (st *Store[T, L]) listRequest(namespace string, opts ListOptions) (ListOptions, predicate, error) {
	if err := st.checkNamespace(namespace); err != nil {
		return opts, predicate{}, err
	}
	if err := checkOptions(opts, nil); err != nil {
		return opts, predicate{}, err
	}
	pred, err := st.newPredicate(opts)
	if err != nil {
		return opts, predicate{}, err
	}
	if opts.Limit < 0 {
		opts.Limit = 0
	}
	return opts, pred, nil
}

// selectsBeyondMetadata reports whether fs reads a field other than
// metadata.name and metadata.namespace (a predicate with fieldsOf).
func selectsBeyondMetadata(fs fields.Selector) bool {
	if fs == nil {
		return false
	}
	for _, r := range fs.Requirements() {
		if r.Field != "metadata.name" && r.Field != "metadata.namespace" {
			return true
		}
	}
	return false
}

// List reads objects; namespace "" lists all namespaces. The
// resourceVersion semantics are kube-apiserver's: "" is a quorum read, "0"
// any data, N with NotOlderThan at least N, Exact at N (410 once
// compacted), an N above the current revision a 504 ResourceVersionTooLarge;
// continue tokens read later pages at the first page's revision.
func (st *Store[T, L]) List(ctx context.Context, namespace string, opts ListOptions) (L, error) {
	var zero L
	opts, pred, err := st.listRequest(namespace, opts)
	if err != nil {
		return zero, err
	}
	items, rev, cont, remaining, err := st.reads.list(ctx, namespace, opts, pred)
	if err != nil {
		return zero, err
	}
	return st.newList(items, rev, cont, remaining, pred), nil
}

// list is List read from etcd.
func (st etcdReader[T, L]) list(ctx context.Context, namespace string, opts ListOptions, pred predicate) ([]T, int64, string, int64, error) {
	keyPrefix := st.listPrefix(namespace)
	startKey := keyPrefix
	var err error
	var withRev, minRV int64
	serializable := false
	paging := opts.Continue != ""
	if paging {
		k, rv, err := decodeContinue(opts.Continue, keyPrefix)
		if err != nil {
			return nil, 0, "", 0, apierrors.NewBadRequest(fmt.Sprintf("invalid continue token: %v", err))
		}
		if opts.ResourceVersion != "" && opts.ResourceVersion != "0" {
			return nil, 0, "", 0, apierrors.NewBadRequest("specifying resource version is not allowed when using continue")
		}
		startKey = k
		if rv > 0 {
			withRev = rv
		}
	} else {
		if withRev, minRV, serializable, err = listRevision(opts); err != nil {
			return nil, 0, "", 0, err
		}
	}
	items, rev, cont, remaining, err := st.rangeRead(ctx, keyPrefix, startKey, withRev, serializable, opts.Limit, pred)
	if err != nil {
		if isCompacted(err) {
			if paging {
				// Offer a token that continues at the latest revision.
				tok, encErr := encodeContinue(startKey, keyPrefix, -1)
				if encErr != nil {
					return nil, 0, "", 0, apierrors.NewResourceExpired(continueExpiredMsg)
				}
				se := apierrors.NewResourceExpired(inconsistentListMsg)
				se.ErrStatus.ListMeta.Continue = tok
				return nil, 0, "", 0, se
			}
			return nil, 0, "", 0, apierrors.NewResourceExpired(expiredListMsg)
		}
		return nil, 0, "", 0, st.listError(ctx, namespace, withRev, err)
	}
	if minRV > rev {
		return nil, 0, "", 0, tooLargeRV(minRV, rev)
	}
	return items, rev, cont, remaining, nil
}

// newList is the list of items read at rev.
func (st *access[T, L]) newList(items []T, rev int64, cont string, remaining int64, pred predicate) L {
	out := st.s.NewList()
	st.s.SetItems(out, items)
	out.SetResourceVersion(strconv.FormatInt(rev, 10))
	out.SetContinue(cont)
	if cont != "" && pred.empty() && remaining > 0 {
		out.SetRemainingItemCount(&remaining)
	}
	out.GetObjectKind().SetGroupVersionKind(st.listGVK())
	return out
}

// listRevision reads the resourceVersion of a list without a continue
// token: the exact revision to read at (0: the latest), the revision the
// result must be at least, and whether any member's data will do.
func listRevision(opts ListOptions) (withRev, minRV int64, serializable bool, err error) {
	switch opts.ResourceVersion {
	case "":
	case "0":
		serializable = opts.ResourceVersionMatch != metav1.ResourceVersionMatchExact
	default:
		rv, err := parseRV(opts.ResourceVersion)
		if err != nil {
			return 0, 0, false, err
		}
		switch opts.ResourceVersionMatch {
		case metav1.ResourceVersionMatchExact:
			withRev = rv
		case metav1.ResourceVersionMatchNotOlderThan:
			minRV = rv
		default: // legacy: exact when paginating, at least rv otherwise
			if opts.Limit > 0 && rv > 0 {
				withRev = rv
			} else {
				minRV = rv
			}
		}
	}
	return withRev, minRV, serializable, nil
}

// listError turns the error of a list read at withRev (not compaction of a
// continue token, handled by List) into a StatusError.
func (st *access[T, L]) listError(ctx context.Context, namespace string, withRev int64, err error) error {
	if isCompacted(err) {
		return apierrors.NewResourceExpired(expiredListMsg)
	}
	if isFutureRev(err) {
		cur, cerr := st.currentRevision(ctx)
		if cerr != nil {
			cur = 0
		}
		return tooLargeRV(withRev, cur)
	}
	return st.etcdError(ctx, "list", namespace, err)
}

func isFutureRev(err error) bool {
	return err != nil && (err == rpctypes.ErrFutureRev || err.Error() == rpctypes.ErrFutureRev.Error())
}

// currentRevision is etcd's current revision, read with a quorum after the
// call (shared with concurrent callers: see revisions).
func (st *access[T, L]) currentRevision(ctx context.Context) (int64, error) {
	return st.b.revs.current(ctx)
}

// rangeRead reads keys from startKey to the end of keyPrefix at revision
// withRev (0: the latest), keeping up to limit matching items (0: all). It
// returns the items (never nil), the list revision, the continue token and,
// when more keys remain, how many.
func (st etcdReader[T, L]) rangeRead(ctx context.Context, keyPrefix, startKey string, withRev int64, serializable bool, limit int64, pred predicate) ([]T, int64, string, int64, error) {
	rangeEnd := clientv3.GetPrefixRangeEnd(keyPrefix)
	items := []T{}
	fetch := limit
	key := startKey
	var lastKey []byte
	var remaining int64
	hasMore := false
	for {
		ops := []clientv3.OpOption{clientv3.WithRange(rangeEnd)}
		if withRev > 0 {
			ops = append(ops, clientv3.WithRev(withRev))
		}
		if serializable {
			ops = append(ops, clientv3.WithSerializable())
		}
		if fetch > 0 {
			ops = append(ops, clientv3.WithLimit(fetch))
		}
		start := time.Now()
		resp, err := st.b.client.Get(ctx, key, ops...)
		st.observe("list", start)
		if err != nil {
			return nil, 0, "", 0, err
		}
		if withRev == 0 {
			withRev = resp.Header.Revision
		}
		st.fromStorageAll(ctx, resp.Kvs)
		hasMore = resp.More
		// Decode up front (in parallel) exactly what the loop below reads:
		// everything without a limit, the missing items without a
		// selector. A limited, filtered page decodes as it goes.
		var decoded []T
		var readable []bool
		if limit == 0 || pred.empty() {
			want := len(resp.Kvs)
			if limit > 0 {
				want = min(want, int(limit)-len(items))
			}
			decoded, readable = st.decodeAll(resp.Kvs[:want])
			if pred.empty() && cap(items)-len(items) < want {
				items = append(make([]T, 0, len(items)+want), items...)
			}
		}
		consumed := 0
		for i, kv := range resp.Kvs {
			if limit > 0 && int64(len(items)) >= limit {
				hasMore = true
				break
			}
			consumed++
			lastKey = kv.Key
			var obj T
			ok := true
			if decoded != nil {
				obj, ok = decoded[i], readable[i]
			} else {
				obj, ok = st.readable(kv)
			}
			if !ok {
				continue // reported; the rest of the collection is served
			}
			ok, err := pred.matches(obj)
			if err != nil {
				return nil, 0, "", 0, err
			}
			if ok {
				items = append(items, obj)
			}
		}
		remaining = resp.Count - int64(consumed)
		if !hasMore || limit == 0 || int64(len(items)) >= limit {
			break
		}
		key = string(lastKey) + "\x00"
		// Selectors filter items out: read bigger pages, as kube does.
		if fetch < maxPageFetch/2 {
			fetch *= 2
		} else {
			fetch = maxPageFetch
		}
	}
	if !hasMore || lastKey == nil {
		return items, withRev, "", 0, nil
	}
	tok, err := encodeContinue(string(lastKey)+"\x00", keyPrefix, withRev)
	if err != nil {
		return nil, 0, "", 0, apierrors.NewInternalError(err)
	}
	return items, withRev, tok, remaining, nil
}

// parallelDecodeMin is the number of stored objects from which decodeAll
// spreads the work over GOMAXPROCS goroutines.
const parallelDecodeMin = 256

// decodeAll decodes kvs in order. Decoding JSON is most of a large list's
// cost, so big ranges are decoded by up to GOMAXPROCS goroutines, each
// taking a contiguous share. ok[i] is false for an unreadable value
// (reported, left out by the caller).
func (st *access[T, L]) decodeAll(kvs []*mvccpb.KeyValue) (out []T, ok []bool) {
	out = make([]T, len(kvs))
	ok = make([]bool, len(kvs))
	_ = parallelDo(len(kvs), func(i int) error {
		out[i], ok[i] = st.readable(kvs[i])
		return nil
	})
	return out, ok
}
