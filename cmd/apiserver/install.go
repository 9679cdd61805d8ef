package main

import "github.com/kubeforge/kubeforge/runtime/server"

// install registers the generated API groups.
//
// TEMPORARY: a no-op until generated/zz_generated.install.go exists; then
// this becomes `return generated.Install(s)` (package
// github.com/kubeforge/kubeforge/generated).
func install(s *server.Server) error {
	_ = s
	return nil
}
