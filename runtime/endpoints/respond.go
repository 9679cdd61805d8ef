package endpoints

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeforge/kubeforge/runtime/compression"
	"github.com/kubeforge/kubeforge/runtime/jsonencode"
	"github.com/kubeforge/kubeforge/runtime/storage"
)

func (h *Handler[T, L]) setKind(obj T) {
	// Objects from the watch cache are shared and read concurrently: they
	// already carry this kind, and are only written when they do not.
	if obj.GetObjectKind().GroupVersionKind() != h.gvk {
		obj.GetObjectKind().SetGroupVersionKind(h.gvk)
	}
}

// items returns the list's items with kind and apiVersion set, writing
// them back so the encoded list carries them too.
func (h *Handler[T, L]) items(list L) []T {
	items := h.s.GetItems(list)
	for _, it := range items {
		h.setKind(it)
	}
	if items == nil {
		items = []T{}
	}
	h.s.SetItems(list, items)
	return items
}

// convertObject is what the negotiated format makes of one object.
func (h *Handler[T, L]) convertObject(r *http.Request, f outputFormat, obj T, withHeaders bool) (any, error) {
	h.setKind(obj)
	switch f.as {
	case asTable:
		include, err := tableOptions(r)
		if err != nil {
			return nil, err
		}
		rows, err := tableRows(h.s, []T{obj}, include, f.metaAPIVersion())
		if err != nil {
			return nil, err
		}
		t := &metav1.Table{
			TypeMeta: metav1.TypeMeta{Kind: "Table", APIVersion: f.metaAPIVersion()},
			ListMeta: metav1.ListMeta{ResourceVersion: obj.GetResourceVersion()},
			Rows:     rows,
		}
		if withHeaders {
			t.ColumnDefinitions = columnDefinitions(h.info)
		}
		return t, nil
	case asPartialObjectMetadata:
		return partialObjectMetadata(obj, f.metaAPIVersion()), nil
	case asPartialObjectMetadataList:
		return nil, notAcceptableMsg(fmt.Sprintf("you requested PartialObjectMetadataList, but the requested object is not a list (%s)", h.gvk.Kind))
	}
	return obj, nil
}

func (h *Handler[T, L]) respondObject(w http.ResponseWriter, r *http.Request, code int, f outputFormat, obj T) error {
	v, err := h.convertObject(r, f, obj, true)
	if err != nil {
		return err
	}
	writeEncoded(w, r, code, f, v)
	return nil
}

// askWritten asks the store, when the response to a write can be the
// bytes it stores (plain JSON in the storage version), to hand them back,
// so that the object is encoded once for etcd and the response.
func (h *Handler[T, L]) askWritten(ctx context.Context, f outputFormat) (context.Context, *storage.Written) {
	if h.json == nil || !f.plainJSON() {
		return ctx, nil
	}
	return storage.WithWritten(ctx)
}

// respondWritten is respondObject for the object a write returned: the
// stored bytes with its resourceVersion when written has them (the same
// bytes json.Marshal gives), else its encoding.
func (h *Handler[T, L]) respondWritten(w http.ResponseWriter, r *http.Request, code int, f outputFormat, obj T, written *storage.Written) error {
	if data, ok := written.JSON(obj); ok {
		writeJSON(w, r, code, data)
		return nil
	}
	return h.respondObject(w, r, code, f, obj)
}

func (h *Handler[T, L]) respondList(w http.ResponseWriter, r *http.Request, code int, f outputFormat, list L) error {
	list.GetObjectKind().SetGroupVersionKind(h.listGVK)
	if f.as == "" && !f.yaml && !f.pretty {
		// The common case, streamed: kind is set in place, no copy of the
		// items and no full-size body buffer.
		items := h.s.GetItems(list)
		for _, it := range items {
			h.setKind(it)
		}
		if handled, err := h.writeListStream(w, r, code, list, items); handled {
			return err
		}
	}
	items := h.items(list)
	var v any = list
	switch f.as {
	case asTable:
		include, err := tableOptions(r)
		if err != nil {
			return err
		}
		rows, err := tableRows(h.s, items, include, f.metaAPIVersion())
		if err != nil {
			return err
		}
		v = &metav1.Table{
			TypeMeta: metav1.TypeMeta{Kind: "Table", APIVersion: f.metaAPIVersion()},
			ListMeta: metav1.ListMeta{
				ResourceVersion:    list.GetResourceVersion(),
				Continue:           list.GetContinue(),
				RemainingItemCount: list.GetRemainingItemCount(),
			},
			ColumnDefinitions: columnDefinitions(h.info),
			Rows:              rows,
		}
	case asPartialObjectMetadataList:
		pl := &metav1.PartialObjectMetadataList{
			TypeMeta: metav1.TypeMeta{Kind: "PartialObjectMetadataList", APIVersion: f.metaAPIVersion()},
			ListMeta: metav1.ListMeta{
				ResourceVersion:    list.GetResourceVersion(),
				Continue:           list.GetContinue(),
				RemainingItemCount: list.GetRemainingItemCount(),
			},
			Items: make([]metav1.PartialObjectMetadata, 0, len(items)),
		}
		for _, it := range items {
			pl.Items = append(pl.Items, *partialObjectMetadata(it, f.metaAPIVersion()))
		}
		v = pl
	case asPartialObjectMetadata:
		return notAcceptableMsg(fmt.Sprintf("you requested PartialObjectMetadata, but the requested object is a list (%s)", h.listGVK.Kind))
	default:
		if len(items) == 0 {
			fixed, err := withEmptyItems(list)
			if err != nil {
				return err
			}
			v = fixed
		}
	}
	writeEncoded(w, r, code, f, v)
	return nil
}

// listJSON serves a plain JSON list through the store's JSONReader; handled
// is false, with nothing done, when the reader does not serve the options.
func (h *Handler[T, L]) listJSON(ctx context.Context, w http.ResponseWriter, r *http.Request, ns string, opts metainternalversion.ListOptions) (bool, error) {
	jl, ok, err := h.json.ListJSON(ctx, ns, toStorageList(opts))
	if !ok {
		return false, nil
	}
	if err != nil {
		return true, err
	}
	list := h.s.NewList()
	list.SetResourceVersion(jl.ResourceVersion)
	list.SetContinue(jl.Continue)
	list.SetRemainingItemCount(jl.RemainingItemCount)
	list.GetObjectKind().SetGroupVersionKind(h.listGVK)
	handled, err := h.writeListItems(w, r, http.StatusOK, list, func(dst []byte, _ int) ([]byte, bool, error) {
		return jl.Next(dst)
	})
	if handled {
		return true, err
	}
	return false, nil
}

// writeJSON writes data, JSON the typed path would have encoded, with code.
func writeJSON(w http.ResponseWriter, r *http.Request, code int, data []byte) {
	setContentType(w.Header(), headerJSON)
	// Two writes rather than an append, which copies data when it is full.
	compression.WriteBody(w, r, code, data, newline)
}

var newline = []byte{'\n'}

// withEmptyItems makes sure an empty list encodes "items": [] even when
// the generated SetItems leaves a nil slice.
func withEmptyItems(list any) (any, error) {
	data, err := jsonencode.Marshal(list)
	if err != nil {
		return nil, fmt.Errorf("encode list: %w", err)
	}
	if !bytes.Contains(data, []byte(`"items":null`)) && bytes.Contains(data, []byte(`"items":`)) {
		return list, nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("decode list: %w", err)
	}
	m["items"] = json.RawMessage("[]")
	return m, nil
}
