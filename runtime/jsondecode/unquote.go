package jsondecode

import (
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// unescaped are the characters of JSON's one-letter escapes.
var unescaped = [256]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

// decodeString returns the characters of the JSON string literal s
// (quotes included), whose syntax scanString has checked, as encoding/json
// decodes them: escapes decoded, an escaped UTF-16 surrogate pair joined
// into one character, a lone surrogate and each byte of invalid UTF-8
// replaced by U+FFFD. TestStringsMatch checks it against sigs.k8s.io/json.
func decodeString(s []byte) []byte {
	s = s[1 : len(s)-1]
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); {
		switch c := s[i]; {
		case c == '\\' && s[i+1] == 'u':
			r := hex4(s[i+2 : i+6])
			i += 6
			if utf16.IsSurrogate(r) {
				// Joined with an escaped surrogate right after it when
				// they pair; otherwise U+FFFD, and what follows is read
				// on its own.
				if i+6 <= len(s) && s[i] == '\\' && s[i+1] == 'u' {
					if pair := utf16.DecodeRune(r, hex4(s[i+2:i+6])); pair != unicode.ReplacementChar {
						out = utf8.AppendRune(out, pair)
						i += 6
						continue
					}
				}
				r = unicode.ReplacementChar
			}
			out = utf8.AppendRune(out, r)
		case c == '\\':
			out = append(out, unescaped[s[i+1]])
			i += 2
		case c < utf8.RuneSelf:
			out = append(out, c)
			i++
		default:
			// An invalid byte decodes as RuneError of size 1.
			r, size := utf8.DecodeRune(s[i:])
			out = utf8.AppendRune(out, r)
			i += size
		}
	}
	return out
}

// hex4 reads four hex digits (or returns -1).
func hex4(h []byte) rune {
	var r rune
	for _, c := range h {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return -1
		}
		r = r<<4 | rune(c)
	}
	return r
}
