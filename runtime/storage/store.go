// Package storage is the typed store over etcd client v3: one Store[T, L]
// per served resource, built from the generated resource.Strategy.
//
// Keys are <prefix>/<group>/<plural>/<namespace>/<name> (no namespace
// segment for cluster-scoped kinds); values are the JSON of the storage
// version with apiVersion and kind set and without resourceVersion, which
// is the etcd mod revision. Every error returned is a *apierrors.StatusError.
package storage

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/uuid"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kubeforge/kubeforge/runtime/jsondecode"
	"github.com/kubeforge/kubeforge/runtime/jsonencode"
	"github.com/kubeforge/kubeforge/runtime/presence"
	"github.com/kubeforge/kubeforge/runtime/resource"
	"github.com/kubeforge/kubeforge/runtime/warnings"
)

// OptimisticLockErrorMsg is Kubernetes' conflict message.
const OptimisticLockErrorMsg = "the object has been modified; please apply your changes to the latest version and try again"

// maxUpdateRetries bounds GuaranteedUpdate and graceful Delete retries on
// conflicts with concurrent writers.
const maxUpdateRetries = 16

// AdmitFunc is the validating admission of one write, called once the
// object passed its own validation, just before it is written (kube's
// createValidation, updateValidation and deleteValidation): obj is the
// object to write (nil on delete), old the current one (nil on create),
// both in the version of the storage.Interface the write came through.
// An error refuses the write.
type AdmitFunc func(ctx context.Context, obj, old resource.Object) error

// CreateOptions for Create.
type CreateOptions struct {
	DryRun bool
	// Admit, when set, is the write's validating admission.
	Admit AdmitFunc
	// Owned: the caller gives the object up (it uses only what Create
	// returns), so Create sets the server's fields on it instead of on a
	// deep copy.
	Owned bool
	// Presence is the JSON the object was decoded from, which validation
	// asks whether a required field without omitempty was sent as its
	// zero or left out (see resource.Strategy.Validate); the zero Node
	// counts every zero as missing.
	Presence presence.Node
	// fromSpoke is set by a converted view: see Store.validate.
	fromSpoke bool
}

// GetOptions for Get.
type GetOptions struct {
	// ResourceVersion: "" is a quorum read, "0" any data, N at least N.
	ResourceVersion string
}

// ListOptions for List, DeleteCollection and Watch.
type ListOptions struct {
	LabelSelector        labels.Selector
	FieldSelector        fields.Selector
	Limit                int64
	Continue             string
	ResourceVersion      string
	ResourceVersionMatch metav1.ResourceVersionMatch

	// selectable, set by a converted view, selects on the fields of the
	// view's version instead of the store's (see selectable).
	selectable *selectable
	// oneName, set by listRequest, is the name a field selector pins in a
	// namespace (or of a cluster-scoped kind): etcd is read at its key.
	oneName string
}

// UpdateOptions for GuaranteedUpdate.
type UpdateOptions struct {
	DryRun bool
	// Admit, when set, is the write's validating admission.
	Admit AdmitFunc
	// Subresource is "" or "status".
	Subresource string
	// RequireResourceVersion makes the object tryUpdate returns carry a
	// resourceVersion (PUT): without one the write is a 422, as
	// kube-apiserver answers for custom resources, which allow no
	// unconditional update.
	RequireResourceVersion bool
	// Presence, when set, is where tryUpdate leaves the JSON of the object
	// it returns (see CreateOptions.Presence); nil, or a zero Node left
	// there, counts every zero as missing.
	Presence *presence.Node
	// fromSpoke is set by a converted view: see Store.validate.
	fromSpoke bool
}

// sent is what tryUpdate left in Presence.
func (o UpdateOptions) sent() presence.Node {
	if o.Presence == nil {
		return presence.Node{}
	}
	return *o.Presence
}

// checkResourceVersionPrecondition checks the resourceVersion of newObj, a
// write over cur, as a precondition: a malformed one is a 400, one other
// than cur's a 409 Conflict, a missing one a 422 when required. (The
// endpoints' checkResourceVersion checks only the syntax of a query's.)
func checkResourceVersionPrecondition(info *resource.Info, newObj, cur resource.Object, required bool) error {
	rv := newObj.GetResourceVersion()
	if rv == "" {
		if !required {
			return nil
		}
		// kube-apiserver's registry names the resource, not the kind, in
		// this error (Kind: the plural): "gadgets.acceptance.example.dev
		// "g1" is invalid"; clients match the message, so we keep the quirk.
		gk := schema.GroupKind{Group: info.Group, Kind: info.Plural}
		return apierrors.NewInvalid(gk, newObj.GetName(), field.ErrorList{
			field.Invalid(field.NewPath("metadata", "resourceVersion"), uint64(0), "must be specified for an update"),
		})
	}
	if _, err := parseRV(rv); err != nil {
		return err
	}
	if rv != cur.GetResourceVersion() {
		return apierrors.NewConflict(info.GroupResource(), newObj.GetName(), errors.New(OptimisticLockErrorMsg))
	}
	return nil
}

