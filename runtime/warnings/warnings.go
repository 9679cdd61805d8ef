// Package warnings carries the warnings of a request through its context,
// from code deep in the write path (in-process admission webhooks, called
// by the store) to the HTTP handler, which sends each as a Warning header
// as kube-apiserver does. It is kube's k8s.io/apiserver/pkg/warning
// without the dependency (runtime/endpoints never imports k8s.io/apiserver).
package warnings

import "context"

type key struct{}

// Recorder receives the warnings of one request.
type Recorder func(text string)

// WithRecorder returns ctx carrying rec.
func WithRecorder(ctx context.Context, rec Recorder) context.Context {
	return context.WithValue(ctx, key{}, rec)
}

// Add records text on ctx's recorder; without one it is dropped.
func Add(ctx context.Context, text string) {
	if rec, ok := ctx.Value(key{}).(Recorder); ok && rec != nil && text != "" {
		rec(text)
	}
}
