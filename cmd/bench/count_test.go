package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
	"testing/iotest"
)

func TestCountItems(t *testing.T) {
	for _, tc := range []struct {
		body string
		want int
		bad  bool
	}{
		{body: `{"kind":"List","items":[]}`, want: 0},
		{body: `{"items":[{"a":1},{"b":[1,2,{"c":"]"}]}],"metadata":{"resourceVersion":"5"}}`, want: 2},
		{body: `{"metadata":{"items":[1,2,3]},"items":[ {"x":"\"items\":["} , {} ,{"y":"\\"}]}`, want: 3},
		{body: `{"kind":"items","items":[1, "two", null, true, [3]]}`, want: 5},
		{body: `{"items":[{"a":1},{"b":2}`, bad: true},
		{body: `{"items":[{"a":"unterminated}]}`, bad: true},
		{body: `{"kind":"Status"}`, bad: true},
		{body: `{"items":[]}]`, bad: true},
	} {
		got, err := countItems(strings.NewReader(tc.body))
		// Fed one byte at a time, every state crosses a chunk boundary.
		one, oneErr := countItems(iotest.OneByteReader(strings.NewReader(tc.body)))
		if one != got || (oneErr == nil) != (err == nil) {
			t.Errorf("%s: whole body %d, %v; one byte at a time %d, %v", tc.body, got, err, one, oneErr)
		}
		if tc.bad {
			if err == nil {
				t.Errorf("%s: counted %d, want an error", tc.body, got)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%s: got %d, %v; want %d", tc.body, got, err, tc.want)
		}
	}
}

// The scan agrees with encoding/json on a list shaped like the bench's.
func TestCountItemsMatchesDecode(t *testing.T) {
	var items []string
	for i := 0; i < 300; i++ {
		items = append(items, fmt.Sprintf(`{"metadata":{"name":"s-%d","labels":{"bench":"true"},"annotations":{"q":"say \"hi\" \\ [%d]"}},"spec":{"list":[%d,{"k":"}"}]}}`, i, i, i))
	}
	body := `{"apiVersion":"v1","kind":"List","metadata":{"resourceVersion":"9"},"items":[` + strings.Join(items, ",") + `]}`
	var l struct {
		Items []json.RawMessage `json:"items"`
	}
	if err := json.Unmarshal([]byte(body), &l); err != nil {
		t.Fatal(err)
	}
	got, err := countItems(strings.NewReader(body))
	if err != nil || got != len(l.Items) {
		t.Fatalf("counted %d, %v; encoding/json finds %d", got, err, len(l.Items))
	}
	for _, r := range []io.Reader{iotest.OneByteReader(strings.NewReader(body)), iotest.HalfReader(strings.NewReader(body)), &oddChunks{s: body}} {
		if got, err := countItems(r); err != nil || got != len(l.Items) {
			t.Fatalf("%T: counted %d, %v; encoding/json finds %d", r, got, err, len(l.Items))
		}
	}
}

// oddChunks returns s in chunks of 1, 2, 3, ... 97 bytes, then again.
type oddChunks struct {
	s string
	n int
}

func (o *oddChunks) Read(p []byte) (int, error) {
	if o.s == "" {
		return 0, io.EOF
	}
	o.n = o.n%97 + 1
	k := copy(p[:min(len(p), o.n)], o.s)
	o.s = o.s[k:]
	return k, nil
}

func BenchmarkCountItems(b *testing.B) {
	item := `{"metadata":{"name":"s-1","namespace":"ns-0","uid":"6f1c","labels":{"bench":"true"},"managedFields":[{"manager":"bench","operation":"Update","fieldsV1":{"f:spec":{".":{}}}}]},"spec":{"destination":"Urgent","weight":5}}`
	body := []byte(`{"items":[` + strings.TrimSuffix(strings.Repeat(item+",", 1000), ",") + `]}`)
	b.SetBytes(int64(len(body)))
	for i := 0; i < b.N; i++ {
		if n, err := countItemsIn(body); err != nil || n != 1000 {
			b.Fatal(n, err)
		}
	}
}

func BenchmarkCountItemsJSON(b *testing.B) {
	item := `{"metadata":{"name":"s-1","namespace":"ns-0","uid":"6f1c","labels":{"bench":"true"},"managedFields":[{"manager":"bench","operation":"Update","fieldsV1":{"f:spec":{".":{}}}}]},"spec":{"destination":"Urgent","weight":5}}`
	body := []byte(`{"items":[` + strings.TrimSuffix(strings.Repeat(item+",", 1000), ",") + `]}`)
	b.SetBytes(int64(len(body)))
	for i := 0; i < b.N; i++ {
		var l struct {
			Items []json.RawMessage `json:"items"`
		}
		if err := json.Unmarshal(body, &l); err != nil {
			b.Fatal(err)
		}
	}
}

// Random JSON lists: the scan, whole and chunked, agrees with encoding/json
// on the count and on whether the body is a list at all.
func TestCountItemsRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(26, 29))
	var value func(depth int) string
	str := func() string {
		alphabet := []string{"a", "items", `\"`, `\\`, "[", "]", "{", "}", ",", ":", " ", `\u00e9`, "é"}
		var b strings.Builder
		b.WriteByte('"')
		for n := rng.IntN(6); n > 0; n-- {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		b.WriteByte('"')
		return b.String()
	}
	value = func(depth int) string {
		switch k := rng.IntN(6); {
		case depth > 3 || k == 0:
			return []string{"1", "-2.5e3", "true", "false", "null"}[rng.IntN(5)]
		case k == 1:
			return str()
		case k < 4:
			var parts []string
			for n := rng.IntN(4); n > 0; n-- {
				parts = append(parts, value(depth+1))
			}
			return "[" + strings.Join(parts, ", ") + "]"
		default:
			var parts []string
			for n := rng.IntN(4); n > 0; n-- {
				parts = append(parts, str()+":"+value(depth+1))
			}
			return "{" + strings.Join(parts, ",") + "}"
		}
	}
	checked := 0
	for round := 0; round < 3000; round++ {
		var fields []string
		for n := rng.IntN(3); n > 0; n-- {
			fields = append(fields, str()+":"+value(1))
		}
		if rng.IntN(8) > 0 {
			var items []string
			for n := rng.IntN(6); n > 0; n-- {
				items = append(items, value(2))
			}
			fields = append(fields, `"items": [`+strings.Join(items, " ,")+"]")
		}
		rng.Shuffle(len(fields), func(i, j int) { fields[i], fields[j] = fields[j], fields[i] })
		body := "{" + strings.Join(fields, ",") + "}"
		if rng.IntN(10) == 0 { // sometimes cut short
			body = body[:rng.IntN(len(body))]
		}
		var l struct {
			Items *[]json.RawMessage `json:"items"`
		}
		derr := json.Unmarshal([]byte(body), &l)
		want, wantOK := 0, derr == nil && l.Items != nil
		if wantOK {
			want = len(*l.Items)
		}
		// encoding/json takes the last of repeated keys; the scan counts
		// the first items array. A body with two is not a list.
		if strings.Count(body, `"items"`) > 1 {
			continue
		}
		for _, r := range []io.Reader{strings.NewReader(body), iotest.OneByteReader(strings.NewReader(body)), &oddChunks{s: body}} {
			got, err := countItems(r)
			if wantOK && (err != nil || got != want) {
				t.Fatalf("%s: %T counted %d, %v; encoding/json finds %d", body, r, got, err, want)
			}
			if derr != nil && err == nil {
				t.Fatalf("%s: %T counted %d; encoding/json says %v", body, r, got, derr)
			}
		}
		checked++
	}
	if checked < 1000 {
		t.Fatalf("only %d of 3000 bodies checked", checked)
	}
}

