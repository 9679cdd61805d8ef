package jsonencode

// Fast writes v on the fast path only: ok is false when Marshal would
// leave v to encoding/json.
func Fast(v any) (out []byte, ok bool) {
	e := encoders.Get().(*encoder)
	defer e.release()
	e.buf = e.buf[:0]
	if !e.top(v) {
		return nil, false
	}
	return append([]byte(nil), e.buf...), true
}
