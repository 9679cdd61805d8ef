// Package presence tells generated defaulters which fields a request set.
//
// kube-apiserver defaults a custom resource from its JSON: a +default
// applies where a key is absent (or null), and an explicit zero such as
// `replicas: 0` is kept. A Go struct cannot tell an absent field from a
// zero one, so the defaulter of a field that can hold its zero in JSON
// (one without omitempty) asks a Node, made from the JSON the object was
// decoded from, whether the key was there.
//
// A Node is a cursor on that JSON (or on its unstructured form) and costs
// nothing until it is asked: a question scans only the object it is about,
// and the JSON was valid when decoded, so scanning needs no checks beyond
// staying inside it. The zero Node knows nothing, and every field is
// absent (defaulter-gen's rule: every zero is defaulted); Marshaled says
// every field is present (an object encoded from Go, where a field without
// omitempty is always written).
package presence

import (
	"encoding/json"
	"sync"
	"sync/atomic"
)

type source uint8

const (
	none         source = iota // absent, null or unknown: nothing is set
	jsonValue                  // data[at:] is the value
	unstructured               // v is the value (map[string]any, []any, ...)
	everything                 // every field is set
)

// Node is one JSON value of a request: what its object's keys or its
// array's items are.
type Node struct {
	src  source
	at   int
	data []byte
	v    any
	// hidden is a key of this object the server has dropped since
	// decoding (Without).
	hidden string
	// keys indexes a JSON object's members on its first question, for
	// every copy of the node: a generated function asks one node about
	// each of its fields, which would otherwise each scan the object.
	keys *keyIndex
}

// keyIndex is an object's members in order, built on the object's second
// question (one question scans less than building takes). Safe for
// concurrent use, as asking a Node is.
type keyIndex struct {
	asked   atomic.Int32
	once    sync.Once
	members []member
}

type member struct {
	key int // the key's opening quote
	at  int // the value's first byte
}

// JSON is the document data, which has been decoded (so is valid JSON).
// Input that is not a JSON value (protobuf, empty) gives the zero Node.
func JSON(data []byte) Node {
	i := skipSpace(data, 0)
	if i >= len(data) {
		return Node{}
	}
	switch data[i] {
	case '{':
		return Node{src: jsonValue, data: data, at: i, keys: &keyIndex{}}
	case '[':
		return Node{src: jsonValue, data: data, at: i}
	}
	return Node{}
}

// Unstructured is an object in its unstructured form, such as the field
// manager's result of a server-side apply.
func Unstructured(obj map[string]any) Node {
	if obj == nil {
		return Node{}
	}
	return Node{src: unstructured, v: obj}
}

// Marshaled is an object encoded from its Go value: every field without
// omitempty is present, so none of them is defaulted.
var Marshaled = Node{src: everything}

// Has reports whether the node is an object with key set to a value other
// than null. With duplicate keys the last one counts, as in decoding.
func (n Node) Has(key string) bool {
	if n.src == jsonValue && key != n.hidden {
		at, ok := n.find(key)
		return ok && n.data[at] != 'n'
	}
	return n.Field(key).src != none
}

// Absent reports that the request's JSON is known and has no value for key:
// false for Marshaled (every field is there) and for the zero Node (nothing
// is known). A required number or boolean, whose zero Go cannot tell from
// a missing key, asks it.
func (n Node) Absent(key string) bool {
	return (n.src == jsonValue || n.src == unstructured || key == n.hidden && key != "") && !n.Has(key)
}

// Sent reports whether key holds a value in the request's JSON, as Has,
// but false for Marshaled: an object encoded from Go never writes the zero
// of an omitempty field. Validators ask it whether such a zero was sent,
// which kube-apiserver checks against the field's markers (`replicas: 0`
// under a minimum of 1 is a 422) where Go sees an absent field.
func (n Node) Sent(key string) bool {
	return n.src != everything && n.Has(key)
}

// Without is n with key absent from its object: a create drops the status
// a request sent, and what is checked and defaulted after that must see
// the object as stored, without it.
func (n Node) Without(key string) Node {
	n.hidden = key
	return n
}

// Field is the value of key in the node's object: the zero Node when the
// key is absent or null, or the node is not an object.
func (n Node) Field(key string) Node {
	if n.hidden != "" && key == n.hidden {
		return Node{}
	}
	switch n.src {
	case everything:
		return n
	case unstructured:
		m, ok := n.v.(map[string]any)
		if !ok {
			return Node{}
		}
		return fromValue(m[key])
	case jsonValue:
		if at, ok := n.find(key); ok {
			return n.valueAt(at)
		}
	}
	return Node{}
}

// find is the index of key's value in the node's JSON object. With
// duplicate keys the last one counts, as in decoding.
func (n Node) find(key string) (int, bool) {
	if n.keys == nil || n.keys.asked.Add(1) == 1 {
		found, at := false, 0
		n.members(func(k []byte, _, i int) {
			if keyEquals(k, key) {
				found, at = true, i
			}
		})
		return at, found
	}
	n.keys.once.Do(func() {
		ms := make([]member, 0, 16)
		n.members(func(_ []byte, k, i int) {
			ms = append(ms, member{key: k, at: i})
		})
		n.keys.members = ms
	})
	for i := len(n.keys.members) - 1; i >= 0; i-- {
		m := n.keys.members[i]
		if keyEquals(n.data[m.key:SkipString(n.data, m.key)], key) {
			return m.at, true
		}
	}
	return 0, false
}

