package endpoints

import (
	"net/http"

	"github.com/kubeforge/kubeforge/runtime/warnings"
)

// withWarnings returns r whose context sends the warnings added to it
// (runtime/warnings: in-process admission webhooks, deep in the store) as
// Warning headers on w, each text once (a write retried on a stale cached
// object admits it twice), as kube-apiserver's recorder does. A warning
// after the body has started is dropped.
func withWarnings(w *recorder, r *http.Request) *http.Request {
	var seen map[string]bool
	return r.WithContext(warnings.WithRecorder(r.Context(), func(text string) {
		if w.wroteHeader || seen[text] {
			return
		}
		if seen == nil {
			seen = map[string]bool{}
		}
		seen[text] = true
		AddWarning(w, text)
	}))
}
