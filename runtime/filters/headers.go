package filters

import (
	"net/http"

	"k8s.io/apimachinery/pkg/util/uuid"
)

// WithResponseHeaders sets on every response, before any filter or
// handler can answer, the headers kube-apiserver's chain sets
// (WithCacheControl, WithAuditInit):
//
//   - Cache-Control "no-cache, private", so that no proxy or browser keeps
//     an answer that may hold a Secret; the handlers that serve cacheable
//     documents (discovery, OpenAPI) set their own;
//   - Audit-Id, the request's own when a client or front proxy sent one,
//     else a new UUID: a client can quote it, and the audit log records
//     the same ID.
func WithResponseHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		h := w.Header()
		if _, ok := h["Cache-Control"]; !ok {
			h["Cache-Control"] = []string{"no-cache, private"}
		}
		id := req.Header.Get(AuditIDHeader)
		if id == "" {
			id = string(uuid.NewUUID())
		}
		h[AuditIDHeader] = []string{id}
		next.ServeHTTP(w, req)
	})
}

// auditID is the audit ID WithResponseHeaders gave the request's
// response, or the request's own, or a new one (without that filter in
// front: tests).
func auditID(w http.ResponseWriter, req *http.Request) string {
	if id := w.Header().Get(AuditIDHeader); id != "" {
		return id
	}
	id := req.Header.Get(AuditIDHeader)
	if id == "" {
		id = string(uuid.NewUUID())
	}
	w.Header().Set(AuditIDHeader, id)
	return id
}
