package jsonencode

// Which fields of a struct encoding/json writes, under which names and in
// which order, follows its documented rules (runtime/jsondecode/fields.go
// applies the same ones to decoding; here the options matter as well):
//
//   - exported fields, and embedded structs (exported or not, through a
//     pointer or not), whose fields are promoted unless the embedded field
//     has a JSON name of its own;
//   - `json:"-"` drops a field; a tag name that is not valid is replaced
//     by the Go name;
//   - embedded structs are explored breadth first, each type once, at the
//     shallowest depth it appears; a type embedded more than once at one
//     depth makes its own fields ambiguous there;
//   - among the fields of one name, the shallowest wins; at equal depth a
//     single tagged one wins over untagged ones; otherwise none is written;
//   - the survivors are written in field index order.

import (
	"reflect"
	"slices"
	"strings"
	"unicode"
)

// jsonField is one JSON name of a struct and the Go field it comes from.
type jsonField struct {
	name   string
	tagged bool  // the name came from a json tag
	index  []int // reflect field indexes from the struct, through embedded ones
	typ    reflect.Type
	// quoted: a ",string" option on a bool, number or string field (an
	// unnamed pointer to one included), written inside a JSON string.
	quoted    bool
	omitEmpty bool
	omitZero  bool
}

// typeFields returns the JSON fields of struct type t in field index order.
func typeFields(t reflect.Type) []jsonField {
	type embedded struct {
		typ   reflect.Type
		index []int
	}
	var found []jsonField
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
				f := jsonField{
					name: name, tagged: name != "", index: index, typ: sf.Type,
					quoted:    hasOption(opts, "string") && quotable(ft.Kind()),
					omitEmpty: hasOption(opts, "omitempty"),
					omitZero:  hasOption(opts, "omitzero"),
				}
				if !f.tagged {
					f.name = sf.Name
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
func dominant(found []jsonField) []jsonField {
	byName := map[string][]jsonField{}
	for _, f := range found {
		byName[f.name] = append(byName[f.name], f)
	}
	var out []jsonField
	for _, fs := range byName {
		depth := len(fs[0].index)
		for _, f := range fs {
			depth = min(depth, len(f.index))
		}
		var shallowest, tagged []jsonField
		for _, f := range fs {
			if len(f.index) == depth {
				shallowest = append(shallowest, f)
				if f.tagged {
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
	slices.SortFunc(out, func(a, b jsonField) int { return slices.Compare(a.index, b.index) })
	return out
}
