// Package generated holds the generated code of every group-version
// (generated/<group>/<version>) and the install entry point
// (zz_generated.install.go). Everything here except this file is written by
// cmd/gen; the one go:generate directive below regenerates the whole tree.
package generated

//go:generate go run ../cmd/gen
