package jsonencode

import (
	"encoding/binary"
	"math/bits"
	"strconv"
	"unicode/utf8"
	"unsafe"
)

const hex = "0123456789abcdef"

// plain marks the bytes encoding/json.Marshal copies into a string as
// they are: ASCII from the space on, but for the quote, the backslash and
// <, > and &, which it escapes for HTML.
var plain = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
	}
	return t
}()

// appendString writes s as encoding/json.Marshal writes a string.
func appendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	dst = appendStringContent(dst, s)
	return append(dst, '"')
}

// appendStringContent writes s escaped as inside a JSON string: \" \\
// \b \f \n \r \t, other control characters and <, >, & as \u00XX,
// U+2028 and U+2029 as \u2028 and \u2029, and each byte of invalid UTF-8
// as \ufffd.
func appendStringContent(dst []byte, s string) []byte {
	start := 0
	for i := 0; i < len(s); {
		// Eight bytes at a time up to the next one that is not plain:
		// most strings have few or none.
		if len(s)-i >= 8 {
			m := special8(binary.LittleEndian.Uint64(unsafe.Slice(unsafe.StringData(s[i:]), 8)))
			if m == 0 {
				i += 8
				continue
			}
			i += bits.TrailingZeros64(m) >> 3
		}
		c := s[i]
		if plain[c] {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	return append(dst, s[start:]...)
}

const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// special8 marks (with its high bit) each of the eight bytes of x, in
// little-endian order, that is not plain: below the space, at or above
// 0x80, or one of " \\ < > &. A borrow in the subtractions can mark a
// plain byte too, but only above a byte marked rightly: the lowest mark
// and "no mark" are exact.
func special8(x uint64) uint64 {
	below := (x - ones*0x20) &^ x
	return (below | x | hasZero(x^(ones*'"')) | hasZero(x^(ones*'\\')) |
		hasZero(x^(ones*'<')) | hasZero(x^(ones*'>')) | hasZero(x^(ones*'&'))) & highs
}

func hasZero(x uint64) uint64 { return (x - ones) &^ x }

// appendFloat writes f as encoding/json does: ES6 number formatting, the
// shortest decimal that reads back as the same float of its size, in
// exponent form below 1e-6 and from 1e21 on, with e-07 shortened to e-7.
func appendFloat(dst []byte, f float64, bits int) []byte {
	abs := f
	if abs < 0 {
		abs = -abs
	}
	format := byte('f')
	if abs != 0 {
		// A float32 compares as a float32, for the cutoffs to be exact.
		if bits == 64 && (abs < 1e-6 || abs >= 1e21) || bits == 32 && (float32(abs) < 1e-6 || float32(abs) >= 1e21) {
			format = 'e'
		}
	}
	dst = strconv.AppendFloat(dst, f, format, -1, bits)
	if format == 'e' {
		n := len(dst)
		if n >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
			dst[n-2] = dst[n-1]
			dst = dst[:n-1]
		}
	}
	return dst
}

// validNumber reports whether s is a JSON number literal.
func validNumber(s string) bool {
	if s != "" && s[0] == '-' {
		s = s[1:]
	}
	i := digits(s, 0)
	switch {
	case i == 0:
		return false
	case s[0] == '0' && i > 1:
		return false
	}
	if i < len(s) && s[i] == '.' {
		j := digits(s, i+1)
		if j == i+1 {
			return false
		}
		i = j
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		j := digits(s, i)
		if j == i {
			return false
		}
		i = j
	}
	return i == len(s)
}

func digits(s string, i int) int {
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i
}