// DeleteOptions for Delete and DeleteCollection.
type DeleteOptions struct {
	DryRun bool
	// Admit, when set, is the validating admission of each object's
	// deletion (obj nil, old the object).
	Admit         AdmitFunc
	Preconditions *metav1.Preconditions
	// PropagationPolicy: Orphan adds the "orphan" finalizer, Foreground
	// "foregroundDeletion", Background neither; nil keeps what the object
	// has, else the kind's default (DefaultGCPolicy). See gc.go.
	PropagationPolicy *metav1.DeletionPropagation
	// OrphanDependents is the deprecated form of PropagationPolicy (true:
	// Orphan, false: Background); giving both is a 422.
	OrphanDependents *bool
	// IgnoreStoreReadError deletes an object whose stored value cannot be
	// decoded or decrypted, without reading it (kube's
	// ignoreStoreReadErrorWithClusterBreakingPotential); a readable
	// object is deleted as usual. The caller authorizes it.
	IgnoreStoreReadError bool
}

// WatchOptions for Watch.
type WatchOptions struct {
	ListOptions
	SendInitialEvents *bool
	AllowBookmarks    bool
	// Progress (with AllowBookmarks) sends a BOOKMARK for every progress
	// etcd reports, however often, for in-process watchers that wait
	// until they have seen a revision (the garbage collector). Clients'
	// watches get at most one per half BookmarkInterval.
	Progress bool
}

// Event is one watch event.
type Event[T resource.Object] struct {
	Type   watch.EventType
	Object T
	// Status is set for ERROR events.
	Status *metav1.Status
	// Memo, when set, is shared by every watcher the event reaches (the
	// watch cache's events): what is derived from Object alone (its
	// conversion, its encodings) can be computed once through it.
	Memo *Memo
}

// Store is the typed store of one resource: its verbs over etcd (the
// access it embeds), with every read answered by one reader chosen at
// construction (see reader.go).
type Store[T resource.Object, L resource.ListObject] struct {
	*access[T, L]
	// reads answers Get, List, Watch and their JSON forms: etcd, or the
	// watch cache in front of etcd.
	reads reader[T, L]
	hooks Hooks[T]
	// inproc is the kind's in-process admission (inprocess.go), or nil.
	inproc InProcessAdmission[T]
}

// NewStore returns the store of the resource described by s.
func NewStore[T resource.Object, L resource.ListObject](b *Backend, s *resource.Strategy[T, L]) *Store[T, L] {
	if s.CustomResource != nil {
		// Before the watch cache writes a first object of the kind.
		jsonencode.RegisterCustomResource(*s.CustomResource)
	}
	a := &access[T, L]{b: b, s: s, raw: newRawCache()}
	if b.opts.Transformer != nil {
		a.tx = b.opts.Transformer(s.Info.GroupResource())
	}
	st := &Store[T, L]{access: a, reads: etcdReader[T, L]{a}}
	if b.opts.WatchCache {
		c := newWatchCache(a, b.opts)
		b.startCache(c.run)
		st.reads = cacheReader[T, L]{c: c, etcd: etcdReader[T, L]{a}}
	}
	return st
}

// Strategy returns the strategy the store was built with.
func (st *Store[T, L]) Strategy() *resource.Strategy[T, L] { return st.s }

func (st *access[T, L]) groupKind() schema.GroupKind {
	return schema.GroupKind{Group: st.s.Info.Group, Kind: st.s.Info.Kind}
}

func (st *access[T, L]) storageGVK() schema.GroupVersionKind {
	v := st.s.Info.StorageVersion
	if v == "" {
		v = st.s.Info.Version
	}
	return schema.GroupVersionKind{Group: st.s.Info.Group, Version: v, Kind: st.s.Info.Kind}
}

func (st *access[T, L]) resourceName() string { return st.s.Info.GroupResource().String() }

func (st *access[T, L]) observe(op string, start time.Time) {
	st.b.observe(op, st.resourceName(), start)
}

func (st *access[T, L]) copyObj(obj T) T {
	return obj.DeepCopyObject().(T)
}

// encode returns the stored form of obj: storage apiVersion/kind, no
// resourceVersion. obj is left unchanged.
func (st *access[T, L]) encode(obj T) ([]byte, error) {
	rv := obj.GetResourceVersion()
	obj.SetResourceVersion("")
	obj.GetObjectKind().SetGroupVersionKind(st.storageGVK())
	data, err := jsonencode.Marshal(obj)
	obj.SetResourceVersion(rv)
	if err != nil {
		return nil, apierrors.NewInternalError(fmt.Errorf("encode %s %q: %w", st.resourceName(), obj.GetName(), err))
	}
	return data, nil
}

// decode reads a stored value and sets resourceVersion to rev. Unknown
// fields are ignored.
func (st *access[T, L]) decode(data []byte, rev int64) (T, error) {
	obj := st.s.New()
	if err := jsondecode.UnmarshalCaseSensitivePreserveInts(data, obj); err != nil {
		var zero T
		return zero, apierrors.NewInternalError(fmt.Errorf("decode stored %s: %w", st.resourceName(), err))
	}
	obj.GetObjectKind().SetGroupVersionKind(st.storageGVK())
	obj.SetResourceVersion(strconv.FormatInt(rev, 10))
	// The storage version's defaults apply on every read, before any
	// conversion, as kube-apiserver applies them when it decodes from
	// etcd: a field added later with a default shows on old objects, and
	// a zero the stored JSON holds stays.
	if st.s.Default != nil {
		st.s.Default(obj, presence.JSON(data))
	}
	return obj, nil
}

func isCompacted(err error) bool { return errors.Is(err, rpctypes.ErrCompacted) }

// ErrUnavailable is the cause a caller cancels a request's context with
// when etcd stops answering (the server's health probe): the request's
// etcd error is then a 503 ServiceUnavailable rather than a timeout.
var ErrUnavailable = errors.New("etcd does not answer")

