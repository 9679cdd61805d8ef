package jsondecode_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"unicode/utf16"
)

// node is a JSON value kept with its keys' order, for the mutations of
// TestParityMutated: duplicate and odd keys, escapes, raw bytes, deep
// nesting and whitespace, which a map cannot hold.
type node struct {
	kind byte // 'o' object, 'a' array, 's' string, 'l' literal, 'w' wrapped in deep nesting
	keys []string
	vals []*node
	str  string
	lit  string

	escape     bool // the string written as \u escapes
	escapeKeys bool // the keys too
	raw        bool // str written as it is, invalid UTF-8 and all
	space      bool // whitespace around the value

	close string // 'w': lit opens, close closes
	inner *node
}

func parseTree(data []byte) (*node, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	return parseNode(dec)
}

func parseNode(dec *json.Decoder) (*node, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch v := tok.(type) {
	case json.Delim:
		n := &node{kind: 'a'}
		if v == '{' {
			n.kind = 'o'
		}
		for dec.More() {
			if n.kind == 'o' {
				k, err := dec.Token()
				if err != nil {
					return nil, err
				}
				n.keys = append(n.keys, k.(string))
			}
			c, err := parseNode(dec)
			if err != nil {
				return nil, err
			}
			n.vals = append(n.vals, c)
		}
		_, err := dec.Token()
		return n, err
	case string:
		return &node{kind: 's', str: v}, nil
	case json.Number:
		return &node{kind: 'l', lit: v.String()}, nil
	case bool:
		return &node{kind: 'l', lit: strconv.FormatBool(v)}, nil
	case nil:
		return &node{kind: 'l', lit: "null"}, nil
	}
	return nil, fmt.Errorf("token %v", tok)
}

// walk lists n and every node below it.
func (n *node) walk(out []*node) []*node {
	out = append(out, n)
	for _, c := range n.vals {
		out = c.walk(out)
	}
	if n.inner != nil {
		out = n.inner.walk(out)
	}
	return out
}

func (n *node) encode(b []byte) []byte {
	if n.space {
		b = append(b, " \n\t\r"...)
	}
	switch n.kind {
	case 'o':
		b = append(b, '{')
		for i, k := range n.keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = encodeString(b, k, n.escapeKeys, false)
			b = append(b, ':')
			b = n.vals[i].encode(b)
		}
		b = append(b, '}')
	case 'a':
		b = append(b, '[')
		for i, v := range n.vals {
			if i > 0 {
				b = append(b, ',')
			}
			b = v.encode(b)
		}
		b = append(b, ']')
	case 's':
		b = encodeString(b, n.str, n.escape, n.raw)
	case 'w':
		b = append(b, n.lit...)
		b = n.inner.encode(b)
		b = append(b, n.close...)
	default:
		b = append(b, n.lit...)
	}
	if n.space {
		b = append(b, " \n"...)
	}
	return b
}

// encodeString writes s as json.Marshal does, or every character as a
// \u escape (surrogate pairs beyond the BMP), or its bytes as they are
// (quotes, backslashes and control characters escaped).
func encodeString(b []byte, s string, escape, raw bool) []byte {
	switch {
	case escape:
		b = append(b, '"')
		for _, r := range s {
			for _, u := range utf16.Encode([]rune{r}) {
				b = fmt.Appendf(b, `\u%04x`, u)
			}
		}
		return append(b, '"')
	case raw:
		b = append(b, '"')
		for i := 0; i < len(s); i++ {
			c := s[i]
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c < 0x20:
				b = fmt.Appendf(b, `\u%04x`, c)
			default:
				b = append(b, c)
			}
		}
		return append(b, '"')
	}
	q, _ := json.Marshal(s)
	return append(b, q...)
}
