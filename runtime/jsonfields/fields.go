// Package jsonfields lists the JSON fields of a Go struct type as
// encoding/json sees them, for the fast JSON decoder (runtime/jsondecode)
// and encoder (runtime/jsonencode), which must both agree with it exactly.
//
// Which JSON names a struct has, which Go field each reads or fills, and
// in which order encoding/json writes them, follows encoding/json's
// documented rules (sigs.k8s.io/json's decoder has the same ones), quirks
// included:
//
//   - exported fields, and embedded structs (exported or not, through a
//     pointer or not), whose fields are promoted unless the embedded field
//     has a JSON name of its own;
//   - `json:"-"` drops a field; a tag name that is not valid (quotes,
//     backslashes, characters other than letters, digits and some
//     punctuation) is replaced by the Go name;
//   - embedded structs are explored breadth first, each type once, at the
//     shallowest depth it appears; a type embedded more than once at one
//     depth makes its own fields ambiguous there (not those of structs it
//     embeds in turn);
//   - among the fields of one name, the shallowest wins; at equal depth a
//     single tagged one wins over untagged ones; otherwise none does: the
//     name is neither decoded nor written;
//   - the survivors are written in field index order.
//
// runtime/jsondecode's fields_test.go checks the names against
// encoding/json's encoder and sigs.k8s.io/json's decoder for every
// shipped type; runtime/jsonencode's parity tests check the output.
package jsonfields

import (
	"reflect"
	"slices"
	"strings"
	"unicode"
)

// Field is one JSON name of a struct and the Go field it comes from.
type Field struct {
	Name   string
	Tagged bool  // the name came from a json tag
	Index  []int // reflect field indexes from the struct, through embedded ones
	Type   reflect.Type
	// Quoted: a ",string" option on a bool, number or string field (an
	// unnamed pointer to one included), whose value is inside a JSON
	// string.
	Quoted    bool
	OmitEmpty bool
	OmitZero  bool
}

// Of returns the JSON fields of struct type t in field index order.
func Of(t reflect.Type) []Field {
	type embedded struct {
		typ   reflect.Type
		index []int
	}
	var found []Field
	explored := map[reflect.Type]bool{}
	level := []embedded{{typ: t}}
	// times: how often each type of level is embedded at its depth.
	times := map[reflect.Type]int{}
	for len(level) > 0 {
		var next []embedded
		nextTimes := map[reflect.Type]int{}
		for _, e := range level {
			if explored[e.typ] {
				continue
			}
			explored[e.typ] = true
			for i := range e.typ.NumField() {
				sf := e.typ.Field(i)
				name, opts, keep := fieldName(sf)
				if !keep {
					continue
				}
				index := append(slices.Clip(e.index), i)
				ft := sf.Type
				if ft.Name() == "" && ft.Kind() == reflect.Pointer {
					ft = ft.Elem()
				}
				if name == "" && sf.Anonymous && ft.Kind() == reflect.Struct {
					if nextTimes[ft]++; nextTimes[ft] == 1 {
						next = append(next, embedded{typ: ft, index: index})
					}
					continue
				}
				f := Field{
					Name: name, Tagged: name != "", Index: index, Type: sf.Type,
					Quoted:    hasOption(opts, "string") && quotable(ft.Kind()),
					OmitEmpty: hasOption(opts, "omitempty"),
					OmitZero:  hasOption(opts, "omitzero"),
				}
				if !f.Tagged {
					f.Name = sf.Name
				}
				found = append(found, f)
				if times[e.typ] > 1 {
					found = append(found, f) // ambiguous at this depth
				}
			}
		}
		level, times = next, nextTimes
	}
	return dominant(found)
}

// fieldName reads a struct field's json tag: its valid name ("" when
// none), its options, and whether the field is written at all.
func fieldName(sf reflect.StructField) (name, opts string, keep bool) {
	if sf.Anonymous {
		t := sf.Type
		if t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if !sf.IsExported() && t.Kind() != reflect.Struct {
			return "", "", false
		}
	} else if !sf.IsExported() {
		return "", "", false
	}
	tag := sf.Tag.Get("json")
	if tag == "-" {
		return "", "", false
	}
	name, opts, _ = strings.Cut(tag, ",")
	if !validName(name) {
		name = ""
	}
	return name, opts, true
}

func hasOption(opts, want string) bool {
	for opt := range strings.SplitSeq(opts, ",") {
		if opt == want {
			return true
		}
	}
	return false
}

func quotable(k reflect.Kind) bool {
	switch k {
	case reflect.Bool, reflect.String, reflect.Float32, reflect.Float64,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return true
	}
	return false
}

// validName: letters, digits and the punctuation encoding/json allows in
// a tag name (not quotes, backslashes or commas).
func validName(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if !unicode.IsLetter(c) && !unicode.IsDigit(c) && !strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c) {
			return false
		}
	}
	return true
}

// dominant keeps, for each name, the field that wins over the others of
// that name, if one does, and returns them in field index order.
func dominant(found []Field) []Field {
	byName := map[string][]Field{}
	for _, f := range found {
		byName[f.Name] = append(byName[f.Name], f)
	}
	var out []Field
	for _, fs := range byName {
		depth := len(fs[0].Index)
		for _, f := range fs {
			depth = min(depth, len(f.Index))
		}
		var shallowest, tagged []Field
		for _, f := range fs {
			if len(f.Index) == depth {
				shallowest = append(shallowest, f)
				if f.Tagged {
					tagged = append(tagged, f)
				}
			}
		}
		switch {
		case len(shallowest) == 1:
			out = append(out, shallowest[0])
		case len(tagged) == 1:
			out = append(out, tagged[0])
		}
	}
	slices.SortFunc(out, func(a, b Field) int { return slices.Compare(a.Index, b.Index) })
	return out
}
