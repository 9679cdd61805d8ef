package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/kubeforge/kubeforge/generators/genall"
	"github.com/kubeforge/kubeforge/generators/markers"
	"github.com/kubeforge/kubeforge/generators/model"
)

// Main runs the command with args (without the program name) and returns
// the exit status: 0 success, 1 stale output in -verify mode or errors in
// the input, 2 usage errors.
func Main(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("gen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	root := fs.String("root", "", "module root (default: the nearest directory with go.mod at or above the working directory)")
	verify := fs.Bool("verify", false, "write nothing; exit 1 listing files that are stale, missing or would change")
	verbose := fs.Bool("v", false, "print timings and the files written")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: gen [-root DIR] [-verify] [-v]\n       gen markers    print the marker reference")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	switch fs.NArg() {
	case 0:
	case 1:
		if fs.Arg(0) == "markers" {
			if _, err := stdout.Write(markers.Builtin().Markdown()); err != nil {
				fmt.Fprintf(stderr, "gen: write markers: %v\n", err)
				return 1
			}
			return 0
		}
		fallthrough
	default:
		fmt.Fprintf(stderr, "gen: unknown arguments %q\n", fs.Args())
		fs.Usage()
		return 2
	}
	if *root == "" {
		wd, err := os.Getwd()
		if err != nil {
			fmt.Fprintf(stderr, "gen: %v\n", err)
			return 1
		}
		r, err := model.FindRoot(wd)
		if err != nil {
			fmt.Fprintf(stderr, "gen: %v\n", err)
			return 1
		}
		*root = r
	}
	t0 := time.Now()
	api, err := model.Load(*root, model.LoadOptions{})
	if err != nil {
		printErr(stderr, err)
		return 1
	}
	tLoad := time.Now()
	if n := len(api.Skipped); n > 0 {
		// One line, not one per marker: these are other projects' markers.
		fmt.Fprintf(stderr, "gen: left out %d marker value(s) of packages you do not own that kubeforge cannot interpret (first: %s)\n", n, api.Skipped[0])
	}
	files, err := genall.Run(api, Generators())
	if err != nil {
		printErr(stderr, err)
		return 1
	}
	t1 := time.Now()
	changed, err := genall.Write(*root, files, genall.WriteOptions{Verify: *verify})
	if err != nil {
		printErr(stderr, err)
		return 1
	}
	if *verify {
		if len(changed) > 0 {
			fmt.Fprintln(stderr, "gen: generated files are out of date:")
			for _, c := range changed {
				fmt.Fprintf(stderr, "  %s\n", c)
			}
			fmt.Fprintln(stderr, "run: go generate ./...")
			return 1
		}
		return 0
	}
	if *verbose {
		for _, c := range changed {
			fmt.Fprintf(stdout, "wrote %s\n", c)
		}
		fmt.Fprintf(stdout, "load %v, generate %v, write %v, %d files, %d changed\n", tLoad.Sub(t0).Round(time.Millisecond), t1.Sub(tLoad).Round(time.Millisecond), time.Since(t1).Round(time.Millisecond), len(files), len(changed))
	}
	return 0
}

// Generate loads the model under root and runs every generator, in memory.
func Generate(root string) ([]genall.File, error) {
	api, err := model.Load(root, model.LoadOptions{})
	if err != nil {
		return nil, err
	}
	return genall.Run(api, Generators())
}

// printErr prints one error per line; marker and model errors already carry
// file:line:col.
func printErr(w io.Writer, err error) {
	var ml markers.ErrorList
	if errors.As(err, &ml) {
		for _, e := range ml {
			fmt.Fprintf(w, "%s\n", e)
		}
		fmt.Fprintf(w, "gen: %d error(s)\n", len(ml))
		return
	}
	fmt.Fprintf(w, "gen: %v\n", err)
}
