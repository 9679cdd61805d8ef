package fieldmanager

import (
	"fmt"
	"reflect"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// MaxCollectionItems bounds the items of every list and map of an object a
// write sends (finalizers, labels, a ConfigMap's data, a kind's lists),
// []byte values aside. Tracking managed fields inserts each item into a
// sorted structured-merge-diff set, so its cost grows with the square of
// the largest collection: 200,000 finalizers took 46 CPU-seconds (kube-
// apiserver pays the same, bounded only by etcd's 1.5 MiB). With at most
// 10,000 items a collection costs well under a second, and the cost of a
// whole request (3 MiB at most) grows linearly with its size.
const MaxCollectionItems = 10000

// MinBytesForCollectionCheck: a JSON document shorter than this cannot
// hold a collection over MaxCollectionItems (each item takes at least two
// bytes), so CheckCollectionSizes need not walk it.
const MinBytesForCollectionCheck = 2 * MaxCollectionItems

// CheckCollectionSizes returns a TooMany error for each list or map of obj
// (a typed object) with more than MaxCollectionItems items, by JSON path.
// It walks obj once, not descending into a collection it refuses.
func CheckCollectionSizes(obj any) field.ErrorList {
	w := &sizeWalker{}
	w.walk(reflect.ValueOf(obj))
	return w.errs
}

type sizeWalker struct {
	path []segment // the JSON path of the value being walked
	errs field.ErrorList
}

// segment is a field name, a list index (index >= 0) or a map key (key
// set); the path is only spelled out for an error.
type segment struct {
	name  string
	index int
	key   reflect.Value
}

func (w *sizeWalker) tooMany(n int) {
	var p *field.Path
	for _, s := range w.path {
		switch {
		case s.key.IsValid():
			p = p.Key(fmt.Sprint(s.key.Interface()))
		case s.index >= 0:
			p = p.Index(s.index)
		case p == nil:
			p = field.NewPath(s.name)
		default:
			p = p.Child(s.name)
		}
	}
	w.errs = append(w.errs, field.TooMany(p, n, MaxCollectionItems))
}

func (w *sizeWalker) walk(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			w.walk(v.Elem())
		}
	case reflect.Struct:
		w.walkStruct(v)
	case reflect.Slice, reflect.Array:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return // []byte is one value
		}
		if v.Len() > MaxCollectionItems && len(w.path) > 0 {
			w.tooMany(v.Len())
			return
		}
		if k := v.Type().Elem().Kind(); k == reflect.String || k >= reflect.Bool && k <= reflect.Float64 {
			return // scalar items hold no collection
		}
		for i := range v.Len() {
			w.path = append(w.path, segment{index: i})
			w.walk(v.Index(i))
			w.path = w.path[:len(w.path)-1]
		}
	case reflect.Map:
		if v.Len() > MaxCollectionItems && len(w.path) > 0 {
			w.tooMany(v.Len())
			return
		}
		it := v.MapRange()
		for it.Next() {
			if k := it.Value().Kind(); k == reflect.String || k >= reflect.Bool && k <= reflect.Float64 {
				continue // scalar values hold no collection
			}
			w.path = append(w.path, segment{index: -1, key: it.Key()})
			w.walk(it.Value())
			w.path = w.path[:len(w.path)-1]
		}
	}
}

// walkStruct walks the exported fields encoding/json writes, inlined
// embedded structs without a path segment of their own.
func (w *sizeWalker) walkStruct(v reflect.Value) {
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" || !f.IsExported() {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" || strings.Contains(","+opts+",", ",inline,") {
			w.walk(v.Field(i))
			continue
		}
		if name == "" {
			name = f.Name
		}
		w.path = append(w.path, segment{name: name, index: -1})
		w.walk(v.Field(i))
		w.path = w.path[:len(w.path)-1]
	}
}
