package jsondecode

// The scanning of JSON's syntax, as encoding/json's scanner accepts it,
// and of numbers as encoding/json converts them.

import (
	"strconv"
	"unsafe"
)

// literal checks that data[i:] starts with lit.
func literal(data []byte, i int, lit string) (int, bool) {
	end := i + len(lit)
	if end > len(data) || string(data[i:end]) != lit {
		return 0, false
	}
	return end, true
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

// plain marks the bytes a string holds as they are: not the quote, the
// backslash, control characters, or bytes of multi-byte UTF-8.
var plain = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// scanString checks the string starting at data[i] (a quote) as
// encoding/json's scanner does and returns the index after its closing
// quote; slow when it has escapes or non-ASCII bytes, for decodeString.
func scanString(data []byte, i int) (end int, slow bool, ok bool) {
	i++
	for {
		for i < len(data) && plain[data[i]] {
			i++
		}
		if i >= len(data) {
			return 0, false, false
		}
		switch c := data[i]; {
		case c == '"':
			return i + 1, slow, true
		case c == '\\':
			slow = true
			if i+1 >= len(data) {
				return 0, false, false
			}
			switch data[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(data) || !isHex(data[i+2]) || !isHex(data[i+3]) || !isHex(data[i+4]) || !isHex(data[i+5]) {
					return 0, false, false
				}
				i += 6
			default:
				return 0, false, false
			}
		case c < 0x20:
			return 0, false, false
		default: // a byte of multi-byte UTF-8, valid or not
			slow = true
			i++
		}
	}
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// stringBytes scans the string at data[i] and returns its decoded bytes,
// which alias data when it has nothing to decode.
func stringBytes(data []byte, i int) (s []byte, end int, ok bool) {
	end, slow, ok := scanString(data, i)
	if !ok {
		return nil, 0, false
	}
	if !slow {
		return data[i+1 : end-1], end, true
	}
	return decodeString(data[i:end]), end, true
}

// scanNumber checks the number starting at data[i] against JSON's grammar
// and returns the index after it and whether it is an integer (no
// fraction, no exponent).
func scanNumber(data []byte, i int) (end int, integer bool, ok bool) {
	if i < len(data) && data[i] == '-' {
		i++
	}
	if i >= len(data) {
		return 0, false, false
	}
	switch c := data[i]; {
	case c == '0':
		i++
	case '1' <= c && c <= '9':
		i++
		for i < len(data) && '0' <= data[i] && data[i] <= '9' {
			i++
		}
	default:
		return 0, false, false
	}
	integer = true
	if i < len(data) && data[i] == '.' {
		integer = false
		i++
		if i >= len(data) || data[i] < '0' || data[i] > '9' {
			return 0, false, false
		}
		for i < len(data) && '0' <= data[i] && data[i] <= '9' {
			i++
		}
	}
	if i < len(data) && (data[i] == 'e' || data[i] == 'E') {
		integer = false
		i++
		if i < len(data) && (data[i] == '+' || data[i] == '-') {
			i++
		}
		if i >= len(data) || data[i] < '0' || data[i] > '9' {
			return 0, false, false
		}
		for i < len(data) && '0' <= data[i] && data[i] <= '9' {
			i++
		}
	}
	return i, integer, true
}

// intValue is strconv.ParseInt and reflect's OverflowInt, as
// encoding/json applies them to a number for a signed integer; a
// fraction, an exponent or an overflow bails out (its type error).
func intValue(data []byte, i int, ptr unsafe.Pointer, bits int) (int, bool) {
	end, integer, ok := scanNumber(data, i)
	if !ok || !integer {
		return 0, false
	}
	digits := data[i:end]
	neg := digits[0] == '-'
	if neg {
		digits = digits[1:]
	}
	if len(digits) > 19 {
		return 0, false
	}
	var u uint64
	for _, c := range digits {
		u = u*10 + uint64(c-'0')
	}
	limit := uint64(1) << (bits - 1) // the magnitude of the minimum
	if neg && u > limit || !neg && u >= limit {
		return 0, false
	}
	n := int64(u)
	if neg {
		n = -n
	}
	switch bits {
	case 8:
		*(*int8)(ptr) = int8(n)
	case 16:
		*(*int16)(ptr) = int16(n)
	case 32:
		*(*int32)(ptr) = int32(n)
	default:
		*(*int64)(ptr) = n
	}
	return end, true
}

// uintValue is strconv.ParseUint and OverflowUint (no sign at all, not
// even -0).
func uintValue(data []byte, i int, ptr unsafe.Pointer, bits int) (int, bool) {
	end, integer, ok := scanNumber(data, i)
	if !ok || !integer || data[i] == '-' {
		return 0, false
	}
	n, err := strconv.ParseUint(unsafe.String(&data[i], end-i), 10, 64)
	if err != nil || bits < 64 && n >= 1<<bits {
		return 0, false
	}
	switch bits {
	case 8:
		*(*uint8)(ptr) = uint8(n)
	case 16:
		*(*uint16)(ptr) = uint16(n)
	case 32:
		*(*uint32)(ptr) = uint32(n)
	default:
		*(*uint64)(ptr) = n
	}
	return end, true
}

// floatValue is strconv.ParseFloat at the type's size (which reports an
// overflow as an error, OverflowFloat's case).
func floatValue(data []byte, i int, ptr unsafe.Pointer, bits int) (int, bool) {
	end, _, ok := scanNumber(data, i)
	if !ok {
		return 0, false
	}
	f, err := strconv.ParseFloat(unsafe.String(&data[i], end-i), bits)
	if err != nil {
		return 0, false
	}
	if bits == 32 {
		*(*float32)(ptr) = float32(f)
	} else {
		*(*float64)(ptr) = f
	}
	return end, true
}

// skip checks the value at data[i] as encoding/json's scanner does and
// returns the index after it.
func (d *decoder) skip(i int) (int, bool) {
	data := d.data
	if i >= len(data) {
		return 0, false
	}
	switch data[i] {
	case '{':
		return d.skipObject(i)
	case '[':
		return d.skipArray(i)
	case '"':
		end, _, ok := scanString(data, i)
		return end, ok
	case 't':
		return literal(data, i, "true")
	case 'f':
		return literal(data, i, "false")
	case 'n':
		return literal(data, i, "null")
	}
	end, _, ok := scanNumber(data, i)
	return end, ok
}

func (d *decoder) skipObject(i int) (int, bool) {
	if d.depth++; d.depth > maxDepth {
		return 0, false
	}
	data := d.data
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == '}' {
		d.depth--
		return i + 1, true
	}
	for {
		if i >= len(data) || data[i] != '"' {
			return 0, false
		}
		end, _, ok := scanString(data, i)
		if !ok {
			return 0, false
		}
		if i, ok = d.colon(end); !ok {
			return 0, false
		}
		if i, ok = d.skip(i); !ok {
			return 0, false
		}
		if i, ok = d.comma(i, '}'); !ok {
			return 0, false
		}
		if data[i-1] == '}' {
			d.depth--
			return i, true
		}
	}
}

func (d *decoder) skipArray(i int) (int, bool) {
	if d.depth++; d.depth > maxDepth {
		return 0, false
	}
	data := d.data
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == ']' {
		d.depth--
		return i + 1, true
	}
	for {
		var ok bool
		if i, ok = d.skip(i); !ok {
			return 0, false
		}
		if i, ok = d.comma(i, ']'); !ok {
			return 0, false
		}
		if data[i-1] == ']' {
			d.depth--
			return i, true
		}
	}
}
