package presence

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

const doc = `{
  "spec": {"replicas": 0, "enabled": false, "name": "", "gone": null,
           "esc\u0061ped": 1, "dup": null, "dup": 0,
           "items": [{"count": 0}, null, {"other": "x]}\"{"}, {}],
           "byName": {"a": {"count": 0}, "b": {}, "c": null}},
  "list": [1, "two", [3], {"four": 4}]
}`

// nodes is the same document through each source that reads one.
func nodes(t *testing.T) map[string]Node {
	var u map[string]any
	if err := json.Unmarshal([]byte(doc), &u); err != nil {
		t.Fatal(err)
	}
	return map[string]Node{"json": JSON([]byte(doc)), "unstructured": Unstructured(u)}
}

func TestFields(t *testing.T) {
	for name, root := range nodes(t) {
		spec := root.Field("spec")
		for key, want := range map[string]bool{
			"replicas": true, "enabled": true, "name": true, "gone": false,
			"escaped": true, "dup": true, "missing": false, "items": true,
		} {
			if got := spec.Has(key); got != want {
				t.Errorf("%s: spec.Has(%q) = %v, want %v", name, key, got, want)
			}
		}
		if root.Has("replicas") || root.Field("list").Has("four") || spec.Field("replicas").Has("x") {
			t.Errorf("%s: a key of a nested object, an array or a number counts as present", name)
		}

		it := spec.Field("items").Items()
		var got []bool
		for range 5 {
			got = append(got, it.Next().Has("count"))
		}
		if want := []bool{true, false, false, false, false}; !slices.Equal(got, want) {
			t.Errorf("%s: items' count present = %v, want %v", name, got, want)
		}
		it = spec.Field("items").Items()
		it.Next()
		if it.Next().src != none {
			t.Errorf("%s: a null item is not the zero Node", name)
		}
		if !it.Next().Has("other") {
			t.Errorf("%s: the item after a null one is lost", name)
		}

		m := spec.Field("byName").Members()
		if !m.Get("a").Has("count") || m.Get("b").Has("count") || m.Get("c").src != none || m.Get("z").src != none {
			t.Errorf("%s: map members read wrong", name)
		}
	}
}

func TestNoneAndMarshaled(t *testing.T) {
	var zero Node
	it := zero.Items()
	if zero.Has("a") || zero.Field("a").Has("b") || it.Next().Has("a") || zero.Members().Get("a").Has("b") {
		t.Error("the zero Node has a field")
	}
	it = Marshaled.Items()
	if !Marshaled.Has("a") || !Marshaled.Field("a").Has("b") || !it.Next().Has("a") || !Marshaled.Members().Get("k").Has("b") {
		t.Error("Marshaled lacks a field")
	}
	for _, in := range []string{"", "  ", "0", `"s"`, "\x0a\x03abc"} {
		if JSON([]byte(in)).src != none {
			t.Errorf("JSON(%q) is not the zero Node", in)
		}
	}
	if Unstructured(nil).src != none {
		t.Error("Unstructured(nil) is not the zero Node")
	}
}

// FuzzJSON: no input that decodes makes a question panic or loop.
func FuzzJSON(f *testing.F) {
	f.Add([]byte(doc), "spec")
	f.Add([]byte(`{"a":[{"b":"\"}"}]}`), "a")
	f.Fuzz(func(t *testing.T, data []byte, key string) {
		var v any
		if json.Unmarshal(data, &v) != nil {
			return
		}
		n := JSON(data)
		// The first question scans, later ones read the index: both
		// answer as decoding does.
		if m, ok := v.(map[string]any); ok && utf8.Valid(data) {
			for range 3 {
				if got, want := n.Has(key), m[key] != nil; got != want {
					t.Fatalf("Has(%q) = %v, decoding says %v", key, got, want)
				}
			}
		}
		n.Has(key)
		f := n.Field(key)
		f.Members().Get(key)
		it := f.Items()
		for range len(data) + 1 {
			it.Next().Has(key)
		}
	})
}

// BenchmarkFieldSpec: what a create of the acceptance Gadget pays for its
// validation's walk (spec, then a key inside it).
func BenchmarkFieldSpec(b *testing.B) {
	body := []byte(`{"apiVersion":"acceptance.example.dev/v1","kind":"Gadget","metadata":{"name":"g-000123","namespace":"default","labels":{"app":"bench","tier":"x"},"annotations":{"a":"b"}},"spec":{"size":"medium","replicas":2,"owner":"ops@example.dev","tags":["a","b","c"],"parts":[{"name":"p1","count":1},{"name":"p2","count":2}],"window":{"start":"2026-01-01T00:00:00Z","duration":"1h0m0s"}}}`)
	b.ReportAllocs()
	for b.Loop() {
		spec := JSON(body).Field("spec")
		if !spec.Has("owner") {
			b.Fatal("owner")
		}
		it := spec.Field("parts").Items()
		it.Next().Has("name")
	}
}

// TestAbsentAndSent: Absent is known only from a request's JSON (or its
// unstructured form); Sent never holds for an object encoded from Go.
func TestAbsentAndSent(t *testing.T) {
	j := JSON([]byte(`{"spec":{"port":0,"name":null}}`))
	spec := j.Field("spec")
	if spec.Absent("port") || !spec.Absent("secure") || !spec.Absent("name") || !spec.Sent("port") || spec.Sent("secure") {
		t.Errorf("JSON: Absent port %v secure %v name %v; Sent port %v secure %v",
			spec.Absent("port"), spec.Absent("secure"), spec.Absent("name"), spec.Sent("port"), spec.Sent("secure"))
	}
	u := Unstructured(map[string]any{"spec": map[string]any{"port": int64(0)}}).Field("spec")
	if u.Absent("port") || !u.Absent("secure") {
		t.Errorf("unstructured: Absent port %v secure %v", u.Absent("port"), u.Absent("secure"))
	}
	for name, n := range map[string]Node{"Marshaled": Marshaled, "zero": {}} {
		if n.Absent("port") || n.Sent("port") || n.Field("spec").Absent("port") {
			t.Errorf("%s: Absent or Sent holds; want neither (nothing is known from JSON)", name)
		}
	}
}

// BenchmarkEveryField: a generated validator asks an object about each of
// its fields; with a large value among them (a 1,000-item list) each
// question used to scan past it again.
func BenchmarkEveryField(b *testing.B) {
	var sb strings.Builder
	sb.WriteString(`{"spec":{"items":[`)
	for i := range 1000 {
		if i > 0 {
			sb.WriteByte(',')
		}
		fmt.Fprintf(&sb, `{"name":"item-%d","value":%d}`, i, i)
	}
	sb.WriteString(`]`)
	keys := make([]string, 40)
	for i := range keys {
		keys[i] = fmt.Sprintf("field%02d", i)
		fmt.Fprintf(&sb, `,%q:%d`, keys[i], i)
	}
	sb.WriteString(`}}`)
	body := []byte(sb.String())
	b.ReportAllocs()
	for b.Loop() {
		spec := JSON(body).Field("spec")
		for _, k := range keys {
			if !spec.Has(k) {
				b.Fatal(k)
			}
		}
	}
}
