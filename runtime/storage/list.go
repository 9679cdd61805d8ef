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
	if opts.Continue == "" && (namespace != "" || !st.s.Info.Namespaced) {
		// A field selector naming one object selects at most one key:
		// kube's registry reads that key alone (MatchesSingle), so its
		// answer has no continue token whatever the limit.
		if name, ok := pred.field.RequiresExactMatch("metadata.name"); ok {
			if opts.Limit > 0 {
				if opts.ResourceVersionMatch == "" && opts.ResourceVersion != "" && opts.ResourceVersion != "0" {
					// What a limit made of a legacy resourceVersion.
					opts.ResourceVersionMatch = metav1.ResourceVersionMatchExact
				}
				opts.Limit = 0
			}
			if len(st.nameErrors(name)) == 0 {
				opts.oneName = name
			}
		}
	}
	return opts, pred, nil
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
	items := []T{}
	rev, cont, remaining, err := st.readRange(ctx, namespace, opts, st.objectsTaker(pred, &items))
	if err != nil {
		return nil, 0, "", 0, err
	}
	return items, rev, cont, remaining, nil
}

// rangeRead reads keys from startKey to the end of keyPrefix at revision
// withRev (0: the latest), keeping up to limit matching items (0: all). It
// returns the items (never nil), the list revision, the continue token and,
// when more keys remain, how many.
func (st etcdReader[T, L]) rangeRead(ctx context.Context, keyPrefix, startKey string, withRev int64, serializable bool, limit int64, pred predicate) ([]T, int64, string, int64, error) {
	items := []T{}
	rev, cont, remaining, err := st.readPages(ctx, keyPrefix, startKey, withRev, serializable, limit, st.objectsTaker(pred, &items))
	if err != nil {
		return nil, 0, "", 0, err
	}
	return items, rev, cont, remaining, nil
}

// objectsTaker is the typed path's take, appending to items.
func (st etcdReader[T, L]) objectsTaker(pred predicate, items *[]T) takeFunc {
	return func(kvs []*mvccpb.KeyValue, room int64) (int, int64, error) {
		n := len(*items)
		consumed, err := st.takeObjects(kvs, room, pred, items)
		return consumed, int64(len(*items) - n), err
	}
}

// readPrefix is the range of keys a list without a continue token reads
// from etcd: its namespace's, or the keys starting with the one a field
// selector names (the selector drops the longer names).
func (st *access[T, L]) readPrefix(namespace string, opts ListOptions) string {
	if opts.oneName != "" && opts.Continue == "" {
		return st.key(namespace, opts.oneName)
	}
	return st.listPrefix(namespace)
}

// rangeStart is where a list read from etcd starts.
type rangeStart struct {
	key string
	// withRev is the revision to read at (0: the latest), minRV the
	// revision the result must be at least.
	withRev, minRV int64
	// serializable: any member's data will do.
	serializable bool
	// paging: the list continues a token.
	paging bool
}

// listStart reads where a list starts from its continue token or its
// resourceVersion, with kube-apiserver's 400s for a bad token.
func listStart(opts ListOptions, keyPrefix string) (rangeStart, error) {
	s := rangeStart{key: keyPrefix, paging: opts.Continue != ""}
	if !s.paging {
		var err error
		s.withRev, s.minRV, s.serializable, err = listRevision(opts)
		return s, err
	}
	k, rv, err := decodeContinue(opts.Continue, keyPrefix)
	if err != nil {
		return s, apierrors.NewBadRequest(fmt.Sprintf("invalid continue token: %v", err))
	}
	if opts.ResourceVersion != "" && opts.ResourceVersion != "0" {
		return s, apierrors.NewBadRequest("specifying resource version is not allowed when using continue")
	}
	s.key = k
	if rv > 0 {
		s.withRev = rv
	}
	return s, nil
}

// readRange reads one page of a list from etcd (all of it without a
// limit) with take (see readPages), and answers compaction and a revision
// not yet reached as kube-apiserver does.
func (st etcdReader[T, L]) readRange(ctx context.Context, namespace string, opts ListOptions, take takeFunc) (int64, string, int64, error) {
	keyPrefix := st.readPrefix(namespace, opts)
	s, err := listStart(opts, keyPrefix)
	if err != nil {
		return 0, "", 0, err
	}
	rev, cont, remaining, err := st.readPages(ctx, keyPrefix, s.key, s.withRev, s.serializable, opts.Limit, take)
	if err != nil {
		if isCompacted(err) {
			if s.paging {
				// Offer a token that continues at the latest revision.
				tok, encErr := encodeContinue(s.key, keyPrefix, -1)
				if encErr != nil {
					return 0, "", 0, apierrors.NewResourceExpired(continueExpiredMsg)
				}
				se := apierrors.NewResourceExpired(inconsistentListMsg)
				se.ErrStatus.ListMeta.Continue = tok
				return 0, "", 0, se
			}
			return 0, "", 0, apierrors.NewResourceExpired(expiredListMsg)
		}
		return 0, "", 0, st.listError(ctx, namespace, s.withRev, err)
	}
	if s.minRV > rev {
		return 0, "", 0, tooLargeRV(s.minRV, rev)
	}
	return rev, cont, remaining, nil
}

