package forkjoin_test

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"testing"

	"github.com/fjkit/fjkit/forkjoin"
)

// mixedFloats returns n float64s of magnitudes from 1e-8 to 1e8 and both
// signs, so that a sum's last bits depend on the order of its additions.
func mixedFloats(n int, seed uint64) []float64 {
	r := rand.New(rand.NewPCG(seed, uint64(n)))
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = (r.Float64() - 0.5) * math.Pow(10, float64(r.IntN(17)-8))
	}
	return xs
}

// nearOne returns n factors 1+d, d of magnitudes from 1e-12 to 1e-3 and
// both signs: a product's last bits depend on its grouping, and a product
// of millions neither overflows nor underflows.
func nearOne(n int, seed uint64) []float64 {
	r := rand.New(rand.NewPCG(seed, uint64(n)))
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = 1 + (r.Float64()-0.5)*math.Pow(10, -float64(3+r.IntN(10)))
	}
	return xs
}

// treeReduce is the serial reference of forkjoin.Reduce's documented tree.
func treeReduce(xs []float64, lo, n int, combine func(x, y float64) float64) float64 {
	if n == 1 {
		return xs[lo]
	}
	p := 1 << (bits.Len(uint(n-1)) - 1)
	return combine(treeReduce(xs, lo, p, combine), treeReduce(xs, lo+p, n-p, combine))
}

func add(x, y float64) float64 { return x + y }
func mul(x, y float64) float64 { return x * y }

// TestReduceDeterministic: Reduce and ReduceW return the bits of the
// documented tree for float sums and products, at every worker count, in
// both modes, on every run, called at a task's top and deep in a recursion
// (where they start inline).
func TestReduceDeterministic(t *testing.T) {
	ns := []int{1, 2, 3, 5, 15, 16, 17, 100, 1000, 4097, 1<<16 + 3}
	runs := 20
	if !testing.Short() {
		ns = append(ns, 1_000_003)
	}
	for _, mode := range []forkjoin.Mode{forkjoin.WorkStealing, forkjoin.SharedQueue} {
		for workers := 1; workers <= 4; workers++ {
			p := newPool(t, forkjoin.Workers(workers), forkjoin.WithMode(mode))
			for _, n := range ns {
				for _, c := range []struct {
					name    string
					xs      []float64
					zero    float64
					combine func(x, y float64) float64
				}{{"sum", mixedFloats(n, 1), 0, add}, {"product", nearOne(n, 2), 1, mul}} {
					want := treeReduce(c.xs, 0, n, c.combine)
					xs := c.xs
					at := func(i int) float64 { return xs[i] }
					atW := func(_ *forkjoin.Worker, i int) float64 { return xs[i] }
					k := runs
					if n > 100_000 || raceEnabled && n > 5000 {
						k = 3
					}
					for run := range k {
						got := forkjoin.Invoke(p, func(w *forkjoin.Worker) float64 { return forkjoin.Reduce(w, 0, n, c.zero, at, c.combine) })
						gotW := forkjoin.Invoke(p, func(w *forkjoin.Worker) float64 { return forkjoin.ReduceW(w, 0, n, c.zero, atW, c.combine) })
						// A reduction of a shifted range counts its tree from its own lo.
						shifted := forkjoin.Invoke(p, func(w *forkjoin.Worker) float64 {
							return forkjoin.Reduce(w, 3, n+3, c.zero, func(i int) float64 { return xs[i-3] }, c.combine)
						})
						if got != want || gotW != want || shifted != want {
							t.Fatalf("%v, %d workers, %s of %d, run %d: Reduce %v, ReduceW %v, shifted %v, want %v",
								mode, workers, c.name, n, run, got, gotW, shifted, want)
						}
					}
					if n <= 100 || n <= 4097 && !raceEnabled {
						// Deep in a recursion of joins, with a reduction per leaf.
						got := forkjoin.Invoke(p, func(w *forkjoin.Worker) bool { return deepReduce(w, 10, xs, c.zero, c.combine, want) })
						if !got {
							t.Fatalf("%v, %d workers, %s of %d: a reduction deep in a recursion differs", mode, workers, c.name, n)
						}
					}
				}
			}
		}
	}
}

// deepReduce recurses depth levels of joins and, at each leaf, compares a
// Reduce and a ReduceW of xs with want.
func deepReduce(w *forkjoin.Worker, depth int, xs []float64, zero float64, combine func(x, y float64) float64, want float64) bool {
	if depth == 0 {
		a := forkjoin.Reduce(w, 0, len(xs), zero, func(i int) float64 { return xs[i] }, combine)
		b := forkjoin.ReduceW(w, 0, len(xs), zero, func(_ *forkjoin.Worker, i int) float64 { return xs[i] }, combine)
		return a == want && b == want
	}
	x, y := forkjoin.Join(w,
		func(w *forkjoin.Worker) bool { return deepReduce(w, depth-1, xs, zero, combine, want) },
		func(w *forkjoin.Worker) bool { return deepReduce(w, depth-1, xs, zero, combine, want) })
	return x && y
}

// TestReduceAllocations: the stack of partial results costs no allocation
// once the worker's records are warm, at a task's top (a lazy frame) and
// deep in a recursion (inline, small and large ranges).
func TestReduceAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates on its own")
	}
	p := newPool(t, forkjoin.Workers(1))
	xs := mixedFloats(100_000, 3)
	at := func(i int) float64 { return xs[i] }
	forkjoin.Run(p, func(w *forkjoin.Worker) {
		for _, n := range []int{10, 1000, len(xs)} {
			forkjoin.Reduce(w, 0, n, 0, at, add) // warm the records
			if a := testing.AllocsPerRun(20, func() { forkjoin.Reduce(w, 0, n, 0, at, add) }); a != 0 {
				t.Errorf("Reduce of %d at a task's top: %.1f allocations, want 0", n, a)
			}
			deepN, deepAt = n, at
			deep := func() { deepFunc.Call(w, 12) }
			deep()
			if a := testing.AllocsPerRun(20, deep); a != 0 {
				t.Errorf("Reduce of %d deep in a recursion: %.1f allocations, want 0", n, a)
			}
		}
	})
}

// deepFunc joins depth levels of calls, the second of each pair doing
// nothing, then reduces [0, deepN) at the bottom.
var (
	deepFunc *forkjoin.Func[int, float64]
	deepN    int
	deepAt   func(int) float64
)

func init() {
	deepFunc = forkjoin.NewFunc(func(w *forkjoin.Worker, depth int) float64 {
		if depth == 0 {
			return forkjoin.Reduce(w, 0, deepN, 0, deepAt, add)
		}
		if depth < 0 {
			return 0
		}
		a, _ := deepFunc.Join(w, depth-1, -1)
		return a
	})
}