// etcdError turns an etcd client error into a StatusError.
func (st *access[T, L]) etcdError(ctx context.Context, op, name string, err error) error {
	var se *apierrors.StatusError
	if errors.As(err, &se) {
		return err
	}
	if errors.Is(context.Cause(ctx), ErrUnavailable) {
		se := apierrors.NewServiceUnavailable(fmt.Sprintf("%s %s %q: storage is unavailable: %v; retry later", op, st.resourceName(), name, ErrUnavailable))
		se.ErrStatus.Details = &metav1.StatusDetails{RetryAfterSeconds: 1}
		return se
	}
	switch {
	case errors.Is(err, rpctypes.ErrNoSpace):
		return &apierrors.StatusError{ErrStatus: metav1.Status{
			Status: metav1.StatusFailure, Code: http.StatusInsufficientStorage, Reason: metav1.StatusReasonInternalError,
			Message: fmt.Sprintf("%s %s %q: etcd is out of space (its NOSPACE alarm is raised): writes are refused until objects are deleted and the space reclaimed; reads and deletes still work", op, st.resourceName(), name),
		}}
	case errors.Is(err, rpctypes.ErrRequestTooLarge):
		return apierrors.NewRequestEntityTooLargeError(fmt.Sprintf("%s %s %q: %v", op, st.resourceName(), name, err))
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, rpctypes.ErrTimeout):
		return apierrors.NewTimeoutError(fmt.Sprintf("%s %s %q: etcd request timed out", op, st.resourceName(), name), 2)
	case errors.Is(err, context.Canceled):
		return apierrors.NewTimeoutError(fmt.Sprintf("%s %s %q: request canceled", op, st.resourceName(), name), 0)
	}
	return apierrors.NewInternalError(fmt.Errorf("%s %s %q: %w", op, st.resourceName(), name, err))
}

func (st *access[T, L]) conflict(name string, msg string) error {
	return apierrors.NewConflict(st.s.Info.GroupResource(), name, errors.New(msg))
}

// validate checks obj before it is written. An object written through
// another served version (fromSpoke) was defaulted and validated as that
// version, what its OpenAPI schema says, as kube-apiserver validates a
// request in its own version: the storage version then applies its
// defaults (as a read would) and runs only its hand-written Validate_
// hooks, not its own markers.
//
// On an update (old set) the errors of values the update left unchanged
// are dropped (ratchet).
func (st *Store[T, L]) validate(ctx context.Context, obj, old T, update, fromSpoke bool, in presence.Node, sub string) error {
	if fromSpoke && st.s.Default != nil {
		// Converted in Go: every field without omitempty is set, as in
		// a conversion webhook's JSON answer.
		st.s.Default(obj, presence.Marshaled)
	}
	if errs := checks(ctx, st.s, obj, old, update, fromSpoke, in); len(errs) > 0 {
		if sub == "status" {
			relativeToStatus(errs)
		}
		return apierrors.NewInvalid(st.groupKind(), obj.GetName(), errs)
	}
	if st.s.FinalizerWarnings {
		var prev []string
		if update {
			prev = old.GetFinalizers()
		}
		for _, w := range finalizerWarnings(obj.GetFinalizers(), prev) {
			warnings.Add(ctx, w)
		}
	}
	return nil
}

// relativeToStatus words a status update's schema errors as kube-apiserver
// does, which validates a custom resource's status subresource against the
// status schema alone: the field stays status.attempts, the message names
// it from status ("attempts in body should be ...").
func relativeToStatus(errs field.ErrorList) {
	for _, e := range errs {
		if strings.HasPrefix(e.Field, "status.") && strings.HasPrefix(e.Detail, e.Field+" in body ") {
			e.Detail = strings.TrimPrefix(e.Detail, "status.")
		}
	}
}

// standardFinalizers may be named without a domain.
var standardFinalizers = []string{"kubernetes", metav1.FinalizerOrphanDependents, metav1.FinalizerDeleteDependents}

// finalizerWarnings are kube-apiserver's warnings on a custom resource's
// finalizers added by a write (in fins, not in prev): a name without a "/"
// that is not a standard one, in sorted order. Names that are not
// qualified names failed validation already.
func finalizerWarnings(fins, prev []string) []string {
	var out []string
	p := field.NewPath("metadata", "finalizers").String()
	for _, f := range sets.List(sets.New(fins...).Delete(prev...)) {
		if strings.Contains(f, "/") || slices.Contains(standardFinalizers, f) {
			continue
		}
		if strings.Contains(f, ".") {
			out = append(out, fmt.Sprintf("%s: %q: prefer a domain-qualified finalizer name including a path (/) to avoid accidental conflicts with other finalizer writers", p, f))
		} else {
			out = append(out, fmt.Sprintf("%s: %q: prefer a domain-qualified finalizer name to avoid accidental conflicts with other finalizer writers", p, f))
		}
	}
	return out
}

