package genall

import (
	"errors"
	"fmt"
	"sort"

	"github.com/kubeforge/kubeforge/generators/model"
)

// Run calls every generator in order over api and returns all files sorted
// by path. It runs every generator even when one fails and returns all
// errors joined (each wrapped with the generator's name). Two generators
// writing the same path is an error.
func Run(api *model.API, gens []Generator) ([]File, error) {
	var files []File
	var errs []error
	owner := map[string]string{}
	for _, g := range gens {
		out, err := g.Generate(api)
		if err != nil {
			errs = append(errs, fmt.Errorf("generator %s: %w", g.Name(), err))
			continue
		}
		for _, f := range out {
			if prev, dup := owner[f.Path]; dup {
				errs = append(errs, fmt.Errorf("generator %s: file %s is also written by generator %s", g.Name(), f.Path, prev))
				continue
			}
			owner[f.Path] = g.Name()
			files = append(files, f)
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	sort.Slice(files, func(i, j int) bool { return files[i].Path < files[j].Path })
	return files, nil
}

// Func adapts a function to the Generator interface.
type Func struct {
	GenName string
	Fn      func(api *model.API) ([]File, error)
}

// Name implements Generator.
func (f Func) Name() string { return f.GenName }

// Generate implements Generator.
func (f Func) Generate(api *model.API) ([]File, error) { return f.Fn(api) }
