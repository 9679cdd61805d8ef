package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	restful "github.com/emicklei/go-restful/v3"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeforge/kubeforge/runtime/endpoints"
	"github.com/kubeforge/kubeforge/runtime/namespaces"
	"github.com/kubeforge/kubeforge/runtime/openapi"
)

// maxFinalizeBody bounds a /finalize body: a Namespace, small.
const maxFinalizeBody = 1 << 20

// addNamespaceFinalize serves PUT /api/v1/namespaces/{name}/finalize on
// ws, kube-apiserver's subresource that writes a namespace's
// spec.finalizers and nothing else: its namespace controller's last step,
// and what operators use to let a namespace stuck Terminating go
// (kubectl replace --raw /api/v1/namespaces/<ns>/finalize -f ns.json).
// Authorization sees the verb update on namespaces/finalize.
func addNamespaceFinalize(ws *restful.WebService, lc *namespaces.Lifecycle) {
	// The OpenAPI documents describe it with the Namespace's own schema,
	// as its PUT route names it.
	schema := ""
	for _, r := range ws.Routes() {
		if r.Method == http.MethodPut && strings.HasSuffix(r.Path, "/namespaces/{name}") {
			schema, _ = r.Metadata[openapi.ResponseSchemaKey].(string)
		}
	}
	b := ws.PUT("/namespaces/{name}/finalize").To(func(req *restful.Request, resp *restful.Response) {
		ns, err := finalizeNamespace(req.Request, req.PathParameter("name"), lc)
		if err != nil {
			endpoints.WriteError(resp, req.Request, err)
			return
		}
		ns.APIVersion, ns.Kind = "v1", "Namespace"
		body, err := json.Marshal(ns)
		if err != nil {
			endpoints.WriteError(resp, req.Request, apierrors.NewInternalError(fmt.Errorf("encode namespace %s: %w", ns.Name, err)))
			return
		}
		resp.Header().Set("Content-Type", "application/json")
		resp.WriteHeader(http.StatusOK)
		_, _ = resp.Write(append(body, '\n'))
	}).Operation("replaceNamespaceFinalize").Doc("replace finalize of the specified Namespace").
		Param(ws.PathParameter("name", "name of the Namespace").DataType("string")).
		Produces(endpoints.Produces...)
	if schema != "" {
		b.Metadata(openapi.GroupVersionKindKey, metav1.GroupVersionKind{Version: "v1", Kind: "Namespace"}).
			Metadata(openapi.ActionKey, "put").
			Metadata(openapi.RequestSchemaKey, schema).
			Metadata(openapi.ResponseSchemaKey, schema)
	} else {
		b.Metadata(openapi.UndocumentedKey, true)
	}
	ws.Route(b)
}

// finalizeNamespace decodes the request's Namespace and writes its
// spec.finalizers to namespace name.
func finalizeNamespace(r *http.Request, name string, lc *namespaces.Lifecycle) (*corev1.Namespace, error) {
	dryRun, err := endpoints.UpdateDryRun(r.URL.Query())
	if err != nil {
		return nil, err
	}
	data, err := io.ReadAll(http.MaxBytesReader(nil, r.Body, maxFinalizeBody))
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		return nil, apierrors.NewRequestEntityTooLargeError(fmt.Sprintf("a finalize body is limited to %d bytes", maxFinalizeBody))
	case err != nil:
		return nil, apierrors.NewBadRequest(fmt.Sprintf("read the request body: %v", err))
	}
	var in corev1.Namespace
	if err := json.Unmarshal(data, &in); err != nil {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("error decoding the request body: %v", err))
	}
	if in.Kind != "" && in.Kind != "Namespace" || in.APIVersion != "" && in.APIVersion != "v1" {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("the object provided is a %s %s, not a v1 Namespace", in.APIVersion, in.Kind))
	}
	if in.Name != "" && in.Name != name {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("the name of the object (%s) does not match the name on the URL (%s)", in.Name, name))
	}
	return lc.Finalize(r.Context(), name, in.Spec.Finalizers, dryRun)
}
