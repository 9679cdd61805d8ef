package endpoints

import (
	"bytes"
	"encoding/json"
	"fmt"
	"k8s.io/apimachinery/pkg/util/duration"
	"net/http"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubeforge/kubeforge/runtime/resource"
)

var objectMetaDocs = metav1.ObjectMeta{}.SwaggerDoc()

// tableOptions reads includeObject (None, Metadata, Object; default
// Metadata); a bad value is a 400 as in kube-apiserver.
func tableOptions(req *http.Request) (metav1.IncludeObjectPolicy, error) {
	opts := metav1.TableOptions{IncludeObject: metav1.IncludeObjectPolicy(req.URL.Query().Get("includeObject"))}
	switch errs := metav1validation.ValidateTableOptions(&opts); len(errs) {
	case 0:
	case 1:
		return "", apierrors.NewBadRequest(fmt.Sprintf("Unable to convert to Table as requested: %v", errs[0].Error()))
	default:
		return "", apierrors.NewBadRequest(fmt.Sprintf("Unable to convert to Table as requested: %v", errs))
	}
	if opts.IncludeObject == "" {
		return metav1.IncludeMetadata, nil
	}
	return opts.IncludeObject, nil
}

// columnDefinitions: Name first, then the printer columns, or Name and
// Created At when the kind has none; only the printer columns when they
// include the name (Info.PrinterColumnsWithName).
func columnDefinitions(info *resource.Info) []metav1.TableColumnDefinition {
	var cols []metav1.TableColumnDefinition
	if !ownNameColumn(info) {
		cols = append(cols, metav1.TableColumnDefinition{Name: "Name", Type: "string", Format: "name", Description: objectMetaDocs["name"]})
	}
	if len(info.PrinterColumns) == 0 {
		return append(cols, metav1.TableColumnDefinition{Name: "Created At", Type: "date", Description: objectMetaDocs["creationTimestamp"]})
	}
	for _, c := range info.PrinterColumns {
		desc := c.Description
		if desc == "" && c.JSONPath != "" {
			// What kube-apiserver describes a CRD's column by when its
			// printcolumn marker gives no description.
			desc = "Custom resource definition column (in JSONPath format): " + c.JSONPath
		}
		cols = append(cols, metav1.TableColumnDefinition{
			Name:        c.Name,
			Type:        c.Type,
			Format:      c.Format,
			Description: desc,
			Priority:    c.Priority,
		})
	}
	return cols
}

// ownNameColumn reports whether the printer columns carry the name column
// themselves (so the runtime adds none).
func ownNameColumn(info *resource.Info) bool {
	return info.PrinterColumnsWithName && len(info.PrinterColumns) > 0
}

// tableRows converts objects to rows. Cells come from Strategy.PrinterCells
// (nil pointers become nil cells, times RFC 3339 strings), after the name
// unless the printer columns include it, or are Name and Created At.
func tableRows[T resource.Object, L resource.ListObject](s *resource.Strategy[T, L], objs []T, include metav1.IncludeObjectPolicy, metaAPIVersion string) ([]metav1.TableRow, error) {
	rows := make([]metav1.TableRow, 0, len(objs))
	ownName := ownNameColumn(s.Info)
	for _, obj := range objs {
		var cells []any
		if !ownName {
			cells = append(cells, obj.GetName())
		}
		if s.PrinterCells != nil && len(s.Info.PrinterColumns) > 0 {
			raw := s.PrinterCells(obj)
			for i := range s.Info.PrinterColumns {
				var v any
				if i < len(raw) {
					c, err := normalizeCell(raw[i])
					if err != nil {
						return nil, fmt.Errorf("printer column %q of %s %q: %w", s.Info.PrinterColumns[i].Name, s.Info.Kind, obj.GetName(), err)
					}
					v = c
				}
				if s.Info.PrinterColumns[i].Type == "date" {
					v = ageCell(v)
				}
				cells = append(cells, v)
			}
		} else {
			cells = append(cells, obj.GetCreationTimestamp().UTC().Format(time.RFC3339))
		}
		row := metav1.TableRow{Cells: cells}
		switch include {
		case metav1.IncludeObject:
			row.Object = runtime.RawExtension{Object: obj}
		case metav1.IncludeNone:
		default:
			row.Object = runtime.RawExtension{Object: partialObjectMetadata(obj, metaAPIVersion)}
		}
		rows = append(rows, row)
	}
	return rows, nil
}

// ageCell renders a date column the way kube-apiserver does for custom
// resources: the age of the timestamp ("5m"); a missing value stays a nil
// cell and an unparsable one is "<invalid>". kubectl prints cells as given.
func ageCell(v any) any {
	str, ok := v.(string)
	if !ok {
		return v
	}
	ts, err := time.Parse(time.RFC3339, str)
	if err != nil {
		return "<invalid>"
	}
	return duration.HumanDuration(time.Since(ts))
}

func partialObjectMetadata(obj metav1.Object, apiVersion string) *metav1.PartialObjectMetadata {
	p := meta.AsPartialObjectMetadata(obj)
	p.APIVersion = apiVersion
	p.Kind = "PartialObjectMetadata"
	return p
}

// normalizeCell gives a cell its JSON value: pointers are followed (nil is
// a nil cell), metav1.Time becomes its RFC 3339 string, quantities and
// int-or-strings their usual form, numbers stay numbers, and anything
// structured becomes its compact JSON text.
func normalizeCell(v any) (any, error) {
	switch x := v.(type) {
	case nil:
		return nil, nil
	case string, bool, int, int32, int64, float64:
		return x, nil
	case metav1.Time:
		if x.IsZero() {
			return nil, nil
		}
		return x.UTC().Format(time.RFC3339), nil
	case *metav1.Time:
		if x == nil || x.IsZero() {
			return nil, nil
		}
		return x.UTC().Format(time.RFC3339), nil
	}
	data, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encode cell: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var out any
	if err := dec.Decode(&out); err != nil {
		return nil, fmt.Errorf("decode cell: %w", err)
	}
	switch out.(type) {
	case nil, string, bool, json.Number:
		return out, nil
	default:
		return string(data), nil
	}
}
