package jsonencode

// Fast writes v on the fast path only: ok is false when Marshal would
// leave v to encoding/json.
func Fast(v any) (out []byte, ok bool) {
	e := encoders.Get().(*encoder)
	defer e.release()
	b, ok := e.top(nil, v)
	if !ok {
		return nil, false
	}
	return b, true
}
