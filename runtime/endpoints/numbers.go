package endpoints

import (
	"math"
	"strconv"

	"github.com/kubeforge/kubeforge/runtime/presence"
)

// A custom resource's integer field takes a number written as an integral
// float (1.0, 1e3, -2.50e1) on kube-apiserver: its schema check counts
// such a float as an integer (go-openapi's IsFloat64AJSONInteger, up to
// 2^53), and the value is stored as the integer it is. Python's json
// writes every float that way (json.dumps(6 / 2) is "3.0"). Go's decoder
// refuses them for an int field, so a body that fails to decode is tried
// once more with those numbers rewritten: the happy path pays nothing.

// maxIntegralFloat bounds the floats taken as integers, as go-openapi does:
// above 2^53 a float64 no longer holds every integer.
const maxIntegralFloat = 1 << 53

// decodeIntegralFloats runs decode on data and, when it fails and data
// holds integral floats, once more on data with them rewritten as
// integers (integralFloats). It returns the data the object was decoded
// from; when the retry fails too, the first error, which names the number
// as the client wrote it. decode must start from a fresh object each time.
func decodeIntegralFloats(data []byte, decode func([]byte) error) ([]byte, error) {
	err := decode(data)
	if err == nil {
		return data, nil
	}
	fixed, changed := integralFloats(data)
	if !changed || decode(fixed) != nil {
		return data, err
	}
	return fixed, nil
}

// integralFloats returns data with every number outside strings that is
// written with a fraction or an exponent but whose value is an integer of
// at most 2^53 in magnitude rewritten as that integer, and whether any
// was. data is expected to be JSON; anything else is returned as it is
// scanned, for the decoder to refuse.
func integralFloats(data []byte) ([]byte, bool) {
	var out []byte // nil until the first rewrite
	last := 0      // data[last:i] is not yet copied to out
	for i := 0; i < len(data); {
		switch c := data[i]; {
		case c == '"':
			i = presence.SkipString(data, i)
		case c == '-' || c >= '0' && c <= '9':
			start := i
			float := false
			for i < len(data) {
				c := data[i]
				if c == '.' || c == 'e' || c == 'E' {
					float = true
				} else if !(c == '-' || c == '+' || c >= '0' && c <= '9') {
					break
				}
				i++
			}
			if !float {
				continue
			}
			f, err := strconv.ParseFloat(string(data[start:i]), 64)
			if err != nil || f != math.Trunc(f) || math.Abs(f) > maxIntegralFloat {
				continue
			}
			if out == nil {
				out = make([]byte, 0, len(data))
			}
			out = append(out, data[last:start]...)
			out = strconv.AppendInt(out, int64(f), 10)
			last = i
		default:
			i++
		}
	}
	if out == nil {
		return data, false
	}
	return append(out, data[last:]...), true
}
