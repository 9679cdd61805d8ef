package endpoints

import "testing"

func TestIntegralFloats(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"a":1,"b":-2,"c":0}`, `{"a":1,"b":-2,"c":0}`},
		{`{"a":1.0,"b":-2.50e1,"c":1e3,"d":1E+2,"e":-0.0}`, `{"a":1,"b":-25,"c":1000,"d":100,"e":0}`},
		{`{"a":1.5,"b":1e-1,"c":1e300,"d":9007199254740993.0}`, `{"a":1.5,"b":1e-1,"c":1e300,"d":9007199254740992}`},
		{`{"s":"1.0","k\"1.0":[2.0,"x\\",3.0]}`, `{"s":"1.0","k\"1.0":[2,"x\\",3]}`},
		{`[1.0, {"x": 20.00}]`, `[1, {"x": 20}]`},
		{`{"a":"unterminated 1.0`, `{"a":"unterminated 1.0`},
		{`{"a":1..0}`, `{"a":1..0}`},
	} {
		got, changed := integralFloats([]byte(tc.in))
		if string(got) != tc.want || changed != (tc.in != tc.want) {
			t.Errorf("integralFloats(%s) = %s, %v; want %s", tc.in, got, changed, tc.want)
		}
	}
}