// quoteOrBackslash finds the first '"' or '\\' as a byte loop does, at
// every position in a word and with neighbours that set high bits.
func TestQuoteOrBackslash(t *testing.T) {
	alphabet := []byte{'a', '"', '\\', 0x80, 0xff, 0x00, 0x21, 0x23, 0x5b, 0x5d, 0x01, 0xa2, 0xdc}
	rng := rand.New(rand.NewPCG(1, 2))
	for round := 0; round < 20000; round++ {
		b := make([]byte, rng.IntN(40))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
			if rng.IntN(3) > 0 {
				b[i] = alphabet[0]
			}
		}
		want := len(b)
		for i, c := range b {
			if c == '"' || c == '\\' {
				want = i
				break
			}
		}
		if got := quoteOrBackslash(b); got != want {
			t.Fatalf("%q: got %d, want %d", b, got, want)
		}
	}
}

// A list of 1,000 Shipments as the apiserver serves them (1.1 KB each,
// managedFields included).
func BenchmarkCountItemsShipments(b *testing.B) {
	item := `{"kind":"Shipment","apiVersion":"shipping.kubeforge.dev/v1","metadata":{"name":"s-000001","namespace":"bench-0","uid":"c4ff3b4b-32b1-47a3-9f84-ebe7be33ce56","resourceVersion":"25","generation":1,"creationTimestamp":"2026-11-29T04:48:24Z","labels":{"bench":"true"},"managedFields":[{"manager":"bench","operation":"Update","apiVersion":"shipping.kubeforge.dev/v1","time":"2026-11-29T04:48:24Z","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:labels":{".":{},"f:bench":{}}},"f:spec":{"f:delayTolerance":{},"f:destination":{"f:city":{},"f:country":{},"f:street":{}},"f:handlingTime":{},"f:intervalMinutes":{},"f:origin":{"f:city":{},"f:country":{},"f:street":{}},"f:parcels":{"k:{\"name\":\"box\"}":{".":{},"f:count":{},"f:name":{},"f:weight":{}}},"f:priority":{},"f:tags":{".":{},"v:\"bench\"":{}}}}}]},"spec":{"priority":"Normal","origin":{"street":"Hauptstr. 1","city":"Berlin","country":"DE"},"destination":{"street":"High St 2","city":"London","country":"GB"},"parcels":[{"name":"box","weight":"2500","count":2}],"tags":["bench"],"handlingTime":"24h0m0s","delayTolerance":"10%","intervalMinutes":15},"status":{}}`
	body := []byte(`{"kind":"ShipmentList","apiVersion":"shipping.kubeforge.dev/v1","metadata":{"resourceVersion":"9"},"items":[` + strings.TrimSuffix(strings.Repeat(item+",", 1000), ",") + `]}`)
	b.SetBytes(int64(len(body)))
	for i := 0; i < b.N; i++ {
		if n, err := countItemsIn(body); err != nil || n != 1000 {
			b.Fatal(n, err)
		}
	}
}
