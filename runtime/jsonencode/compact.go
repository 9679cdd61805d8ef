package jsonencode

// appendCompact appends src, the output of a MarshalJSON, as
// encoding/json.Marshal writes it: src must be one JSON value (else ok is
// false, and encoding/json returns its error), whitespace outside strings
// is dropped, and <, >, &, U+2028 and U+2029 are escaped. Other bytes,
// invalid UTF-8 included, are copied.
func appendCompact(dst, src []byte) (out []byte, ok bool) {
	c := compactor{src: src, dst: dst}
	c.space()
	if !c.value(0) {
		return c.dst, false
	}
	c.space()
	if c.i != len(src) {
		return c.dst, false
	}
	return c.dst, true
}

// maxCompactDepth bounds the nesting compacted here; encoding/json
// allows 10000 levels, and deeper values are left to it.
const maxCompactDepth = 1000

type compactor struct {
	src, dst []byte
	i        int
}

func (c *compactor) space() {
	for c.i < len(c.src) {
		switch c.src[c.i] {
		case ' ', '\t', '\r', '\n':
			c.i++
		default:
			return
		}
	}
}

func (c *compactor) value(depth int) bool {
	if c.i >= len(c.src) || depth > maxCompactDepth {
		return false
	}
	switch b := c.src[c.i]; {
	case b == '"':
		return c.str()
	case b == '{':
		return c.object(depth + 1)
	case b == '[':
		return c.array(depth + 1)
	case b == '-' || b >= '0' && b <= '9':
		return c.number()
	case b == 't':
		return c.literal("true")
	case b == 'f':
		return c.literal("false")
	case b == 'n':
		return c.literal("null")
	}
	return false
}

func (c *compactor) literal(lit string) bool {
	if len(c.src)-c.i < len(lit) || string(c.src[c.i:c.i+len(lit)]) != lit {
		return false
	}
	c.dst = append(c.dst, lit...)
	c.i += len(lit)
	return true
}

func (c *compactor) number() bool {
	start := c.i
	s := c.src
	i := c.i
	if s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case i < len(s) && s[i] >= '1' && s[i] <= '9':
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	default:
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		j := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == j {
			return false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		j := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == j {
			return false
		}
	}
	c.dst = append(c.dst, s[start:i]...)
	c.i = i
	return true
}

// str copies a string, checking its escapes and escaping for HTML.
func (c *compactor) str() bool {
	s := c.src
	i := c.i + 1
	start := c.i
	for i < len(s) {
		b := s[i]
		if inString[b] {
			i++
			continue
		}
		switch {
		case b == '"':
			c.dst = append(c.dst, s[start:i+1]...)
			c.i = i + 1
			return true
		case b < 0x20:
			return false
		case b == '\\':
			if i+1 >= len(s) {
				return false
			}
			switch s[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(s) || !isHex(s[i+2]) || !isHex(s[i+3]) || !isHex(s[i+4]) || !isHex(s[i+5]) {
					return false
				}
				i += 6
			default:
				return false
			}
		case b == '<' || b == '>' || b == '&':
			c.dst = append(c.dst, s[start:i]...)
			c.dst = append(c.dst, '\\', 'u', '0', '0', hex[b>>4], hex[b&0xF])
			i++
			start = i
		case b == 0xE2 && i+2 < len(s) && s[i+1] == 0x80 && s[i+2]&^1 == 0xA8:
			c.dst = append(c.dst, s[start:i]...)
			c.dst = append(c.dst, '\\', 'u', '2', '0', '2', hex[s[i+2]&0xF])
			i += 3
			start = i
		default:
			i++
		}
	}
	return false
}

// inString marks the bytes a string copies without a look: not the
// quote, the backslash, control characters, <, >, & or the first byte
// of U+2028 and U+2029.
var inString = func() (t [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' && c != 0xE2
	}
	return t
}()

func isHex(b byte) bool {
	return b >= '0' && b <= '9' || b >= 'a' && b <= 'f' || b >= 'A' && b <= 'F'
}

func (c *compactor) object(depth int) bool {
	c.dst = append(c.dst, '{')
	c.i++
	c.space()
	if c.i < len(c.src) && c.src[c.i] == '}' {
		c.dst = append(c.dst, '}')
		c.i++
		return true
	}
	for {
		if c.i >= len(c.src) || c.src[c.i] != '"' || !c.str() {
			return false
		}
		c.space()
		if c.i >= len(c.src) || c.src[c.i] != ':' {
			return false
		}
		c.dst = append(c.dst, ':')
		c.i++
		c.space()
		if !c.value(depth) {
			return false
		}
		if more, ok := c.next('}'); !more {
			return ok
		}
	}
}

func (c *compactor) array(depth int) bool {
	c.dst = append(c.dst, '[')
	c.i++
	c.space()
	if c.i < len(c.src) && c.src[c.i] == ']' {
		c.dst = append(c.dst, ']')
		c.i++
		return true
	}
	for {
		if !c.value(depth) {
			return false
		}
		if more, ok := c.next(']'); !more {
			return ok
		}
	}
}

// next reads what follows a member or element, after spaces: a comma
// (more to come, spaces after it skipped) or the closing byte of its
// object or array (done); ok is false for anything else.
func (c *compactor) next(closing byte) (more, ok bool) {
	c.space()
	if c.i >= len(c.src) {
		return false, false
	}
	switch c.src[c.i] {
	case ',':
		c.dst = append(c.dst, ',')
		c.i++
		c.space()
		return true, true
	case closing:
		c.dst = append(c.dst, closing)
		c.i++
		return false, true
	}
	return false, false
}