// valueAt is the node of the value at data[at], the zero Node for null;
// an object gets its index, built when first asked.
func (n Node) valueAt(at int) Node {
	switch n.data[at] {
	case 'n':
		return Node{}
	case '{':
		return Node{src: jsonValue, data: n.data, at: at, keys: &keyIndex{}}
	}
	return Node{src: jsonValue, data: n.data, at: at}
}

func fromValue(v any) Node {
	if v == nil {
		return Node{}
	}
	return Node{src: unstructured, v: v}
}

// Items walks the node's array: Next returns each item in turn, then the
// zero Node.
func (n Node) Items() Items {
	switch n.src {
	case everything:
		return Items{n: n}
	case unstructured:
		s, _ := n.v.([]any)
		return Items{n: n, list: s}
	case jsonValue:
		if n.data[n.at] == '[' {
			return Items{n: n, at: skipSpace(n.data, n.at+1)}
		}
	}
	return Items{}
}

// Items is a walk over an array's items.
type Items struct {
	n    Node
	at   int   // JSON: the next item's first byte, or its closing ']'
	list []any // unstructured: the items not yet returned
}

// Next is the next item, the zero Node past the end.
func (it *Items) Next() Node {
	switch it.n.src {
	case everything:
		return it.n
	case unstructured:
		if len(it.list) == 0 {
			return Node{}
		}
		v := it.list[0]
		it.list = it.list[1:]
		return fromValue(v)
	case jsonValue:
		data := it.n.data
		if it.at >= len(data) || data[it.at] == ']' {
			return Node{}
		}
		item := it.n.valueAt(it.at)
		i := skipSpace(data, skipValue(data, it.at))
		if i < len(data) && data[i] == ',' {
			i = skipSpace(data, i+1)
		}
		it.at = i
		return item
	}
	return Node{}
}

// Members indexes the node's object by key, for a Go map whose values
// have defaults: each value's node is then found once.
func (n Node) Members() Members {
	switch n.src {
	case everything:
		return Members{all: true}
	case unstructured:
		m, _ := n.v.(map[string]any)
		return Members{u: m}
	case jsonValue:
		idx := map[string]Node{}
		n.members(func(k []byte, _, at int) {
			idx[keyString(k)] = n.valueAt(at)
		})
		return Members{j: idx}
	}
	return Members{}
}

// Members is an object's values by key.
type Members struct {
	all bool
	u   map[string]any
	j   map[string]Node
}

// Get is the value of key, the zero Node when absent or null.
func (m Members) Get(key string) Node {
	switch {
	case m.all:
		return Marshaled
	case m.u != nil:
		return fromValue(m.u[key])
	}
	return m.j[key]
}

// members calls fn with each key of the node's object (as written, quotes
// included), the index of its opening quote and that of its value.
func (n Node) members(fn func(key []byte, keyAt, at int)) {
	data := n.data
	i := n.at
	if data[i] != '{' {
		return
	}
	i = skipSpace(data, i+1)
	for i < len(data) && data[i] == '"' {
		start, end := i, SkipString(data, i)
		key := data[start:end]
		i = skipSpace(data, end)
		if i >= len(data) || data[i] != ':' {
			return
		}
		i = skipSpace(data, i+1)
		if i >= len(data) {
			return
		}
		fn(key, start, i)
		i = skipSpace(data, skipValue(data, i))
		if i >= len(data) || data[i] != ',' {
			return
		}
		i = skipSpace(data, i+1)
	}
}

// keyEquals compares a quoted JSON key with name; keys with escapes are
// unquoted first (decoding matched them unquoted).
func keyEquals(quoted []byte, name string) bool {
	raw := quoted[1 : len(quoted)-1]
	if !hasEscape(raw) {
		return string(raw) == name
	}
	return keyString(quoted) == name
}

func keyString(quoted []byte) string {
	raw := quoted[1 : len(quoted)-1]
	if !hasEscape(raw) {
		return string(raw)
	}
	var s string
	if err := json.Unmarshal(quoted, &s); err != nil {
		return string(raw)
	}
	return s
}

func hasEscape(b []byte) bool {
	for _, c := range b {
		if c == '\\' {
			return true
		}
	}
	return false
}

func skipSpace(data []byte, i int) int {
	for i < len(data) {
		switch data[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// SkipString returns the index after the JSON string starting at data[i]
// ('"'), or len(data) when it does not end.
func SkipString(data []byte, i int) int {
	for i++; i < len(data); i++ {
		switch data[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return len(data)
}

// skipValue returns the index after the value starting at data[i].
func skipValue(data []byte, i int) int {
	switch data[i] {
	case '"':
		return SkipString(data, i)
	case '{', '[':
		depth := 0
		for ; i < len(data); i++ {
			switch data[i] {
			case '"':
				i = SkipString(data, i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
		}
		return len(data)
	}
	for ; i < len(data); i++ {
		switch data[i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return i
		}
	}
	return i
}