// checks runs a strategy's checks on obj: its markers and hand-written
// hooks (Validate), or the hooks alone (hooksOnly), then its CEL rules
// (Rules; transition rules see old on an update) unless those errors block
// them, as kube-apiserver's. On an update of a kind that ratchets, the
// errors of values the update left unchanged are dropped, before the
// blocking check as kube ratchets inside its schema validator.
func checks[T resource.Object, L resource.ListObject](ctx context.Context, s *resource.Strategy[T, L], obj, old T, update, hooksOnly bool, in presence.Node) field.ErrorList {
	var errs field.ErrorList
	switch {
	case update && !hooksOnly && s.ValidateUpdate != nil:
		errs = s.ValidateUpdate(obj, old)
	case hooksOnly:
		if s.ValidateHooks != nil {
			errs = s.ValidateHooks(obj)
		}
	case s.Validate != nil:
		errs = s.Validate(obj, in)
	}
	if update && s.Ratchet {
		errs = ratchet(errs, old, obj)
	}
	if s.Rules != nil && !hooksOnly {
		if BlocksRules(errs) {
			return append(errs, RulesNotChecked())
		}
		var prev T
		if update {
			prev = old
		}
		ruleErrs := s.Rules(ctx, obj, prev)
		if update && s.Ratchet {
			ruleErrs = ratchet(ruleErrs, old, obj)
		}
		errs = append(errs, ruleErrs...)
	}
	return errs
}

// BlocksRules reports whether errs hold an error kube-apiserver does not
// run a custom resource's CEL rules past: a wrong type, a value out of its
// enum, a required field missing, a string or list too long. Rules written
// for a valid object would only fail on such a one with noise.
func BlocksRules(errs field.ErrorList) bool {
	for _, e := range errs {
		switch e.Type {
		case field.ErrorTypeNotSupported, field.ErrorTypeRequired, field.ErrorTypeTooLong, field.ErrorTypeTooMany, field.ErrorTypeTypeInvalid:
			return true
		}
	}
	return false
}

// RulesNotChecked is the error kube-apiserver adds in place of a custom
// resource.s CEL rules when BlocksRules.
func RulesNotChecked() *field.Error {
	return field.Invalid(nil, nil, "some validation rules were not checked because the object was invalid; correct the existing errors to complete validation")
}

// Create stores a new object. obj is not modified.
func (st *Store[T, L]) Create(ctx context.Context, in T, opts CreateOptions) (T, error) {
	var zero T
	obj := in
	if !opts.Owned {
		obj = st.copyObj(in)
	}
	if !st.s.Info.Namespaced {
		obj.SetNamespace("")
	}
	var none T
	sent, err := st.mutate(ctx, "CREATE", obj, none, opts.DryRun, "", opts.Presence)
	if err != nil {
		return zero, err
	}
	generated := obj.GetName() == "" && obj.GetGenerateName() != ""
	if generated {
		obj.SetName(generateName(obj.GetGenerateName()))
	}
	if err := st.validateMetaForWrite(obj.GetNamespace(), obj.GetName(), obj.GetGenerateName()); err != nil {
		return zero, err
	}
	obj.SetUID(uuid.NewUUID())
	obj.SetCreationTimestamp(metav1.NewTime(time.Now().UTC().Truncate(time.Second)))
	obj.SetDeletionTimestamp(nil)
	obj.SetDeletionGracePeriodSeconds(nil)
	if !st.s.Info.UntrackedGeneration {
		obj.SetGeneration(1)
	}
	obj.SetResourceVersion("")
	obj.SetSelfLink("")
	if st.s.ResetStatus != nil {
		st.s.ResetStatus(obj)
		sent = sent.Without("status")
	}
	if st.hooks.PrepareForCreate != nil {
		st.hooks.PrepareForCreate(obj)
	}
	// A request past its deadline (its client has had its 504) stops
	// here rather than finish work nobody waits for.
	if err := ctx.Err(); err != nil {
		return zero, st.etcdError(ctx, "create", obj.GetName(), err)
	}
	if err := st.validate(ctx, obj, none, false, opts.fromSpoke, sent, ""); err != nil {
		return zero, err
	}
	if err := ctx.Err(); err != nil {
		return zero, st.etcdError(ctx, "create", obj.GetName(), err)
	}
	if err := st.validateAdmission(ctx, "CREATE", obj, none, opts.DryRun, ""); err != nil {
		return zero, err
	}
	if st.hooks.Admit != nil {
		if err := st.hooks.Admit(ctx, obj, none); err != nil {
			return zero, err
		}
	}
	if opts.Admit != nil {
		if err := opts.Admit(ctx, obj, nil); err != nil {
			return zero, err
		}
	}
	if st.s.ResetStatus != nil && st.s.Default != nil {
		// kube-apiserver stores the object without status and defaults
		// it as it reads it back for the answer (Gateway API's
		// "Waiting for controller" conditions): default the dropped
		// status now, after validation and admission, which see none.
		in := sent
		if opts.fromSpoke {
			in = presence.Marshaled
		}
		st.s.Default(obj, in.Without("status"))
	}
	for attempt := 0; ; attempt++ {
		data, err := st.encode(obj)
		if err != nil {
			return zero, err
		}
		key := st.key(obj.GetNamespace(), obj.GetName())
		if opts.DryRun {
			start := time.Now()
			resp, err := st.b.client.Get(ctx, key, clientv3.WithCountOnly())
			st.observe("get", start)
			if err != nil {
				return zero, st.etcdError(ctx, "create", obj.GetName(), err)
			}
			if resp.Count > 0 {
				return zero, apierrors.NewAlreadyExists(st.s.Info.GroupResource(), obj.GetName())
			}
			return obj, nil
		}
		start := time.Now()
		resp, err := st.putIf(ctx, key, clientv3.Compare(clientv3.CreateRevision(key), "=", 0), data)
		st.observe("create", start)
		if err != nil {
			return zero, st.etcdError(ctx, "create", obj.GetName(), err)
		}
		if !resp.Succeeded {
			if generated && attempt < 8 {
				obj.SetName(generateName(obj.GetGenerateName()))
				continue
			}
			return zero, apierrors.NewAlreadyExists(st.s.Info.GroupResource(), obj.GetName())
		}
		rev := resp.Responses[0].GetResponsePut().Header.Revision
		obj.SetResourceVersion(strconv.FormatInt(rev, 10))
		wrote(ctx, obj, data, rev)
		return obj, nil
	}
}

