package proptest

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

var (
	timeType     = reflect.TypeFor[metav1.Time]()
	quantityType = reflect.TypeFor[resource.Quantity]()
	objectType   = reflect.TypeFor[runtime.Object]()
)

// filler sets random values: every pointer, slice and map is nil, empty or
// filled, so nil-versus-empty is exercised too.
type filler struct {
	r *rand.Rand
	// objects makes a value for runtime.Object fields.
	objects func(f *filler, depth int) runtime.Object
}

const maxDepth = 8

func (f *filler) fill(v reflect.Value, depth int) {
	if depth > maxDepth {
		return
	}
	switch v.Type() {
	case timeType:
		v.Set(reflect.ValueOf(metav1.Unix(f.r.Int64N(4e9), 0)))
		return
	case quantityType:
		v.Set(reflect.ValueOf(*resource.NewQuantity(f.r.Int64N(1e6), resource.DecimalSI)))
		return
	case objectType:
		if f.objects != nil && f.r.IntN(3) > 0 {
			v.Set(reflect.ValueOf(f.objects(f, depth+1)))
		}
		return
	}
	switch v.Kind() {
	case reflect.Bool:
		v.SetBool(f.r.IntN(2) == 1)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(f.r.Int64N(100))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(f.r.Uint64N(100))
	case reflect.Float32, reflect.Float64:
		v.SetFloat(float64(f.r.IntN(1000)) / 8)
	case reflect.String:
		v.SetString(fmt.Sprintf("s%d", f.r.IntN(1000)))
	case reflect.Pointer:
		if f.r.IntN(5) == 0 {
			return
		}
		p := reflect.New(v.Type().Elem())
		f.fill(p.Elem(), depth+1)
		v.Set(p)
	case reflect.Slice:
		n := f.size()
		if n < 0 {
			return
		}
		s := reflect.MakeSlice(v.Type(), n, n)
		for i := range n {
			f.fill(s.Index(i), depth+1)
		}
		v.Set(s)
	case reflect.Map:
		n := f.size()
		if n < 0 {
			return
		}
		m := reflect.MakeMapWithSize(v.Type(), n)
		for range n {
			k := reflect.New(v.Type().Key()).Elem()
			f.fill(k, depth+1)
			e := reflect.New(v.Type().Elem()).Elem()
			f.fill(e, depth+1)
			m.SetMapIndex(k, e)
		}
		v.Set(m)
	case reflect.Array:
		for i := range v.Len() {
			f.fill(v.Index(i), depth+1)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				f.fill(v.Field(i), depth+1)
			}
		}
	}
}

// size is -1 for nil, else a length 0..3.
func (f *filler) size() int { return f.r.IntN(5) - 1 }

// snapshot is a deep copy by reflection, independent of generated code.
// Types with unexported fields are copied the way their packages document:
// metav1.Time is a value, resource.Quantity has DeepCopy.
func snapshot(t testing.TB, v reflect.Value) reflect.Value {
	out := reflect.New(v.Type()).Elem()
	copyValue(t, out, v)
	return out
}

func copyValue(t testing.TB, out, in reflect.Value) {
	switch in.Type() {
	case timeType:
		out.Set(in)
		return
	case quantityType:
		q := in.Interface().(resource.Quantity)
		out.Set(reflect.ValueOf(q.DeepCopy()))
		return
	}
	switch in.Kind() {
	case reflect.Pointer:
		if in.IsNil() {
			return
		}
		p := reflect.New(in.Type().Elem())
		copyValue(t, p.Elem(), in.Elem())
		out.Set(p)
	case reflect.Interface:
		if in.IsNil() {
			return
		}
		out.Set(snapshot(t, in.Elem()))
	case reflect.Slice:
		if in.IsNil() {
			return
		}
		s := reflect.MakeSlice(in.Type(), in.Len(), in.Len())
		for i := range in.Len() {
			copyValue(t, s.Index(i), in.Index(i))
		}
		out.Set(s)
	case reflect.Map:
		if in.IsNil() {
			return
		}
		m := reflect.MakeMapWithSize(in.Type(), in.Len())
		iter := in.MapRange()
		for iter.Next() {
			m.SetMapIndex(iter.Key(), snapshot(t, iter.Value()))
		}
		out.Set(m)
	case reflect.Array:
		for i := range in.Len() {
			copyValue(t, out.Index(i), in.Index(i))
		}
	case reflect.Struct:
		for i := range in.NumField() {
			if !in.Type().Field(i).IsExported() {
				t.Fatalf("snapshot: unexported field %s.%s", in.Type(), in.Type().Field(i).Name)
			}
			copyValue(t, out.Field(i), in.Field(i))
		}
	default:
		out.Set(in)
	}
}

// mutate changes every leaf reachable from v in place: through every
// pointer, slice element, map entry and interface. Whatever a copy shares
// with v changes with it. It reports how many leaves changed.
func mutate(t testing.TB, v reflect.Value) int {
	switch v.Type() {
	case timeType:
		t := v.Interface().(metav1.Time)
		v.Set(reflect.ValueOf(metav1.NewTime(t.Add(time.Hour))))
		return 1
	case quantityType:
		q := v.Interface().(resource.Quantity)
		q.Add(resource.MustParse("1"))
		v.Set(reflect.ValueOf(q))
		return 1
	}
	n := 0
	switch v.Kind() {
	case reflect.Bool:
		v.SetBool(!v.Bool())
		n++
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(v.Int() + 1)
		n++
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(v.Uint() + 1)
		n++
	case reflect.Float32, reflect.Float64:
		v.SetFloat(v.Float() + 1)
		n++
	case reflect.String:
		v.SetString(v.String() + "~")
		n++
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			e := v.Elem()
			if v.Kind() == reflect.Interface && e.Kind() != reflect.Pointer {
				t.Fatalf("mutate: interface holds non-pointer %s", e.Type())
			}
			if v.Kind() == reflect.Interface {
				e = e.Elem()
			}
			n += mutate(t, e)
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			n += mutate(t, v.Index(i))
		}
	case reflect.Map:
		iter := v.MapRange()
		type kv struct{ k, v reflect.Value }
		var entries []kv
		for iter.Next() {
			entries = append(entries, kv{iter.Key(), iter.Value()})
		}
		for _, e := range entries {
			// Map values are not addressable: mutate an addressable copy of
			// the value (which still points into shared memory), then store it.
			tmp := reflect.New(e.v.Type()).Elem()
			tmp.Set(e.v)
			n += mutate(t, tmp)
			v.SetMapIndex(e.k, tmp)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				n += mutate(t, v.Field(i))
			}
		}
	}
	return n
}
