// Package endpoints holds the generic HTTP handlers every generated
// resource is served by: go-restful route functions over a typed
// storage.Store, with Kubernetes' content negotiation (JSON, YAML, Table,
// PartialObjectMetadata), strict decoding, patches, watches and Status
// errors. It never imports k8s.io/apiserver; the semantics follow
// kube-apiserver's endpoints/handlers.
//
// Routes: declare .Produces(endpoints.Produces...) on the WebService (the
// handler negotiates Table, YAML and watch itself), no Consumes on PATCH
// routes (or ConsumesPatch) so that unsupported patch types get a 415
// Status from the handler, and install ServiceErrorHandler on the container
// so go-restful's own 404/405/406/415 answers are Status bodies too.
// Namespaced kinds use {namespace} and {name}; List is also routed on the
// all-namespaces path (/<plural>), where it lists every namespace.
package endpoints

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"reflect"
	"runtime/debug"
	"strings"
	"sync/atomic"
	"time"

	"github.com/emicklei/go-restful/v3"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/validation/path"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kubeforge/kubeforge/runtime/admission"
	"github.com/kubeforge/kubeforge/runtime/fieldmanager"
	"github.com/kubeforge/kubeforge/runtime/jsonencode"
	"github.com/kubeforge/kubeforge/runtime/presence"
	"github.com/kubeforge/kubeforge/runtime/request"
	"github.com/kubeforge/kubeforge/runtime/resource"
	"github.com/kubeforge/kubeforge/runtime/storage"
)

// Options tune a Handler. The zero value is usable.
type Options struct {
	// Stop, when closed, ends every open watch cleanly (server shutdown).
	Stop <-chan struct{}
	// RequestTimeout bounds each non-watch request's work against the
	// store; 0 means 34 s (kube-apiserver's upper bound), negative none.
	// An expired request is a 504 Timeout Status.
	RequestTimeout time.Duration
	// MinRequestTimeout: a watch without timeoutSeconds lasts a random
	// duration between it and twice it (kube-apiserver's
	// --min-request-timeout); 0 means 30 min.
	MinRequestTimeout time.Duration
	// MaxRequestBodyBytes: a larger body is a 413; 0 means
	// DefaultMaxRequestBodyBytes (3 MiB).
	MaxRequestBodyBytes int64
	// Observe, when set, is called once per request after the handler
	// returns, with the verb (GET, LIST, WATCH, POST, PUT, PATCH, DELETE,
	// DELETECOLLECTION), the plural resource, the subresource ("" or
	// "status"), the HTTP code written and the duration.
	Observe func(verb, resource, subresource string, code int, d time.Duration)
	// Logger receives internal errors (500s) and recovered panics; nil
	// discards them.
	Logger *slog.Logger
	// FieldManagers gives the server-side apply field manager of each kind
	// (built from the schemas the server added); nil means a registry of
	// the handler's own, without schemas (every field atomic).
	FieldManagers *fieldmanager.Registry
	// Admit, when set, is called before every create (POST, and the
	// create of a server-side apply) and every single-object delete reaches
	// the store; an error rejects the request (see Attributes).
	Admit Admitter
	// Admission, when set, is the admission chain of every write (see
	// package admission): Mutate before the object is validated, Validate
	// (storage.AdmitFunc) once it is valid, before it is written.
	Admission admission.Interface
}

// Handler serves one resource. Its methods are go-restful route functions;
// routes use the path parameters {namespace} (namespaced kinds only) and
// {name}.
type Handler[T resource.Object, L resource.ListObject] struct {
	store   storage.Interface[T, L]
	s       *resource.Strategy[T, L]
	info    *resource.Info
	gvk     schema.GroupVersionKind
	listGVK schema.GroupVersionKind
	opts    Options
	fms     *fieldmanager.Registry
	// fmMain and fmStatus remember the field managers of the resource and
	// of its status subresource (see fieldManager).
	fmMain, fmStatus atomic.Pointer[fieldmanager.FieldManager]
	// json, when the store implements it in this handler's version, serves
	// plain JSON gets and lists from the stored bytes.
	json storage.JSONReader
}

