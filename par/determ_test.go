package par_test

import (
	"cmp"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/fjkit/fjkit/forkjoin"
	"github.com/fjkit/fjkit/par"
)

// The serial references of the documented trees (see the package doc,
// ReduceRange and Scan), written from the docs alone.

// treeOf combines leaf(0), ..., leaf(m-1) over the package doc's tree.
func treeOf[R any](a, m int, leaf func(j int) R, combine func(R, R) R) R {
	if m == 1 {
		return leaf(a)
	}
	p := 1 << (bits.Len(uint(m-1)) - 1)
	return combine(treeOf(a, p, leaf, combine), treeOf(a+p, m-p, leaf, combine))
}

// refLeaf is ReduceRange's leaf length over n indices.
func refLeaf(n int) int {
	l := 1
	for (n+l-1)/l > 1024 {
		l *= 2
	}
	return l
}

func refReduceRange[R any](n int, body func(lo, hi int) R, combine func(R, R) R) R {
	l := refLeaf(n)
	return treeOf(0, (n+l-1)/l, func(j int) R { return body(j*l, min(j*l+l, n)) }, combine)
}

// refScanLeaf is Scan's leaf length over n elements.
func refScanLeaf(n int) int {
	k := 0
	for 1<<k < n {
		k++
	}
	return 1 << max(0, min(k-3, max(13, k-8)))
}

func refScan(s []float64, op func(a, b float64) float64) []float64 {
	r := make([]float64, len(s))
	l := refScanLeaf(len(s))
	var carry float64
	for a := 0; a < len(s); a += l {
		b := min(a+l, len(s))
		acc := s[a]
		if a > 0 {
			acc = op(carry, s[a])
		}
		r[a] = acc
		tot := s[a]
		for i := a + 1; i < b; i++ {
			acc = op(acc, s[i])
			tot = op(tot, s[i])
			r[i] = acc
		}
		if a == 0 {
			carry = tot
		} else {
			carry = op(carry, tot)
		}
	}
	return r
}

// pick is MinFunc's combine: the second only if it is less.
type item struct {
	v float64
	i int
}

// looseCmp is no strict weak order: it calls a NaN equal to everything.
func looseCmp(a, b item) int {
	switch {
	case a.v < b.v:
		return -1
	case a.v > b.v:
		return 1
	}
	return 0
}

func refMinFunc(x []item, c func(a, b item) int) item {
	return refReduceRange(len(x), func(lo, hi int) item { return slices.MinFunc(x[lo:hi], c) }, func(a, b item) item {
		if c(b, a) < 0 {
			return b
		}
		return a
	})
}

func fadd(a, b float64) float64 { return a + b }
func fmul(a, b float64) float64 { return a * b }

// mixed returns n float64s of magnitudes from 1e-8 to 1e8 and both signs;
// nearOne n factors 1+d, d of magnitudes from 1e-12 to 1e-3 (a product of
// millions of them neither overflows nor underflows).
func mixed(n int, seed uint64) []float64 {
	r := rand.New(rand.NewPCG(seed, uint64(n)))
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = (r.Float64() - 0.5) * math.Pow(10, float64(r.IntN(17)-8))
	}
	return xs
}

func nearOne(n int, seed uint64) []float64 {
	r := rand.New(rand.NewPCG(seed, uint64(n)))
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = 1 + (r.Float64()-0.5)*math.Pow(10, -float64(3+r.IntN(10)))
	}
	return xs
}

// results is what one round of every call gives.
type results struct {
	reduce, reduceRange, minLoose, maxLoose float64
	minIdx, maxIdx                          int
	scan                                    []float64
}

type detCase struct {
	name    string
	xs      []float64
	items   []item
	id      float64
	combine func(a, b float64) float64
}

func runAll(c detCase) results {
	xs := c.xs
	var r results
	r.reduce = par.Reduce(xs, c.id, func(x float64) float64 { return x }, c.combine)
	r.reduceRange = par.ReduceRange(len(xs), c.id, func(lo, hi int) float64 {
		acc := xs[lo]
		for _, x := range xs[lo+1 : hi] {
			acc = c.combine(acc, x)
		}
		return acc
	}, c.combine)
	r.scan = par.Scan(xs, c.combine)
	mn := par.MinFunc(c.items, looseCmp)
	mx := par.MaxFunc(c.items, looseCmp)
	r.minLoose, r.minIdx, r.maxLoose, r.maxIdx = mn.v, mn.i, mx.v, mx.i
	return r
}

func refAll(c detCase) results {
	xs := c.xs
	var r results
	r.reduce = treeOf(0, len(xs), func(j int) float64 { return xs[j] }, c.combine)
	r.reduceRange = refReduceRange(len(xs), func(lo, hi int) float64 {
		acc := xs[lo]
		for _, x := range xs[lo+1 : hi] {
			acc = c.combine(acc, x)
		}
		return acc
	}, c.combine)
	r.scan = refScan(xs, c.combine)
	mn := refMinFunc(c.items, looseCmp)
	mx := refMinFunc(c.items, func(a, b item) int { return -looseCmp(a, b) })
	r.minLoose, r.minIdx, r.maxLoose, r.maxIdx = mn.v, mn.i, mx.v, mx.i
	return r
}