// generateName is Kubernetes' SimpleNameGenerator.
func generateName(base string) string {
	const maxGeneratedNameLength = 63 - 5
	if len(base) > maxGeneratedNameLength {
		base = base[:maxGeneratedNameLength]
	}
	return base + rand.String(5)
}

func parseRV(rv string) (int64, error) {
	n, err := strconv.ParseInt(rv, 10, 64)
	if err != nil || n < 0 {
		return 0, apierrors.NewBadRequest(fmt.Sprintf("invalid resource version: %q", rv))
	}
	return n, nil
}

func tooLargeRV(minimum, current int64) error {
	err := apierrors.NewTimeoutError(fmt.Sprintf("Too large resource version: %d, current: %d", minimum, current), 1)
	err.ErrStatus.Details.Causes = []metav1.StatusCause{{
		Type:    metav1.CauseTypeResourceVersionTooLarge,
		Message: "Too large resource version",
	}}
	return err
}

// Get reads one object.
func (st *Store[T, L]) Get(ctx context.Context, namespace, name string, opts GetOptions) (T, error) {
	key, err := st.readKey(namespace, name)
	if err != nil {
		var zero T
		return zero, err
	}
	return st.reads.get(ctx, key, name, opts)
}

// current reads the object at key with a quorum read.
func (st *access[T, L]) current(ctx context.Context, op, key, name string) (T, []byte, int64, error) {
	var zero T
	start := time.Now()
	resp, err := st.b.client.Get(ctx, key)
	st.observe("get", start)
	if err != nil {
		return zero, nil, 0, st.etcdError(ctx, op, name, err)
	}
	if len(resp.Kvs) == 0 {
		return zero, nil, 0, apierrors.NewNotFound(st.s.Info.GroupResource(), name)
	}
	kv, stale, err := st.fromStorage(ctx, resp.Kvs[0])
	if err != nil {
		return zero, nil, 0, err
	}
	obj, err := st.decode(kv.Value, kv.ModRevision)
	if stale {
		// Written with an older key or provider: no stored bytes compare
		// equal, so even an unchanged update rewrites it with the first.
		return obj, nil, kv.ModRevision, err
	}
	return obj, kv.Value, kv.ModRevision, err
}

// GuaranteedUpdate reads the current object, calls tryUpdate with a copy
// and writes the result under the update rules, retrying when a concurrent
// writer got in between. The result's resourceVersion is a precondition
// (checkResourceVersionPrecondition): one other than the current one is a
// Conflict, and with opts.RequireResourceVersion (PUT) a missing one is
// Invalid.
func (st *Store[T, L]) GuaranteedUpdate(ctx context.Context, namespace, name string, subresource string, tryUpdate func(current T) (T, error), opts UpdateOptions) (T, error) {
	var zero T
	opts.Subresource = subresource
	if subresource != "" && subresource != "status" {
		return zero, apierrors.NewBadRequest(fmt.Sprintf("unsupported subresource %q", subresource))
	}
	if subresource == "status" && st.s.CopyStatus == nil {
		return zero, apierrors.NewNotFound(st.s.Info.GroupResource(), name)
	}
	key, err := st.readKey(namespace, name)
	if err != nil {
		return zero, err
	}
	guess := !opts.DryRun // a dry run writes nothing that would catch a stale guess
	for attempt := 0; ; attempt++ {
		cur, curData, curRev, cached := st.cachedCurrent(key, guess)
		guess = false
		if !cached {
			if cur, curData, curRev, err = st.current(ctx, "update", key, name); err != nil {
				return zero, err
			}
		}
		newObj, err := tryUpdate(st.copyObj(cur))
		if err == nil {
			err = checkResourceVersionPrecondition(st.s.Info, newObj, cur, opts.RequireResourceVersion)
		}
		if err != nil {
			if cached {
				continue // maybe stale: decide on etcd's object
			}
			return zero, err
		}
		out, raced, err := st.writeUpdate(ctx, key, cur, curData, curRev, newObj, opts)
		if cached && (raced || err != nil || any(out) == any(cur)) {
			// A lost compare-and-swap, an error or no change at all
			// may come from a stale guess: again, from etcd.
			attempt--
			continue
		}
		if raced && attempt < maxUpdateRetries {
			continue
		}
		return out, err
	}
}

// cachedCurrent is the reader's copy of the object at key (the watch
// cache's), the first guess of a write when guess is set (kube's
// cachedExistingObject): a current one saves the write its etcd read and
// decode; a stale one costs a failed compare-and-swap, after which the
// write reads etcd. Not for encrypted resources, whose rewrite on key
// rotation needs etcd's value.
func (st *Store[T, L]) cachedCurrent(key string, guess bool) (T, []byte, int64, bool) {
	if !guess || st.tx != nil {
		var zero T
		return zero, nil, 0, false
	}
	return st.reads.guess(key)
}

