package storage

import (
	"encoding/binary"
	"slices"
	"strings"
	"unique"
	"unsafe"
)

// attrs is a set of string pairs (an object's labels, or its selectable
// fields) kept by a cache entry as one interned string: the pairs in key
// order, each string as its uvarint length and its bytes. Entries with
// the same set (the objects of one app, of one phase) share one copy, and
// an entry holds 8 bytes instead of a map of its own (about 300 bytes
// with a handful of pairs, plus its strings). Reads scan the string,
// which for a few pairs costs about what a map lookup does.
type attrs struct {
	// h is the zero Handle for no set (a nil map), else the encoding.
	h unique.Handle[string]
}

// makeAttrs interns m; a nil m is no set, an empty one an empty set.
func makeAttrs(m map[string]string) attrs {
	if m == nil {
		return attrs{}
	}
	return attrs{h: internPairs(m, nil)}
}

// internPairs interns the encoding of m without the keys skip names.
func internPairs(m map[string]string, skip func(k string) bool) unique.Handle[string] {
	var keysBuf [16]string
	keys := keysBuf[:0]
	size := 0
	for k, v := range m {
		if skip != nil && skip(k) {
			continue
		}
		keys = append(keys, k)
		size += len(k) + len(v) + 2*binary.MaxVarintLen32
	}
	slices.Sort(keys)
	buf := make([]byte, 0, size)
	for _, k := range keys {
		buf = appendString(appendString(buf, k), m[k])
	}
	if len(buf) == 0 {
		return unique.Make("")
	}
	// unique.Make copies a string it keeps: buf need not outlive it.
	return unique.Make(unsafe.String(&buf[0], len(buf)))
}

func appendString(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

// valid reports whether a is a set (possibly empty), not none.
func (a attrs) valid() bool { return a.h != unique.Handle[string]{} }

func (a attrs) encoded() string {
	if !a.valid() {
		return ""
	}
	return a.h.Value()
}

// each calls f on every pair in key order until f returns false.
func (a attrs) each(f func(k, v string) bool) {
	s := a.encoded()
	for len(s) > 0 {
		k, rest := nextString(s)
		v, rest := nextString(rest)
		if !f(k, v) {
			return
		}
		s = rest
	}
}

// nextString reads one length-prefixed string off s.
func nextString(s string) (string, string) {
	n, w := uvarintString(s)
	return s[w : w+int(n)], s[w+int(n):]
}

func uvarintString(s string) (uint64, int) {
	var x uint64
	var shift uint
	for i := 0; i < len(s); i++ {
		b := s[i]
		if b < 0x80 {
			return x | uint64(b)<<shift, i + 1
		}
		x |= uint64(b&0x7f) << shift
		shift += 7
	}
	return x, len(s)
}

// Lookup implements labels.Labels.
func (a attrs) Lookup(key string) (value string, ok bool) {
	a.each(func(k, v string) bool {
		if k == key {
			value, ok = v, true
			return false
		}
		return k < key // sorted: past it, it is not there
	})
	return value, ok
}

// Has implements labels.Labels and fields.Fields.
func (a attrs) Has(key string) bool {
	_, ok := a.Lookup(key)
	return ok
}

// Get implements labels.Labels and fields.Fields.
func (a attrs) Get(key string) string {
	v, _ := a.Lookup(key)
	return v
}

// len is the number of pairs.
func (a attrs) len() int {
	n := 0
	a.each(func(string, string) bool { n++; return true })
	return n
}

// Field names read from an entry's key rather than kept in its fields.
const (
	fieldName      = "metadata.name"
	fieldNamespace = "metadata.namespace"
)

// entryFields is a cache entry's selectable fields: metadata.name and
// metadata.namespace, unique to each object, are the entry's own (its
// key's bytes) when they are what the kind's set gave; the rest is an
// interned set that objects share.
type entryFields struct {
	rest attrs
	// own: bit 1 metadata.name, bit 2 metadata.namespace are the entry's.
	own byte
}

func makeEntryFields(m map[string]string, name, ns string) entryFields {
	if m == nil {
		return entryFields{}
	}
	var own byte
	if v, ok := m[fieldName]; ok && v == name {
		own |= 1
	}
	if v, ok := m[fieldNamespace]; ok && v == ns {
		own |= 2
	}
	skip := func(k string) bool {
		return (own&1 != 0 && k == fieldName) || (own&2 != 0 && k == fieldNamespace)
	}
	return entryFields{rest: attrs{h: internPairs(m, skip)}, own: own}
}

// set is f as fields.Fields of the entry named name in ns.
func (f entryFields) set(name, ns string) fieldsOfEntry {
	return fieldsOfEntry{f: f, name: name, ns: ns}
}

// fieldsOfEntry implements fields.Fields.
type fieldsOfEntry struct {
	f        entryFields
	name, ns string
}

func (s fieldsOfEntry) lookup(key string) (string, bool) {
	switch {
	case s.f.own&1 != 0 && key == fieldName:
		return s.name, true
	case s.f.own&2 != 0 && key == fieldNamespace:
		return s.ns, true
	}
	return s.f.rest.Lookup(key)
}

func (s fieldsOfEntry) Has(key string) bool {
	_, ok := s.lookup(key)
	return ok
}

func (s fieldsOfEntry) Get(key string) string {
	v, _ := s.lookup(key)
	return v
}

// each calls f on every field (metadata.name and metadata.namespace
// first when the entry's own).
func (s fieldsOfEntry) each(f func(k, v string) bool) {
	if s.f.own&1 != 0 && !f(fieldName, s.name) {
		return
	}
	if s.f.own&2 != 0 && !f(fieldNamespace, s.ns) {
		return
	}
	s.f.rest.each(f)
}

// suffixOf returns s as a substring of key when key ends with it (sharing
// key's bytes), else s.
func suffixOf(key, s string) string {
	if strings.HasSuffix(key, s) {
		return key[len(key)-len(s):]
	}
	return s
}
