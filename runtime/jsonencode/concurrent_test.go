package jsonencode_test

import (
	"bytes"
	"encoding/json"
	"reflect"
	"sync"
	"testing"

	"github.com/kubeforge/kubeforge/runtime/jsonencode"
)

// TestConcurrent: goroutines encoding the same objects while plans of
// types new to the process are built, as the watch cache's readers do;
// under -race (hack/test.sh) this checks the plan cache and the reuse of
// encoders.
func TestConcurrent(t *testing.T) {
	objs := benchObjects(t)
	types := []reflect.Type{
		reflect.TypeFor[struct{ A, B []map[string]*inner }](),
		reflect.TypeFor[struct {
			X map[valText]ptrMarshaler
			Y [2]any
		}](),
		reflect.TypeFor[map[string][]edge](),
	}
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for g := range 8 {
		wg.Go(func() {
			for i := range 200 {
				o := objs[(g+i)%len(objs)]
				got, err := jsonencode.Marshal(o.obj)
				if err != nil || string(got) != o.data {
					errs <- o.name + ": " + string(got)
					return
				}
				v := reflect.New(types[(g+i)%len(types)]).Interface()
				want, _ := json.Marshal(v)
				if got, _ := jsonencode.Marshal(v); !bytes.Equal(got, want) {
					errs <- string(got)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}
