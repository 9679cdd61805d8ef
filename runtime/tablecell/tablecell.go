// Package tablecell evaluates a printer column's JSONPath as kube-apiserver's
// table convertor for custom resources does, with client-go's jsonpath, for
// the columns the generator cannot read with typed code: filters, wildcards
// and ranges (.status.conditions[?(@.type=="Ready")].status, the column
// kubebuilder projects add most).
package tablecell

import (
	"bytes"
	"encoding/json"
	"reflect"
	"sync"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/util/jsonpath"
)

// Column is one printer column. The zero value is not usable; the
// generated code declares one per such column.
type Column struct {
	Name     string
	JSONPath string
	Type     string // integer, number, string, boolean, date

	// A parsed JSONPath keeps state while it evaluates: each evaluation
	// takes one of its own.
	pool sync.Pool
}

// Parse checks path as kube-apiserver does when a CRD's column is built.
func Parse(name, path string) error {
	_, err := parse(name, path)
	return err
}

func parse(name, path string) (*jsonpath.JSONPath, error) {
	jp := jsonpath.New(name)
	if err := jp.Parse("{" + path + "}"); err != nil {
		return nil, err
	}
	jp.AllowMissingKeys(true)
	return jp, nil
}

// Cell is the column's cell for obj (a typed object, read through its
// unstructured form): the first result, printed for a string column, as
// its JSON value for the others, nil when there is none or it does not
// fit the column's type. A date column gets the timestamp's text, which
// the table turns into an age.
func (c *Column) Cell(obj any) any {
	jp, _ := c.pool.Get().(*jsonpath.JSONPath)
	if jp == nil {
		var err error
		if jp, err = parse(c.Name, c.JSONPath); err != nil {
			return nil
		}
	}
	defer c.pool.Put(jp)
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil
	}
	results, err := jp.FindResults(u)
	if err != nil || len(results) == 0 || len(results[0]) == 0 {
		return nil
	}
	value := results[0][0].Interface()
	if c.Type == "string" {
		var buf bytes.Buffer
		if err := jp.PrintResults(&buf, []reflect.Value{reflect.ValueOf(value)}); err != nil {
			return nil
		}
		return buf.String()
	}
	return jsonCell(c.Type, value)
}

// jsonCell is kube's cell of a JSON value for a column of type t.
func jsonCell(t string, v any) any {
	switch t {
	case "integer":
		switch x := v.(type) {
		case int64:
			return x
		case float64:
			return int64(x)
		case json.Number:
			if i, err := x.Int64(); err == nil {
				return i
			}
		}
	case "number":
		switch x := v.(type) {
		case int64:
			return float64(x)
		case float64:
			return x
		case json.Number:
			if f, err := x.Float64(); err == nil {
				return f
			}
		}
	case "boolean":
		if b, ok := v.(bool); ok {
			return b
		}
	case "date":
		if s, ok := v.(string); ok {
			return s
		}
	}
	return nil
}