// writeUpdate applies the update rules to newObj against cur (stored at
// curRev as curData) and writes it with a compare-and-swap on curRev.
// raced reports a lost compare-and-swap (the error is then a Conflict).
func (st *Store[T, L]) writeUpdate(ctx context.Context, key string, cur T, curData []byte, curRev int64, newObj T, opts UpdateOptions) (T, bool, error) {
	var zero T
	name := cur.GetName()
	sent, err := st.mutate(ctx, "UPDATE", newObj, cur, opts.DryRun, opts.Subresource, opts.sent())
	if err != nil {
		return zero, false, err
	}
	var errs field.ErrorList
	if newObj.GetName() != cur.GetName() {
		errs = append(errs, field.Invalid(field.NewPath("metadata", "name"), newObj.GetName(), "field is immutable"))
	}
	if st.s.Info.Namespaced && newObj.GetNamespace() != cur.GetNamespace() {
		errs = append(errs, field.Invalid(field.NewPath("metadata", "namespace"), newObj.GetNamespace(), "field is immutable"))
	}
	if uid := newObj.GetUID(); uid != "" && uid != cur.GetUID() {
		errs = append(errs, field.Invalid(field.NewPath("metadata", "uid"), uid, "field is immutable"))
	}
	if len(errs) > 0 {
		return zero, false, apierrors.NewInvalid(st.groupKind(), name, errs)
	}
	if st.hooks.PrepareForUpdate != nil {
		st.hooks.PrepareForUpdate(ctx, newObj, cur, opts.Subresource)
	}

	if opts.Subresource == "status" {
		// Start from the old object and take only status (and managedFields,
		// which track the status writer).
		mf := newObj.GetManagedFields()
		out := st.copyObj(cur)
		st.s.CopyStatus(out, newObj)
		out.SetManagedFields(mf)
		newObj = out
	} else {
		if st.s.CopyStatus != nil {
			// The status is the current object's: what the request sent
			// for it is not asked about (kube validates the object the
			// strategy made, whose status the request did not set).
			st.s.CopyStatus(newObj, cur)
			sent = sent.Without("status")
		}
		if err := st.carrySystemFields(name, newObj, cur); err != nil {
			return zero, false, err
		}
	}
	newObj.SetResourceVersion(cur.GetResourceVersion())
	if err := ctx.Err(); err != nil {
		return zero, false, st.etcdError(ctx, "update", name, err)
	}
	if err := st.validate(ctx, newObj, cur, true, opts.fromSpoke, sent, opts.Subresource); err != nil {
		return zero, false, err
	}
	if err := st.validateAdmission(ctx, "UPDATE", newObj, cur, opts.DryRun, opts.Subresource); err != nil {
		return zero, false, err
	}
	if st.hooks.Admit != nil {
		if err := st.hooks.Admit(ctx, newObj, cur); err != nil {
			return zero, false, err
		}
	}
	if opts.Admit != nil {
		if err := opts.Admit(ctx, newObj, cur); err != nil {
			return zero, false, err
		}
	}
	data, err := st.encode(newObj)
	if err != nil {
		return zero, false, err
	}
	// The last finalizer removed from an object being deleted: delete it.
	if cur.GetDeletionTimestamp() != nil && !st.hasFinalizers(newObj) {
		if opts.DryRun {
			return newObj, false, nil
		}
		resp, err := st.deleteIf(ctx, key, curRev)
		if err != nil {
			return zero, false, st.etcdError(ctx, "update", name, err)
		}
		if !resp.Succeeded {
			return zero, true, st.conflict(name, OptimisticLockErrorMsg)
		}
		newObj.SetResourceVersion(strconv.FormatInt(resp.Header.Revision, 10))
		return newObj, false, nil
	}
	if bytes.Equal(data, curData) {
		// Nothing changed: no write, same resourceVersion.
		return cur, false, nil
	}
	if opts.DryRun {
		return newObj, false, nil
	}
	start := time.Now()
	resp, err := st.putIf(ctx, key, clientv3.Compare(clientv3.ModRevision(key), "=", curRev), data)
	st.observe("update", start)
	if err != nil {
		return zero, false, st.etcdError(ctx, "update", name, err)
	}
	if !resp.Succeeded {
		return zero, true, st.conflict(name, OptimisticLockErrorMsg)
	}
	newObj.SetResourceVersion(strconv.FormatInt(resp.Header.Revision, 10))
	wrote(ctx, newObj, data, resp.Header.Revision)
	return newObj, false, nil
}

// deletePreconditions checks a delete's preconditions against the object
// read, with kube-apiserver's messages: its rest.BeforeDelete checks them
// on the object it has just read, before its storage layer would, and
// names the kind rather than the resource.

