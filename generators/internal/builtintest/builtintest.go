// Package builtintest names the test input shared by the builtinprinters
// and builtinfields tests: one types tree declaring built-in kinds and the
// one golden tree the generators make of it.
package builtintest

const (
	// Dir is testdata, relative to a package directory under generators/.
	Dir = "../internal/builtintest/testdata"
	// GoldenDir holds the generated output of Dir.
	GoldenDir = Dir + "/golden"
)
