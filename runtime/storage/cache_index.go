package storage

import (
	"slices"

	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/selection"

	"github.com/kubeforge/kubeforge/runtime/resource"
)

// cacheIndex maps every label pair and selectable field value of the
// cached objects to their keys, so that a selector with an equality
// (app=web, spec.node=n1) reads the objects it names instead of scanning
// the collection. The caller holds the cache's lock.
type cacheIndex struct {
	sets map[string]map[string]struct{}
	// fieldsOf is the kind's selectable field set function (any type:
	// Strategy.SelectableFields), nil when it selects on metadata only.
	fieldsOf any
}

func newCacheIndex[T resource.Object](fieldsOf func(T) fields.Set) *cacheIndex {
	x := &cacheIndex{sets: map[string]map[string]struct{}{}}
	if fieldsOf != nil {
		x.fieldsOf = fieldsOf
	}
	return x
}

func labelTerm(k, v string) string { return "l\x00" + k + "\x00" + v }
func fieldTerm(k, v string) string { return "f\x00" + k + "\x00" + v }

// indexedField: metadata.name and metadata.namespace are read from keys.
func indexedField(f string) bool { return f != "metadata.name" && f != "metadata.namespace" }

func terms[T resource.Object](e *cacheEntry[T], f func(term string)) {
	e.labels.each(func(k, v string) bool {
		f(labelTerm(k, v))
		return true
	})
	e.fields.set(e.name, e.ns).each(func(k, v string) bool {
		if indexedField(k) {
			f(fieldTerm(k, v))
		}
		return true
	})
}

func addEntry[T resource.Object](x *cacheIndex, e *cacheEntry[T]) {
	terms(e, func(t string) {
		s := x.sets[t]
		if s == nil {
			s = map[string]struct{}{}
			x.sets[t] = s
		}
		s[e.key] = struct{}{}
	})
}

func removeEntry[T resource.Object](x *cacheIndex, e *cacheEntry[T]) {
	terms(e, func(t string) {
		if s := x.sets[t]; s != nil {
			delete(s, e.key)
			if len(s) == 0 {
				delete(x.sets, t)
			}
		}
	})
}

// lookup returns, in key order, the keys of the objects that can match p
// by its most selective indexed equality, when that names fewer than
// limit objects; ok is false when no requirement of p is indexed or the
// best one is not selective enough to beat a scan.
func (x *cacheIndex) lookup(p predicate, limit int) (keys []string, ok bool) {
	var best []map[string]struct{}
	bestSize := -1
	consider := func(terms []string) {
		var sets []map[string]struct{}
		size := 0
		for _, t := range terms {
			if s := x.sets[t]; s != nil {
				sets = append(sets, s)
				size += len(s)
			}
		}
		if bestSize < 0 || size < bestSize {
			best, bestSize = sets, size
		}
	}
	if reqs, selectable := p.label.Requirements(); selectable {
		for _, r := range reqs {
			switch r.Operator() {
			case selection.Equals, selection.DoubleEquals, selection.In:
				var terms []string
				for _, v := range r.Values().UnsortedList() {
					terms = append(terms, labelTerm(r.Key(), v))
				}
				consider(terms)
			}
		}
	}
	if x.fieldsOf != nil && (p.fieldsOf == nil || p.own) {
		for _, r := range p.field.Requirements() {
			if (r.Operator == selection.Equals || r.Operator == selection.DoubleEquals) && indexedField(r.Field) {
				consider([]string{fieldTerm(r.Field, r.Value)})
			}
		}
	}
	if bestSize < 0 || bestSize >= limit {
		return nil, false
	}
	keys = make([]string, 0, bestSize)
	for _, s := range best {
		for k := range s {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return slices.Compact(keys), true
}

// selectsAll reports whether p is one label requirement (=, == or in) the
// index says every one of the n cached objects meets: a list then takes
// them all without matching each (a collection whose objects all carry
// the label it is listed by).
func (x *cacheIndex) selectsAll(p predicate, n int) bool {
	if !p.field.Empty() {
		return false
	}
	reqs, selectable := p.label.Requirements()
	if !selectable || len(reqs) != 1 {
		return false
	}
	r := reqs[0]
	switch r.Operator() {
	case selection.Equals, selection.DoubleEquals, selection.In:
	default:
		return false
	}
	size := 0
	for v := range r.Values() { // an object has one value per key: disjoint sets
		size += len(x.sets[labelTerm(r.Key(), v)])
	}
	return size == n
}
