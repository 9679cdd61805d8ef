package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
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
}

func BenchmarkCountItems(b *testing.B) {
	item := `{"metadata":{"name":"s-1","namespace":"ns-0","uid":"6f1c","labels":{"bench":"true"},"managedFields":[{"manager":"bench","operation":"Update","fieldsV1":{"f:spec":{".":{}}}}]},"spec":{"destination":"Urgent","weight":5}}`
	body := `{"items":[` + strings.TrimSuffix(strings.Repeat(item+",", 1000), ",") + `]}`
	b.SetBytes(int64(len(body)))
	for i := 0; i < b.N; i++ {
		if n, err := countItemsIn([]byte(body)); err != nil || n != 1000 {
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
