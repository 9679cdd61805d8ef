// Package e2e drives a built cmd/apiserver with real clients: the client-go
// dynamic client and informers, a controller-runtime client over the
// generated scheme, raw HTTP for bad input, and (optionally) kubectl through
// the shared acceptance scenarios. It is a separate module so that the main
// module does not depend on client-go or controller-runtime.
package e2e