// newList is the list of items read at rev.
func (st *access[T, L]) newList(items []T, rev int64, cont string, remaining int64, pred predicate) L {
	out := st.s.NewList()
	st.s.SetItems(out, items)
	out.SetResourceVersion(strconv.FormatInt(rev, 10))
	out.SetContinue(cont)
	out.SetRemainingItemCount(remainingItemCount(cont, remaining, pred))
	out.GetObjectKind().SetGroupVersionKind(st.listGVK())
	return out
}

// remainingItemCount is a page's metadata.remainingItemCount: the keys
// after it, set as kube-apiserver sets it, only on a page with a continue
// token of a list without selectors (with one, the count of keys would
// count objects the list does not select).
func remainingItemCount(cont string, remaining int64, pred predicate) *int64 {
	if cont == "" || !pred.empty() || remaining <= 0 {
		return nil
	}
	return &remaining
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

// takeFunc takes the items of a page from kvs, one etcd response, in key
// order: it looks at kvs until it has kept room items (0: no bound) or
// looked at all of them, and returns how many it looked at and kept.
type takeFunc func(kvs []*mvccpb.KeyValue, room int64) (consumed int, kept int64, err error)

// readPages reads keys from startKey to the end of keyPrefix at revision
// withRev (0: the latest), giving each response to take until it has kept
// limit items (0: all). It returns the list revision, the continue token
// and, when more keys remain, how many.
func (st etcdReader[T, L]) readPages(ctx context.Context, keyPrefix, startKey string, withRev int64, serializable bool, limit int64, take takeFunc) (int64, string, int64, error) {
	rangeEnd := clientv3.GetPrefixRangeEnd(keyPrefix)
	fetch := limit
	key := startKey
	var lastKey []byte
	var remaining, kept int64
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
			return 0, "", 0, err
		}
		if withRev == 0 {
			withRev = resp.Header.Revision
		}
		st.fromStorageAll(ctx, resp.Kvs)
		room := int64(0)
		if limit > 0 {
			room = limit - kept
		}
		consumed, n, err := take(resp.Kvs, room)
		if err != nil {
			return 0, "", 0, err
		}
		kept += n
		hasMore = resp.More || consumed < len(resp.Kvs)
		if consumed > 0 {
			lastKey = resp.Kvs[consumed-1].Key
		}
		remaining = resp.Count - int64(consumed)
		if !hasMore || limit == 0 || kept >= limit {
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
		return withRev, "", 0, nil
	}
	tok, err := encodeContinue(string(lastKey)+"\x00", keyPrefix, withRev)
	if err != nil {
		return 0, "", 0, apierrors.NewInternalError(err)
	}
	return withRev, tok, remaining, nil
}

// takeObjects is the typed path's take: it appends the decoded objects
// of kvs pred selects to items. Everything is decoded up front (in
// parallel) without a bound or a selector, the items the page can still
// hold otherwise; a limited, filtered page decodes as it goes, so that
// it decodes no object past the page's last.
func (st etcdReader[T, L]) takeObjects(kvs []*mvccpb.KeyValue, room int64, pred predicate, items *[]T) (int, error) {
	var decoded []T
	var readable []bool
	if room == 0 || pred.empty() {
		want := len(kvs)
		if room > 0 {
			want = min(want, int(room))
		}
		decoded, readable = st.decodeAll(kvs[:want])
		if pred.empty() && cap(*items)-len(*items) < want {
			*items = append(make([]T, 0, len(*items)+want), *items...)
		}
	}
	kept := int64(0)
	for i, kv := range kvs {
		if room > 0 && kept >= room {
			return i, nil
		}
		var obj T
		var ok bool
		if i < len(decoded) {
			obj, ok = decoded[i], readable[i]
		} else {
			// Past what was decoded ahead: an unreadable value left
			// room for one more.
			obj, ok = st.readable(kv)
		}
		if !ok {
			continue // reported; the rest of the collection is served
		}
		ok, err := pred.matches(obj)
		if err != nil {
			return 0, err
		}
		if ok {
			*items = append(*items, obj)
			kept++
		}
	}
	return len(kvs), nil
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