// carrySystemFields gives a main-resource update the fields the server
// owns from the current object: namespace, uid, creation and deletion,
// and the generation, one more when the spec changed. A finalizer added
// to an object being deleted is refused.
func (st *Store[T, L]) carrySystemFields(name string, newObj, cur T) error {
	newObj.SetNamespace(cur.GetNamespace())
	newObj.SetUID(cur.GetUID())
	newObj.SetCreationTimestamp(cur.GetCreationTimestamp())
	newObj.SetDeletionTimestamp(cur.GetDeletionTimestamp())
	newObj.SetDeletionGracePeriodSeconds(cur.GetDeletionGracePeriodSeconds())
	newObj.SetSelfLink("")
	gen := cur.GetGeneration()
	if !st.s.Info.UntrackedGeneration && st.s.SpecChanged != nil && st.s.SpecChanged(cur, newObj) {
		gen++
	}
	newObj.SetGeneration(gen)
	if cur.GetDeletionTimestamp() != nil {
		old := sets.New(cur.GetFinalizers()...)
		var added []string
		for _, f := range newObj.GetFinalizers() {
			if !old.Has(f) {
				added = append(added, f)
			}
		}
		if len(added) > 0 {
			return apierrors.NewInvalid(st.groupKind(), name, field.ErrorList{field.Forbidden(field.NewPath("metadata", "finalizers"),
				fmt.Sprintf("no new finalizers can be added if the object is being deleted, found new finalizers %#v", added))})
		}
	}
	return nil
}

func (st *Store[T, L]) deletePreconditions(p *metav1.Preconditions, obj metav1.Object) error {
	if p == nil {
		return nil
	}
	gk := schema.GroupResource{Group: st.s.Info.Group, Resource: st.s.Info.Kind}
	if p.UID != nil && *p.UID != obj.GetUID() {
		return apierrors.NewConflict(gk, obj.GetName(), fmt.Errorf("the UID in the precondition (%s) does not match the UID in record (%s). The object might have been deleted and then recreated", *p.UID, obj.GetUID()))
	}
	if p.ResourceVersion != nil && *p.ResourceVersion != obj.GetResourceVersion() {
		return apierrors.NewConflict(gk, obj.GetName(), fmt.Errorf("the ResourceVersion in the precondition (%s) does not match the ResourceVersion in record (%s). The object might have been modified", *p.ResourceVersion, obj.GetResourceVersion()))
	}
	return nil
}

// Delete deletes an object and returns its last state with deleted=true,
// or, when it has finalizers (or the delete adds the "orphan" or
// "foregroundDeletion" finalizer: see gc.go), sets deletionTimestamp and
// returns it with deleted=false. A delete of an object already being
// deleted only updates those two finalizers as its options say.
func (st *Store[T, L]) Delete(ctx context.Context, namespace, name string, opts DeleteOptions) (T, bool, error) {
	var zero T
	if err := validateDeleteOptions(opts); err != nil {
		return zero, false, err
	}
	key, err := st.readKey(namespace, name)
	if err != nil {
		return zero, false, err
	}
	if opts.IgnoreStoreReadError && !opts.DryRun {
		if obj, deleted, err := st.deleteUnreadable(ctx, key, namespace, name); deleted || err != nil {
			return obj, deleted, err
		}
	}
	guess := !opts.DryRun // a dry run writes nothing that would catch a stale guess
	var refused error     // admission's refusal of the guess, at refusedRev
	var refusedRev int64
	for attempt := 0; ; attempt++ {
		cur, _, curRev, cached := st.cachedCurrent(key, guess)
		guess = false
		if !cached {
			if cur, _, curRev, err = st.current(ctx, "delete", key, name); err != nil {
				return zero, false, err
			}
		}
		obj, mark, changed := st.deletionUpdate(cur, opts)
		// Anything but a plain delete is decided on etcd's object. Admission
		// runs on the guess, as kube's conditionalDelete runs
		// validateDeletion on its cached object: the compare-and-delete on
		// its revision proves it current, and a refusal is checked on
		// etcd's object (below).
		if cached && (opts.Preconditions != nil || st.hooks.BeforeDelete != nil || st.inproc != nil || mark) {
			attempt--
			continue
		}
		// The watch cache's DELETED event carries cur as stored: a copy
		// taken before hooks and admission see cur saves it a decode
		// (cache_gone.go).
		var gone T
		handing := !mark && !opts.DryRun && st.reads.handsGone()
		if handing {
			gone = st.copyObj(cur)
		}
		if err := st.deletePreconditions(opts.Preconditions, cur); err != nil {
			return zero, false, err
		}
		if st.hooks.BeforeDelete != nil {
			if err := st.hooks.BeforeDelete(cur); err != nil {
				return zero, false, err
			}
		}
		if err := st.validateAdmission(ctx, "DELETE", zero, cur, opts.DryRun, ""); err != nil {
			return zero, false, err
		}
		if opts.Admit != nil {
			// A refusal of the guess stands when etcd's object is the same
			// revision (admission is not asked twice about one object).
			err := refused
			if err == nil || curRev != refusedRev {
				err = opts.Admit(ctx, nil, cur)
			}
			if err != nil {
				if cached {
					refused, refusedRev = err, curRev // maybe stale: decide on etcd's object
					attempt--
					continue
				}
				return zero, false, err
			}
		}
		if mark {
			if !changed {
				// Already being deleted as asked: nothing to write.
				return cur, false, nil
			}
			if opts.DryRun {
				return obj, false, nil
			}
			data, err := st.encode(obj)
			if err != nil {
				return zero, false, err
			}
			start := time.Now()
			resp, err := st.putIf(ctx, key, clientv3.Compare(clientv3.ModRevision(key), "=", curRev), data)
			st.observe("update", start)
			if err != nil {
				return zero, false, st.etcdError(ctx, "delete", name, err)
			}
			if !resp.Succeeded {
				if attempt < maxUpdateRetries {
					continue
				}
				return zero, false, st.conflict(name, OptimisticLockErrorMsg)
			}
			obj.SetResourceVersion(strconv.FormatInt(resp.Header.Revision, 10))
			return obj, false, nil
		}
		if opts.DryRun {
			return cur, true, nil
		}
		if handing {
			gone.GetObjectKind().SetGroupVersionKind(st.storageGVK()) // as decode sets it
			st.reads.gone(key, curRev, gone)
		}
		resp, err := st.deleteIf(ctx, key, curRev)
		if err != nil {
			return zero, false, st.etcdError(ctx, "delete", name, err)
		}
		if !resp.Succeeded {
			if cached {
				attempt--
			}
			if attempt < maxUpdateRetries {
				continue
			}
			return zero, false, st.conflict(name, OptimisticLockErrorMsg)
		}
		cur.SetResourceVersion(strconv.FormatInt(resp.Header.Revision, 10))
		return cur, true, nil
	}
}

