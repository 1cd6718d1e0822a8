package par_test

import (
	"cmp"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/fjkit/fjkit/par"
)

func TestMinMaxMatchSlices(t *testing.T) {
	for name, s := range inputs(t) {
		if len(s) == 0 {
			continue
		}
		if got, want := par.Min(s), slices.Min(s); got != want {
			t.Errorf("%s: Min = %d, want %d", name, got, want)
		}
		if got, want := par.Max(s), slices.Max(s); got != want {
			t.Errorf("%s: Max = %d, want %d", name, got, want)
		}
		// By x/100: many ties, and the first of them must win.
		type rec struct{ v, pos int }
		rs := make([]rec, len(s))
		for i, x := range s {
			rs[i] = rec{x / 100, i}
		}
		byV := func(a, b rec) int { return cmp.Compare(a.v, b.v) }
		if got, want := par.MinFunc(rs, byV), slices.MinFunc(rs, byV); got != want {
			t.Errorf("%s: MinFunc = %v, want %v", name, got, want)
		}
		if got, want := par.MaxFunc(rs, byV), slices.MaxFunc(rs, byV); got != want {
			t.Errorf("%s: MaxFunc = %v, want %v", name, got, want)
		}
	}
}

func TestMinMaxFloats(t *testing.T) {
	for _, n := range []int{10, 100000} {
		s := make([]float64, n)
		for i := range s {
			s[i] = float64(i%1000) - 500
		}
		s[n/2] = math.Copysign(0, -1)
		if got, want := par.Min(s), slices.Min(s); got != want {
			t.Errorf("n=%d: Min = %v, want %v", n, got, want)
		}
		s[n-3] = math.NaN()
		if !math.IsNaN(par.Min(s)) || !math.IsNaN(par.Max(s)) {
			t.Errorf("n=%d: Min, Max with a NaN = %v, %v; want NaN as slices has", n, par.Min(s), par.Max(s))
		}
	}
}

func TestMinMaxEmptyPanics(t *testing.T) {
	for name, fn := range map[string]func(){
		"Min":     func() { par.Min([]int{}) },
		"Max":     func() { par.Max([]float64(nil)) },
		"MinFunc": func() { par.MinFunc([]int{}, cmp.Compare[int]) },
		"MaxFunc": func() { par.MaxFunc([]int{}, cmp.Compare[int]) },
	} {
		func() {
			defer func() {
				if v, _ := recover().(string); !strings.Contains(v, "par."+name+": empty list") {
					t.Errorf("%s of an empty slice: panic %q, want par.%s: empty list", name, v, name)
				}
			}()
			fn()
		}()
	}
}