// NewHandler returns the handler of the resource described by s, over store.
func NewHandler[T resource.Object, L resource.ListObject](store storage.Interface[T, L], s *resource.Strategy[T, L], opts Options) *Handler[T, L] {
	if opts.RequestTimeout == 0 {
		opts.RequestTimeout = 34 * time.Second
	}
	if opts.MinRequestTimeout <= 0 {
		opts.MinRequestTimeout = 30 * time.Minute
	}
	if opts.MaxRequestBodyBytes <= 0 {
		opts.MaxRequestBodyBytes = DefaultMaxRequestBodyBytes
	}
	if s.CustomResource != nil {
		jsonencode.RegisterCustomResource(*s.CustomResource)
	}
	gvk := s.Info.GroupVersionKind()
	listKind := s.Info.ListKind
	if listKind == "" {
		listKind = s.Info.Kind + "List"
	}
	fms := opts.FieldManagers
	if fms == nil {
		fms = fieldmanager.NewRegistry()
	}
	jr, _ := store.(storage.JSONReader)
	if jr != nil && jr.StorageGroupVersionKind() != gvk {
		jr = nil
	}
	return &Handler[T, L]{
		json:    jr,
		store:   store,
		s:       s,
		info:    s.Info,
		gvk:     gvk,
		listGVK: gvk.GroupVersion().WithKind(listKind),
		opts:    opts,
		fms:     fms,
	}
}

// recorder remembers the status code written, for metrics and for knowing
// whether an error can still be written as a Status.
type recorder struct {
	http.ResponseWriter
	code        int
	wroteHeader bool
}

func (r *recorder) WriteHeader(code int) {
	if r.wroteHeader {
		return
	}
	r.code, r.wroteHeader = code, true
	r.ResponseWriter.WriteHeader(code)
}

func (r *recorder) Write(b []byte) (int, error) {
	if !r.wroteHeader {
		r.WriteHeader(http.StatusOK)
	}
	return r.ResponseWriter.Write(b)
}