// deletionUpdate decides a delete of cur as kube's registry store does
// (updateForGracefulDeletionAndFinalizers, markAsDeleting; the namespace
// registry for the first delete of a namespace): the garbage collection
// finalizers are set as the options say, and if any finalizer (metadata
// or spec) remains the object is marked (mark=true): obj is cur with the
// new finalizers and, on the first delete, deletionTimestamp, a zero
// deletionGracePeriodSeconds and the next generation. changed is false
// when obj is cur as it is. mark=false: delete it now.
func (st *Store[T, L]) deletionUpdate(cur T, opts DeleteOptions) (obj T, mark, changed bool) {
	var zero T
	var spec []string
	if st.hooks.SpecFinalizers != nil {
		spec = st.hooks.SpecFinalizers(cur)
	}
	var needsUpdate bool
	var fins []string
	switch {
	case st.isNamespaces() && cur.GetDeletionTimestamp() == nil && !st.b.opts.NoGarbageCollection:
		needsUpdate, fins = namespaceDeletionFinalizers(cur.GetFinalizers(), opts)
	case st.isNamespaces() && len(spec) > 0:
		// kube's namespace registry: once terminating, a delete changes
		// nothing until the spec finalizers are gone.
		return cur, true, false
	default:
		needsUpdate, fins = st.deletionFinalizers(cur, opts)
	}
	if len(fins) == 0 && len(spec) == 0 {
		return zero, false, false
	}
	obj = st.copyObj(cur)
	if needsUpdate {
		obj.SetFinalizers(fins)
		changed = true
	}
	if obj.GetDeletionTimestamp() == nil {
		now := metav1.NewTime(time.Now().UTC().Truncate(time.Second))
		var zeroGrace int64
		obj.SetDeletionTimestamp(&now)
		if !st.isNamespaces() {
			// kube's namespace registry sets the timestamp alone.
			obj.SetDeletionGracePeriodSeconds(&zeroGrace)
		}
		if obj.GetGeneration() > 0 {
			obj.SetGeneration(obj.GetGeneration() + 1)
		}
		if st.hooks.PrepareForDelete != nil {
			st.hooks.PrepareForDelete(obj)
		}
		changed = true
	}
	return obj, true, changed
}

// DeleteCollection lists the matching objects then deletes each (objects
// with finalizers are marked for deletion). It returns the list as it was
// read, as kube-apiserver's registry does: an object a finalizer keeps is
// shown as it was before the delete marked it.
func (st *Store[T, L]) DeleteCollection(ctx context.Context, namespace string, listOpts ListOptions, delOpts DeleteOptions) (L, error) {
	var zero L
	listOpts.Limit = 0
	listOpts.Continue = ""
	list, err := st.List(ctx, namespace, listOpts)
	if err != nil {
		return zero, err
	}
	for _, item := range st.s.GetItems(list) {
		_, _, err := st.Delete(ctx, item.GetNamespace(), item.GetName(), delOpts)
		if err != nil && !apierrors.IsNotFound(err) {
			return zero, err
		}
	}
	list.GetObjectKind().SetGroupVersionKind(st.listGVK())
	return list, nil
}

func (st *access[T, L]) listGVK() schema.GroupVersionKind {
	gvk := st.storageGVK()
	gvk.Kind = st.s.Info.ListKind
	if gvk.Kind == "" {
		gvk.Kind = st.s.Info.Kind + "List"
	}
	return gvk
}

// deleteUnreadable deletes the value at key when it cannot be read,
// unconditionally but for a concurrent write; deleted is false when the
// value reads fine (the caller deletes it as usual) or is gone.
func (st *Store[T, L]) deleteUnreadable(ctx context.Context, key, namespace, name string) (T, bool, error) {
	var zero T
	resp, err := st.b.client.Get(ctx, key)
	if err != nil {
		return zero, false, st.etcdError(ctx, "delete", name, err)
	}
	if len(resp.Kvs) == 0 {
		return zero, false, nil
	}
	kv := resp.Kvs[0]
	if plain, _, err := st.fromStorage(ctx, kv); err == nil {
		if _, err := st.decode(plain.Value, plain.ModRevision); err == nil {
			return zero, false, nil
		}
	}
	txn, err := st.deleteIf(ctx, key, kv.ModRevision)
	if err != nil {
		return zero, false, st.etcdError(ctx, "delete", name, err)
	}
	if !txn.Succeeded {
		return zero, false, st.conflict(name, OptimisticLockErrorMsg)
	}
	obj := st.s.New()
	obj.SetNamespace(namespace)
	obj.SetName(name)
	obj.SetResourceVersion(strconv.FormatInt(txn.Header.Revision, 10))
	return obj, true, nil
}