// same compares two results bit for bit (a NaN equals a NaN of the same
// bits) and describes the first difference.
func same(got, want results) string {
	eq := func(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }
	switch {
	case !eq(got.reduce, want.reduce):
		return fmt.Sprintf("Reduce %v, want %v", got.reduce, want.reduce)
	case !eq(got.reduceRange, want.reduceRange):
		return fmt.Sprintf("ReduceRange %v, want %v", got.reduceRange, want.reduceRange)
	case got.minIdx != want.minIdx || !eq(got.minLoose, want.minLoose):
		return fmt.Sprintf("MinFunc element %d, want %d", got.minIdx, want.minIdx)
	case got.maxIdx != want.maxIdx || !eq(got.maxLoose, want.maxLoose):
		return fmt.Sprintf("MaxFunc element %d, want %d", got.maxIdx, want.maxIdx)
	}
	for i := range want.scan {
		if !eq(got.scan[i], want.scan[i]) {
			return fmt.Sprintf("Scan[%d] %v, want %v", i, got.scan[i], want.scan[i])
		}
	}
	return ""
}

// items makes MinFunc's input from xs: a few NaNs, which looseCmp calls
// equal to everything, and repeated values, so that which element wins
// depends on the grouping of the comparisons.
func items(xs []float64) []item {
	its := make([]item, len(xs))
	for i, x := range xs {
		its[i] = item{math.Round(x*4) / 4, i}
		if i%97 == 13 {
			its[i].v = math.NaN()
		}
	}
	return its
}

// TestDeterministic: Reduce, ReduceRange, Scan (every element), MinFunc
// and MaxFunc give the bits of the documented trees for float sums and
// products of mixed magnitudes, at 1 to 4 workers, in both modes, on 20
// runs each: called from a task of the pool (with the heartbeat's splits),
// with every call forced parallel in pieces of several sizes, and from
// outside any task on the default pool. The sizes: below a leaf, a few
// leaves, and (without -short) 10⁷.
func TestDeterministic(t *testing.T) {
	ns := []int{1, 5, 8, 100, 1000, 3000, 20_000, 70_000}
	if !testing.Short() && !raceEnabled {
		ns = append(ns, 10_000_000)
	}
	for _, n := range ns {
		runs := 20
		if raceEnabled && n > 10_000 {
			runs = 3
		}
		for _, c := range []detCase{
			{name: "sum", xs: mixed(n, 1), id: 0, combine: fadd},
			{name: "product", xs: nearOne(n, 2), id: 1, combine: fmul},
		} {
			c.items = items(c.xs)
			want := refAll(c)
			check := func(where string, got results) {
				t.Helper()
				if d := same(got, want); d != "" {
					t.Fatalf("%s of %d, %s: %s", c.name, n, where, d)
				}
			}
			for run := range runs {
				check(fmt.Sprintf("default pool, run %d", run), runAll(c))
			}
			for _, mode := range []forkjoin.Mode{forkjoin.WorkStealing, forkjoin.SharedQueue} {
				for workers := 1; workers <= 4; workers++ {
					p := forkjoin.New(forkjoin.Workers(workers), forkjoin.WithMode(mode))
					for run := range runs {
						check(fmt.Sprintf("%v, %d workers, run %d", mode, workers, run),
							forkjoin.Invoke(p, func(*forkjoin.Worker) results { return runAll(c) }))
					}
					for _, grain := range []int{1, 3, 64} {
						restore := par.ForceParallel(grain)
						check(fmt.Sprintf("%v, %d workers, forced parallel in pieces of %d, in a task", mode, workers, grain),
							forkjoin.Invoke(p, func(*forkjoin.Worker) results { return runAll(c) }))
						check(fmt.Sprintf("forced parallel in pieces of %d, default pool", grain), runAll(c))
						restore()
					}
					p.Close()
				}
			}
		}
	}
}

// TestMinMaxExact: Min and Max, whose min and max are exact, give
// slices.Min's and slices.Max's bits, signed zeros and NaNs included,
// whatever the pieces.
func TestMinMaxExact(t *testing.T) {
	for _, n := range []int{1, 7, 1000, 100_000} {
		xs := mixed(n, 3)
		for i := range xs {
			if i%5 == 0 {
				xs[i] = math.Copysign(0, xs[i])
			}
		}
		for _, grain := range []int{0, 1, 3} {
			restore := func() {}
			if grain > 0 {
				restore = par.ForceParallel(grain)
			}
			if got, want := par.Min(xs), slices.Min(xs); math.Float64bits(got) != math.Float64bits(want) {
				t.Errorf("Min of %d, pieces of %d: %v, want %v", n, grain, got, want)
			}
			if got, want := par.Max(xs), slices.Max(xs); math.Float64bits(got) != math.Float64bits(want) {
				t.Errorf("Max of %d, pieces of %d: %v, want %v", n, grain, got, want)
			}
			restore()
		}
	}
	_ = cmp.Compare[int]
}
