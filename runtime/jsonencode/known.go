package jsonencode

import (
	"strconv"
	"time"
	"unsafe"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// appendKnown writes a value of a type of knownOps as its MarshalJSON
// (apimachinery's, quoted below) and encoding/json's compaction of it
// would: the methods write a JSON string with json.Marshal (so escaped
// exactly as appendString escapes) or a time in a layout of digits and
// punctuation that needs no escaping.
func appendKnown(b []byte, o op, ptr unsafe.Pointer) ([]byte, bool) {
	switch o {
	case opTime:
		// func (t Time) MarshalJSON() ([]byte, error) {
		//	if t.IsZero() {
		//		return []byte("null"), nil
		//	}
		//	buf := make([]byte, 0, len(time.RFC3339)+2)
		//	buf = append(buf, '"')
		//	buf = t.UTC().AppendFormat(buf, time.RFC3339)
		//	buf = append(buf, '"')
		t := (*metav1.Time)(ptr)
		if t.IsZero() {
			b = append(b, "null"...)
			return b, true
		}
		b = append(b, '"')
		b = t.UTC().AppendFormat(b, time.RFC3339)
		b = append(b, '"')
	case opMicroTime:
		// func (t MicroTime) MarshalJSON() ([]byte, error) {
		//	if t.IsZero() {
		//		return []byte("null"), nil
		//	}
		//	return json.Marshal(t.UTC().Format(RFC3339Micro))
		t := (*metav1.MicroTime)(ptr)
		if t.IsZero() {
			b = append(b, "null"...)
			return b, true
		}
		b = append(b, '"')
		b = t.UTC().AppendFormat(b, metav1.RFC3339Micro)
		b = append(b, '"')
	case opDuration:
		// func (d Duration) MarshalJSON() ([]byte, error) {
		//	return json.Marshal(d.Duration.String())
		b = appendString(b, (*metav1.Duration)(ptr).Duration.String())
	case opIntOrString:
		// func (intstr IntOrString) MarshalJSON() ([]byte, error) {
		//	switch intstr.Type {
		//	case Int:
		//		return json.Marshal(intstr.IntVal)
		//	case String:
		//		return json.Marshal(intstr.StrVal)
		//	default:
		//		return []byte{}, fmt.Errorf("impossible IntOrString.Type")
		x := (*intstr.IntOrString)(ptr)
		switch x.Type {
		case intstr.Int:
			b = strconv.AppendInt(b, int64(x.IntVal), 10)
		case intstr.String:
			b = appendString(b, x.StrVal)
		default:
			return b, false // the method's error, from encoding/json
		}
	}
	return b, true
}
