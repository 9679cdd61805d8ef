package main

import (
	"github.com/kubeforge/kubeforge/generated"
	"github.com/kubeforge/kubeforge/runtime/server"
)

// install registers every generated API group on s. It is the only place the
// hand-written main names generated code.
func install(s *server.Server) error {
	return generated.Install(s)
}