func (r *recorder) Flush() {
	if f, ok := r.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (r *recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// serve runs fn, writes the error it returns as a Status, turns a panic
// into a 500 (without its details), and reports the request to Observe.
func (h *Handler[T, L]) serve(verb, sub string, req *restful.Request, resp *restful.Response, fn func(w *recorder, r *http.Request) error) {
	start := time.Now()
	w := &recorder{ResponseWriter: resp}
	r := req.Request
	switch verb {
	case "POST", "PUT", "PATCH", "DELETE", "DELETECOLLECTION":
		r = withWarnings(w, r)
	}
	defer func() {
		if p := recover(); p != nil {
			if p == http.ErrAbortHandler {
				panic(p)
			}
			if h.opts.Logger != nil {
				h.opts.Logger.Error("panic serving request", "method", r.Method, "path", r.URL.Path, "resource", h.info.Plural,
					"panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			}
			if !w.wroteHeader {
				WriteError(w, r, apierrors.NewInternalError(errors.New("the server panicked while serving the request")))
			}
		}
		if h.opts.Observe != nil {
			code := w.code
			if !w.wroteHeader {
				code = http.StatusOK
			}
			h.opts.Observe(verb, h.info.Plural, sub, code, time.Since(start))
		}
	}()
	if err := fn(w, r); err != nil {
		h.fail(w, r, err)
	}
}

// fail writes err as a Status unless the response has already started.
func (h *Handler[T, L]) fail(w *recorder, r *http.Request, err error) {
	var apiStatus apierrors.APIStatus
	if !errors.As(err, &apiStatus) {
		switch {
		case errors.Is(err, context.DeadlineExceeded):
			err = apierrors.NewTimeoutError(fmt.Sprintf("request did not complete within requested timeout - %v", err), 0)
		default:
			h.log("internal error", r, err)
		}
	}
	if w.wroteHeader {
		return
	}
	WriteError(w, r, err)
}

func (h *Handler[T, L]) log(msg string, r *http.Request, err error) {
	if h.opts.Logger == nil {
		return
	}
	h.opts.Logger.Error(msg, "method", r.Method, "path", r.URL.Path, "resource", h.info.Plural, "err", err)
}

// invalid is the 422 of an object of h's kind named name. For a kind with
// CEL rules, an error that blocks them (storage.BlocksRules) comes with
// kube-apiserver's note that they were not run.
func (h *Handler[T, L]) invalid(name string, errs field.ErrorList) error {
	if h.s.Rules != nil && storage.BlocksRules(errs) {
		errs = append(errs, storage.RulesNotChecked())
	}
	return apierrors.NewInvalid(h.gvk.GroupKind(), name, errs)
}

// requestContext bounds a request's work by RequestTimeout. Behind the
// filter chain (a request.State in the context) with a deadline no later,
// the context is used as it is: that deadline is the timeout filter's,
// which cancels the context as soon as the handler returns, so a child
// context would change nothing but cost a context and its registration
// with the parent.
func (h *Handler[T, L]) requestContext(r *http.Request) (context.Context, context.CancelFunc) {
	ctx := r.Context()
	if d, ok := ctx.Deadline(); ok && request.StateFrom(ctx) != nil &&
		(h.opts.RequestTimeout < 0 || !d.After(time.Now().Add(h.opts.RequestTimeout))) {
		return ctx, func() {}
	}
	if h.opts.RequestTimeout < 0 {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, h.opts.RequestTimeout)
}

// names reads {namespace} and {name} from the path.
func (h *Handler[T, L]) names(req *restful.Request, needName bool) (ns, name string, err error) {
	if h.info.Namespaced {
		ns = req.PathParameter("namespace")
		if ns == "" {
			return "", "", apierrors.NewMethodNotSupported(h.info.GroupResource(), req.Request.Method)
		}
		if msgs := path.IsValidPathSegmentName(ns); len(msgs) > 0 {
			return "", "", apierrors.NewBadRequest(fmt.Sprintf("invalid namespace %q: %s", ns, msgs[0]))
		}
	}
	if needName {
		name = req.PathParameter("name")
		if name == "" {
			return "", "", apierrors.NewBadRequest("name is required")
		}
		if msgs := path.IsValidPathSegmentName(name); len(msgs) > 0 {
			return "", "", apierrors.NewBadRequest(fmt.Sprintf("invalid name %q: %s", name, msgs[0]))
		}
	}
	return ns, name, nil
}

// listNamespace is the namespace of a collection request: "" on a
// namespaced kind's all-namespaces route.
func (h *Handler[T, L]) listNamespace(req *restful.Request) (string, error) {
	if !h.info.Namespaced {
		return "", nil
	}
	ns := req.PathParameter("namespace")
	if ns != "" {
		if msgs := path.IsValidPathSegmentName(ns); len(msgs) > 0 {
			return "", apierrors.NewBadRequest(fmt.Sprintf("invalid namespace %q: %s", ns, msgs[0]))
		}
	}
	return ns, nil
}

// builtin reports whether the kind is one of Kubernetes' own (its Go type
// has protobuf support), which kube-apiserver decodes into its typed
// struct; a kind of yours is decoded as kube-apiserver decodes a custom
// resource.
func (h *Handler[T, L]) builtin() bool {
	var none T // a nil pointer has the type's methods: nothing is allocated
	_, ok := any(none).(protoUnmarshaler)
	return ok
}

// decodeObject reads a create or update body: JSON or YAML, strictly per
// directive, apiVersion/kind checked against the URL.
//
// in is the JSON the object was decoded from (the zero Node for
// protobuf, which only built-in kinds take, and whose defaults do not ask).
func (h *Handler[T, L]) decodeObject(w *recorder, r *http.Request, directive, sub string) (obj T, in presence.Node, err error) {
	var zero T
	body, err := readBody(r, h.opts.MaxRequestBodyBytes)
	if err != nil {
		return zero, in, err
	}
	if isProtobuf(r.Header.Get("Content-Type")) {
		obj = h.s.New()
		gvk, err := decodeProtobuf(body, obj, "request body")
		if err != nil {
			return zero, in, err
		}
		obj.GetObjectKind().SetGroupVersionKind(gvk)
		if err := checkTypeMeta(obj, h.gvk); err != nil {
			return zero, in, err
		}
		if err := h.checkCollections(obj, len(body)); err != nil {
			return zero, in, err
		}
		return obj, in, nil
	}
	data, yamlStrict, err := bodyToJSON(r.Header.Get("Content-Type"), body, directive)
	if err != nil {
		return zero, in, err
	}
	decode := func(data []byte) error {
		obj = h.s.New()
		return unmarshal(w, data, obj, directive, yamlStrict, "request body")
	}
	if h.builtin() {
		err = decode(data)
	} else if data, err = decodeIntegralFloats(data, decode); err != nil {
		if unknown, invalid := invalidTypes(h.gvk.GroupKind(), reflect.TypeFor[T]().Elem(), data, err, h.s.Rules != nil); invalid != nil {
			// Unknown fields first, as kube's decoder finds them: Strict's
			// 400, or Warn's warnings beside the 422.
			if err = handleStrict(w, append(yamlStrict, unknown...), directive); err == nil {
				err = invalid
			}
		}
	}
	if err != nil {
		return zero, in, h.cannotHandle(err)
	}
	if !h.builtin() {
		if err := requireTypeMeta(obj, h.gvk); err != nil {
			return zero, in, err
		}
		// Another kind of the right apiVersion fails a custom resource's
		// validation (422); another apiVersion is checkTypeMeta's 400.
		if got := obj.GetObjectKind().GroupVersionKind(); got.GroupVersion() == h.gvk.GroupVersion() {
			if err := typeMetaInvalid(got, h.gvk, obj.GetName()); err != nil {
				return zero, in, err
			}
		}
		if errs := schemaNulls(obj, data, nullScope(h.info.HasStatus(), sub)); len(errs) > 0 {
			return zero, in, h.invalid(obj.GetName(), errs)
		}
	}
	if err := checkTypeMeta(obj, h.gvk); err != nil {
		return zero, in, err
	}
	if err := h.checkCollections(obj, len(data)); err != nil {
		return zero, in, err
	}
	return obj, presence.JSON(data), nil
}

// cannotHandle words a body's 400 as kube-apiserver's decoder does:
// `Shipment in version "v1" cannot be handled as a Shipment: strict
// decoding error: unknown field "spec.x"`, and a built-in kind's value its
// Go type cannot hold the same way (your kinds' are 422s by then).
func (h *Handler[T, L]) cannotHandle(err error) error {
	var se *apierrors.StatusError
	if !errors.As(err, &se) || se.ErrStatus.Reason != metav1.StatusReasonBadRequest {
		return err
	}
	msg := se.ErrStatus.Message
	const decoding = "error decoding the request body: "
	switch {
	case strings.HasPrefix(msg, "strict decoding error: "):
	case h.builtin() && strings.HasPrefix(msg, decoding) && !strings.Contains(msg, "expected a JSON or YAML object"):
		msg = strings.TrimPrefix(msg, decoding)
	default:
		return err
	}
	return apierrors.NewBadRequest(fmt.Sprintf("%s in version %q cannot be handled as a %s: %s", h.gvk.Kind, h.gvk.Version, h.gvk.Kind, msg))
}

// matchNamespace makes the object's namespace the URL's (kube's
// EnsureObjectNamespaceMatchesRequestNamespace): set when empty, a 400
// when it differs, cleared for a cluster-scoped kind.
func (h *Handler[T, L]) matchNamespace(obj T, ns string) error {
	if h.info.Namespaced {
		switch obj.GetNamespace() {
		case ns:
		case "":
			obj.SetNamespace(ns)
		default:
			return apierrors.NewBadRequest("the namespace of the provided object does not match the namespace sent on the request")
		}
	} else {
		obj.SetNamespace("")
	}
	return nil
}

// placeObject makes the body's namespace agree with the URL's (kube's
// EnsureObjectNamespaceMatchesRequestNamespace) and its name a valid path
// segment, then applies the version's defaults.
func (h *Handler[T, L]) placeObject(obj T, in presence.Node, ns string) error {
	if err := h.matchNamespace(obj, ns); err != nil {
		return err
	}
	var errs field.ErrorList
	if name := obj.GetName(); name != "" {
		for _, msg := range path.IsValidPathSegmentName(name) {
			errs = append(errs, field.Invalid(field.NewPath("metadata", "name"), name, msg))
		}
	}
	if gn := obj.GetGenerateName(); gn != "" {
		for _, msg := range path.IsValidPathSegmentPrefix(gn) {
			errs = append(errs, field.Invalid(field.NewPath("metadata", "generateName"), gn, msg))
		}
	}
	if len(errs) > 0 {
		return apierrors.NewInvalid(h.gvk.GroupKind(), obj.GetName(), errs)
	}
	if h.s.Default != nil {
		h.s.Default(obj, in)
	}
	return nil
}

// object is the target of a request on one object: its namespace and
// name from the path, and the response's format from Accept.
func (h *Handler[T, L]) object(req *restful.Request, r *http.Request) (ns, name string, f outputFormat, err error) {
	if ns, name, err = h.names(req, true); err != nil {
		return "", "", f, err
	}
	f, err = negotiateOutput(r, false)
	return ns, name, f, err
}

func (h *Handler[T, L]) checkName(obj T, name string) error {
	if obj.GetName() != name {
		return apierrors.NewBadRequest(fmt.Sprintf("the name of the object (%s) does not match the name on the URL (%s)", obj.GetName(), name))
	}
	return nil
}

// Get serves GET .../{name} (and ?resourceVersion=).
func (h *Handler[T, L]) Get(req *restful.Request, resp *restful.Response) {
	h.get("", req, resp)
}

// GetStatus serves GET .../{name}/status.
func (h *Handler[T, L]) GetStatus(req *restful.Request, resp *restful.Response) {
	h.get("status", req, resp)
}

func (h *Handler[T, L]) get(sub string, req *restful.Request, resp *restful.Response) {
	h.serve("GET", sub, req, resp, func(w *recorder, r *http.Request) error {
		ns, name, f, err := h.object(req, r)
		if err != nil {
			return err
		}
		opts, err := parseGetOptions(r.URL.Query())
		if err != nil {
			return err
		}
		ctx, cancel := h.requestContext(r)
		defer cancel()
		if h.json != nil && f.plainJSON() {
			data, err := h.json.GetJSON(ctx, ns, name, opts)
			if err != nil {
				return err
			}
			writeJSON(w, r, http.StatusOK, data)
			return nil
		}
		obj, err := h.store.Get(ctx, ns, name, opts)
		if err != nil {
			return err
		}
		return h.respondObject(w, r, http.StatusOK, f, obj)
	})
}

// List serves GET on the collection; with ?watch=1 (or true) it serves a
// watch stream instead.
func (h *Handler[T, L]) List(req *restful.Request, resp *restful.Response) {
	verb := "LIST"
	if request.QueryBool(req.Request.URL.Query(), "watch") {
		verb = "WATCH"
	}
	h.serve(verb, "", req, resp, func(w *recorder, r *http.Request) error {
		ns, err := h.listNamespace(req)
		if err != nil {
			return err
		}
		watching := verb == "WATCH"
		f, err := negotiateOutput(r, watching)
		if err != nil {
			return err
		}
		opts, err := parseListOptions(r.URL.Query())
		if err != nil {
			return err
		}
		if watching {
			return h.serveWatch(w, r, ns, opts, f)
		}
		ctx, cancel := h.requestContext(r)
		defer cancel()
		if h.json != nil && f.plainJSON() {
			if handled, err := h.listJSON(ctx, w, r, ns, opts); handled {
				return err
			}
		}
		list, err := h.store.List(ctx, ns, toStorageList(opts))
		if err != nil {
			return err
		}
		return h.respondList(w, r, http.StatusOK, f, list)
	})
}

// Create serves POST on the collection: 201 with the stored object.
func (h *Handler[T, L]) Create(req *restful.Request, resp *restful.Response) {
	h.serve("POST", "", req, resp, func(w *recorder, r *http.Request) error {
		ns, _, err := h.names(req, false)
		if err != nil {
			return err
		}
		f, err := negotiateOutput(r, false)
		if err != nil {
			return err
		}
		opts, err := parseCreateOptions(r.URL.Query())
		if err != nil {
			return err
		}
		obj, in, err := h.decodeObject(w, r, opts.fieldValidation, "")
		if err != nil {
			return err
		}
		if err := h.placeObject(obj, in, ns); err != nil {
			return err
		}
		fm, err := h.fieldManager("")
		if err != nil {
			return err
		}
		obj = h.trackUpdate(fm, h.s.New(), obj, fieldmanager.ManagerOrUserAgent(opts.fieldManager, r.UserAgent()))
		ctx, cancel := h.requestContext(r)
		defer cancel()
		ctx = h.admissionContext(ctx, w)
		if err := h.admit(ctx, OperationCreate, obj.GetNamespace(), obj.GetName(), obj, opts.dryRun); err != nil {
			return err
		}
		var none T
		if obj, err = h.mutate(ctx, admission.Create, "", obj, none, opts, &in); err != nil {
			return err
		}
		ctx, written := h.askWritten(ctx, f)
		out, err := h.store.Create(ctx, obj, storage.CreateOptions{DryRun: opts.dryRun, Owned: true, Presence: in,
			Admit: h.admitFunc(admission.Create, "", obj.GetNamespace(), obj.GetName(), opts.options, opts.dryRun)})
		if err != nil {
			return err
		}
		return h.respondWritten(w, r, http.StatusCreated, f, out, written)
	})
}

// Update serves PUT .../{name}: 200 with the stored object.
func (h *Handler[T, L]) Update(req *restful.Request, resp *restful.Response) {
	h.update("", req, resp)
}

// UpdateStatus serves PUT .../{name}/status: only .status is taken.
func (h *Handler[T, L]) UpdateStatus(req *restful.Request, resp *restful.Response) {
	h.update("status", req, resp)
}

func (h *Handler[T, L]) update(sub string, req *restful.Request, resp *restful.Response) {
	h.serve("PUT", sub, req, resp, func(w *recorder, r *http.Request) error {
		ns, name, f, err := h.object(req, r)
		if err != nil {
			return err
		}
		opts, err := parseUpdateOptions(r.URL.Query())
		if err != nil {
			return err
		}
		obj, in, err := h.decodeObject(w, r, opts.fieldValidation, sub)
		if err != nil {
			return err
		}
		if err := h.checkName(obj, name); err != nil {
			return err
		}
		if err := h.placeObject(obj, in, ns); err != nil {
			return err
		}
		fm, err := h.fieldManager(sub)
		if err != nil {
			return err
		}
		manager := fieldmanager.ManagerOrUserAgent(opts.fieldManager, r.UserAgent())
		// The store checks the object's resourceVersion (required, and
		// the current one); the field manager needs the current object to
		// record what this write changed.
		ctx, cancel := h.requestContext(r)
		defer cancel()
		ctx = h.admissionContext(ctx, w)
		var sent presence.Node // in, or Marshaled once admission replaced the object
		tryUpdate := func(current T) (T, error) {
			sent = in
			return h.mutate(ctx, admission.Update, sub, h.trackUpdate(fm, current, obj.DeepCopyObject().(T), manager), current, opts, &sent)
		}
		ctx, written := h.askWritten(ctx, f)
		for attempt := 0; ; attempt++ {
			out, err := h.store.GuaranteedUpdate(ctx, ns, name, sub, tryUpdate,
				storage.UpdateOptions{DryRun: opts.dryRun, Subresource: sub, RequireResourceVersion: !h.info.UnconditionalUpdate, Presence: &sent,
					Admit: h.admitFunc(admission.Update, sub, ns, name, opts.options, opts.dryRun)})
			if err == nil {
				return h.respondWritten(w, r, http.StatusOK, f, out, written)
			}
			if !apierrors.IsNotFound(err) || sub != "" || !h.info.CreateOnUpdate || attempt > 0 {
				return err
			}
			out, err = h.createOnUpdate(ctx, fm, obj.DeepCopyObject().(T), in, manager, opts)
			if apierrors.IsAlreadyExists(err) {
				continue // created meanwhile: update it
			}
			if err != nil {
				return err
			}
			return h.respondWritten(w, r, http.StatusCreated, f, out, written)
		}
	})
}

// createOnUpdate creates obj, the body of a PUT of a missing object of a
// kind whose kube-apiserver strategy creates on update
// (resource.Info.CreateOnUpdate): its managedFields as an update over
// nothing, admitted as a create with CreateOptions (kube's
// updateToCreateOptions), whatever resourceVersion it carries.
func (h *Handler[T, L]) createOnUpdate(ctx context.Context, fm *fieldmanager.FieldManager, obj T, in presence.Node, manager string, opts writeOptions) (T, error) {
	var zero T
	obj.SetResourceVersion("")
	obj = h.trackUpdate(fm, h.s.New(), obj, manager)
	ns, name := obj.GetNamespace(), obj.GetName()
	createOpts := asCreate(opts)
	if err := h.admit(ctx, OperationCreate, ns, name, obj, opts.dryRun); err != nil {
		return zero, err
	}
	obj, err := h.mutate(ctx, admission.Create, "", obj, zero, createOpts, &in)
	if err != nil {
		return zero, err
	}
	return h.store.Create(ctx, obj, storage.CreateOptions{DryRun: opts.dryRun, Owned: true, Presence: in,
		Admit: h.admitFunc(admission.Create, "", ns, name, createOpts.options, opts.dryRun)})
}

// Delete serves DELETE .../{name}. DeleteOptions come from a JSON or YAML
// body or, without a body, from the query. 200 with the object while
// finalizers hold it, else a Success Status (as for custom resources).
func (h *Handler[T, L]) Delete(req *restful.Request, resp *restful.Response) {
	h.serve("DELETE", "", req, resp, func(w *recorder, r *http.Request) error {
		ns, name, f, err := h.object(req, r)
		if err != nil {
			return err
		}
		opts, err := h.deleteOptions(r)
		if err != nil {
			return err
		}
		ctx, cancel := h.requestContext(r)
		defer cancel()
		ctx = h.admissionContext(ctx, w)
		opts.Admit = h.admitFunc(admission.Delete, "", ns, name, opts.options, opts.DryRun)
		if h.opts.Admit != nil {
			a := Attributes{Operation: OperationDelete, Info: h.info, Namespace: ns, Name: name, DryRun: opts.DryRun, IgnoreStoreReadError: opts.IgnoreStoreReadError}
			if err := h.opts.Admit(ctx, a); err != nil {
				return err
			}
		}
		obj, deleted, err := h.store.Delete(ctx, ns, name, opts.DeleteOptions)
		if err != nil {
			return err
		}
		if deleted {
			st := &metav1.Status{
				TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
				Status:   metav1.StatusSuccess,
				Details: &metav1.StatusDetails{
					Name:  name,
					Group: h.info.Group,
					Kind:  h.info.Plural,
					UID:   obj.GetUID(),
				},
			}
			writeEncoded(w, r, http.StatusOK, outputFormat{yaml: f.yaml, pretty: f.pretty}, st)
			return nil
		}
		// kube-apiserver: 202 when a cascading delete asked with
		// orphanDependents=false leaves the object for the collector.
		if opts.OrphanDependents != nil && !*opts.OrphanDependents {
			return h.respondObject(w, r, http.StatusAccepted, f, obj)
		}
		return h.respondObject(w, r, http.StatusOK, f, obj)
	})
}

// DeleteCollection serves DELETE on the collection with list options in
// the query: 200 with the list of deleted objects.
func (h *Handler[T, L]) DeleteCollection(req *restful.Request, resp *restful.Response) {
	h.serve("DELETECOLLECTION", "", req, resp, func(w *recorder, r *http.Request) error {
		ns, err := h.listNamespace(req)
		if err != nil {
			return err
		}
		f, err := negotiateOutput(r, false)
		if err != nil {
			return err
		}
		q := r.URL.Query()
		q.Del("watch")
		q.Del("sendInitialEvents")
		listOpts, err := parseListOptions(q)
		if err != nil {
			return err
		}
		delOpts, err := h.deleteOptions(r)
		if err != nil {
			return err
		}
		ctx, cancel := h.requestContext(r)
		defer cancel()
		ctx = h.admissionContext(ctx, w)
		delOpts.Admit = h.admitFunc(admission.Delete, "", ns, "", delOpts.options, delOpts.DryRun)
		list, err := h.store.DeleteCollection(ctx, ns, toStorageList(listOpts), delOpts.DeleteOptions)
		if err != nil {
			return err
		}
		return h.respondList(w, r, http.StatusOK, f, list)
	})
}

// deleteRequest is a delete's options for the store and, as sent, for
// admission.
type deleteRequest struct {
	storage.DeleteOptions
	options *metav1.DeleteOptions
}

func (h *Handler[T, L]) deleteOptions(r *http.Request) (deleteRequest, error) {
	var o metav1.DeleteOptions
	var body []byte
	if request.HasBody(r) { // most deletes send none: nothing to read
		var err error
		if body, err = readBody(r, h.opts.MaxRequestBodyBytes); err != nil {
			return deleteRequest{}, err
		}
	}
	if len(body) > 0 && isProtobuf(r.Header.Get("Content-Type")) {
		gvk, err := decodeProtobuf(body, &o, "delete options")
		if err != nil {
			return deleteRequest{}, err
		}
		if gvk.Kind != "" && gvk.Kind != "DeleteOptions" {
			return deleteRequest{}, apierrors.NewBadRequest("decoded object cannot be converted to DeleteOptions")
		}
	} else if len(body) > 0 {
		data, _, err := bodyToJSON(r.Header.Get("Content-Type"), body, metav1.FieldValidationIgnore)
		if err != nil {
			return deleteRequest{}, err
		}
		if err := unmarshal(nil, data, &o, metav1.FieldValidationIgnore, nil, "delete options"); err != nil {
			return deleteRequest{}, err
		}
		if o.Kind != "" && o.Kind != "DeleteOptions" {
			return deleteRequest{}, apierrors.NewBadRequest("decoded object cannot be converted to DeleteOptions")
		}
	} else if r.URL.RawQuery != "" {
		if err := decodeParams(r.URL.Query(), &o); err != nil {
			return deleteRequest{}, err
		}
	}
	// Options from neither a body nor a query (most deletes) are the zero
	// options, which are valid: their validation only allocated paths.
	if len(body) > 0 || r.URL.RawQuery != "" {
		if errs := metav1validation.ValidateDeleteOptions(&o); len(errs) > 0 {
			return deleteRequest{}, invalidOptions("DeleteOptions", errs)
		}
	}
	o.TypeMeta = metav1.TypeMeta{Kind: "DeleteOptions", APIVersion: "meta.k8s.io/v1"}
	return deleteRequest{options: &o, DeleteOptions: storage.DeleteOptions{
		DryRun:               len(o.DryRun) > 0,
		Preconditions:        o.Preconditions,
		PropagationPolicy:    o.PropagationPolicy,
		OrphanDependents:     o.OrphanDependents, //nolint:staticcheck // deprecated, still part of the API
		IgnoreStoreReadError: o.IgnoreStoreReadErrorWithClusterBreakingPotential != nil && *o.IgnoreStoreReadErrorWithClusterBreakingPotential,
	}}, nil
}
