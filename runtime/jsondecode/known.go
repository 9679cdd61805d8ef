package jsondecode

import (
	"reflect"
	"time"
	"unsafe"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// knownOps are the types whose UnmarshalJSON (apimachinery's, quoted
// below) unquotes a string with encoding/json and parses it: for a string
// without escapes or non-ASCII bytes, which encoding/json returns as it
// is, the same parse is done here without the second decoder. Any other
// input (null, escapes, numbers for a time) calls the method.
var knownOps = map[reflect.Type]op{
	reflect.TypeFor[metav1.Time]():        opTime,
	reflect.TypeFor[metav1.MicroTime]():   opMicroTime,
	reflect.TypeFor[metav1.Duration]():    opDuration,
	reflect.TypeFor[intstr.IntOrString](): opIntOrString,
}

// known decodes the value at data[i] for a known type; done is false when
// the method is to be called instead.
func (d *decoder) known(o op, ptr unsafe.Pointer, i int) (end int, ok, done bool) {
	data := d.data
	if o == opIntOrString && data[i] != '"' {
		// func (intstr *IntOrString) UnmarshalJSON(value []byte) error {
		//	if value[0] == '"' {
		//		intstr.Type = String
		//		return json.Unmarshal(value, &intstr.StrVal)
		//	}
		//	intstr.Type = Int
		//	return json.Unmarshal(value, &intstr.IntVal)
		// }
		if data[i] != '-' && (data[i] < '0' || data[i] > '9') {
			return 0, false, false
		}
		x := (*intstr.IntOrString)(ptr)
		x.Type = intstr.Int
		end, ok = intValue(data, i, unsafe.Pointer(&x.IntVal), 32)
		return end, ok, true
	}
	if data[i] != '"' {
		return 0, false, false
	}
	end, slow, ok := scanString(data, i)
	if !ok || slow {
		return 0, false, false
	}
	str := unsafe.String(unsafe.SliceData(data[i+1:]), end-i-2)
	switch o {
	case opTime:
		// func (t *Time) UnmarshalJSON(b []byte) error {
		//	if len(b) == 4 && string(b) == "null" { ... }
		//	var str string
		//	err := json.Unmarshal(b, &str)
		//	...
		//	pt, err := time.Parse(time.RFC3339, str)
		//	...
		//	t.Time = pt.Local()
		pt, err := time.Parse(time.RFC3339, str)
		if err != nil {
			return 0, false, true
		}
		(*metav1.Time)(ptr).Time = pt.Local()
	case opMicroTime:
		// MicroTime's is Time's with metav1.RFC3339Micro.
		pt, err := time.Parse(metav1.RFC3339Micro, str)
		if err != nil {
			return 0, false, true
		}
		(*metav1.MicroTime)(ptr).Time = pt.Local()
	case opDuration:
		// func (d *Duration) UnmarshalJSON(b []byte) error {
		//	var str string
		//	err := json.Unmarshal(b, &str)
		//	...
		//	pd, err := time.ParseDuration(str)
		//	...
		//	d.Duration = pd
		pd, err := time.ParseDuration(str)
		if err != nil {
			return 0, false, true
		}
		(*metav1.Duration)(ptr).Duration = pd
	case opIntOrString:
		x := (*intstr.IntOrString)(ptr)
		x.Type = intstr.String
		x.StrVal = string(data[i+1 : end-1])
	}
	return end, true, true
}
