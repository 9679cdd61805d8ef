package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"

	"github.com/kubeforge/kubeforge/runtime/pki"
	"github.com/kubeforge/kubeforge/runtime/server/options"
)

// runCerts is "apiserver certs": it writes the serving certificate an
// aggregated deployment needs (deploy/kustomization.yaml reads the
// folder): a CA (ca.crt, ca.key) and, signed by it, tls.crt and tls.key
// for the Service's DNS names, which the main cluster's aggregator
// verifies with the APIServices' caBundle (the CA). Run again, it keeps
// what is still valid.
func runCerts(args []string, stderr io.Writer) int {
	fs := flag.NewFlagSet("apiserver certs", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("dir", "deploy/certs", "folder to write ca.crt, ca.key, tls.crt and tls.key into")
	service := fs.String("service", "", "name of the apiserver's Service (deploy/base/apiserver.yaml), required")
	namespace := fs.String("namespace", "", "namespace of the Service, required")
	var hosts options.StringList
	fs.Var(&hosts, "host", "more DNS names or IP addresses the certificate covers (repeatable)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if *service == "" || *namespace == "" {
		fmt.Fprintln(stderr, "apiserver certs: --service and --namespace are required (the names in deploy/base/apiserver.yaml)")
		return 2
	}
	ca, err := pki.EnsureCA(*dir)
	if err != nil {
		fmt.Fprintf(stderr, "apiserver certs: %v\n", err)
		return 1
	}
	svc := *service + "." + *namespace
	names := append([]string{*service, svc, svc + ".svc", svc + ".svc.cluster.local"}, hosts...)
	if _, err := pki.Serving(*dir, "tls", ca, names); err != nil {
		fmt.Fprintf(stderr, "apiserver certs: %v\n", err)
		return 1
	}
	fmt.Fprintf(stderr, "apiserver certs: wrote %s and %s (for %s.svc)\n", filepath.Join(*dir, "ca.crt"), filepath.Join(*dir, "tls.crt"), svc)
	return 0
}
