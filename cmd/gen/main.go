// Command gen loads types/<group>/<version> once and runs every generator
// (see Generators in generators.go). `go generate ./...` runs it through the
// one directive in generated/doc.go.
//
//	gen              generate everything (writes only changed files)
//	gen -verify      exit 1 listing stale, missing or changed files
//	gen markers      print the marker reference (markdown)
//	gen -root DIR    module root (default: the nearest go.mod above the cwd)
package main

import "os"

func main() { os.Exit(Main(os.Args[1:], os.Stdout, os.Stderr)) }
