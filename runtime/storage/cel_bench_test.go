package storage

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kubeforge/kubeforge/runtime/cel"
)

// widgetRules are three CEL rules on the widget's spec, of the kinds users
// write: a bound, a cross-field check and a string test.
var widgetRules = &cel.Rules{Root: "dev.kubeforge.test.v1.Widget", Schemas: func() map[string]json.RawMessage {
	return map[string]json.RawMessage{
		"dev.kubeforge.test.v1.Widget": json.RawMessage(`{"type":"object","properties":{
			"apiVersion":{"type":"string"},"kind":{"type":"string"},
			"metadata":{"$ref":"#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"},
			"spec":{"type":"object","properties":{
				"size":{"type":"integer"},"color":{"type":"string","maxLength":32}},
				"x-kubernetes-validations":[
					{"rule":"self.size >= 0","message":"size must not be negative"},
					{"rule":"!has(self.color) || self.color != 'red' || self.size < 100","message":"red widgets are small"},
					{"rule":"!has(self.color) || self.color.matches('^[a-z]*$')","message":"colors are lower case"}]},
			"status":{"type":"object","properties":{"phase":{"type":"string"}}}}}`),
	}
}}

// BenchmarkCreateWithCELRules is BenchmarkCreate with the three rules
// above: the README's CEL cost figure compares the two
// (go test -bench 'Create' ./runtime/storage).
func BenchmarkCreateWithCELRules(b *testing.B) {
	f := newFixture(b, true, true)
	if err := widgetRules.Compile(); err != nil {
		b.Fatal(err)
	}
	f.st.s.Rules = func(ctx context.Context, obj, old *Widget) field.ErrorList {
		if old == nil {
			return widgetRules.Validate(ctx, obj, nil)
		}
		return widgetRules.Validate(ctx, obj, old)
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		mustCreate(b, f, widget("ns", fmt.Sprintf("w%d", i), 1))
		i++
	}
}

func TestWidgetRules(t *testing.T) {
	f := newFixture(t, true, true)
	if err := widgetRules.Compile(); err != nil {
		t.Fatal(err)
	}
	f.st.s.Rules = func(ctx context.Context, obj, old *Widget) field.ErrorList {
		if old == nil {
			return widgetRules.Validate(ctx, obj, nil)
		}
		return widgetRules.Validate(ctx, obj, old)
	}
	w := widget("ns", "red", 200)
	w.Spec.Color = "red"
	if _, err := f.st.Create(ctx, w, CreateOptions{}); err == nil {
		t.Fatal("a big red widget was stored")
	}
	mustCreate(t, f, widget("ns", "ok", 1))
}

// BenchmarkCELValidate is the rules' own cost per object, without etcd.
func BenchmarkCELValidate(b *testing.B) {
	if err := widgetRules.Compile(); err != nil {
		b.Fatal(err)
	}
	w := widget("ns", "w", 1)
	w.Spec.Color = "blue"
	b.ReportAllocs()
	for b.Loop() {
		if errs := widgetRules.Validate(context.Background(), w, nil); len(errs) > 0 {
			b.Fatal(errs)
		}
	}
}
