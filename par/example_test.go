package par_test

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"strings"
	"sync/atomic"
	"time"

	"github.com/fjkit/fjkit/forkjoin"
	"github.com/fjkit/fjkit/par"
)

func ExampleSort() {
	s := []float64{3, math.NaN(), -1, math.Inf(1), 0, 2.5}
	par.Sort(s) // the order of slices.Sort: NaNs first
	fmt.Println(s)
	// Output: [NaN -1 0 2.5 3 +Inf]
}

func ExampleSortFunc() {
	type user struct {
		name string
		age  int
	}
	users := []user{{"ada", 36}, {"alan", 41}, {"grace", 85}, {"edsger", 72}}
	par.SortFunc(users, func(a, b user) int { return cmp.Compare(b.age, a.age) }) // oldest first
	fmt.Println(users)
	// Output: [{grace 85} {edsger 72} {alan 41} {ada 36}]
}

func ExampleSortStableFunc() {
	words := []string{"pear", "fig", "apple", "kiwi", "plum", "date"}
	// By length; words of equal length keep their order.
	par.SortStableFunc(words, func(a, b string) int { return cmp.Compare(len(a), len(b)) })
	fmt.Println(words)
	// Output: [fig pear kiwi plum date apple]
}

func ExampleFor() {
	squares := make([]int, 10)
	par.For(len(squares), func(i int) { squares[i] = i * i }) // each i writes only its own element
	fmt.Println(squares)
	// Output: [0 1 4 9 16 25 36 49 64 81]
}

func ExampleForRange() {
	// A cheap body over many indices: the loop over a piece is ours.
	xs := make([]float64, 1_000_000)
	par.ForRange(len(xs), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			xs[i] = float64(i) / 2
		}
	})
	fmt.Println(xs[0], xs[1], xs[len(xs)-1])
	// Output: 0 0.5 499999.5
}

func ExampleMap() {
	names := []string{"ada", "alan", "grace"}
	fmt.Println(par.Map(names, strings.ToUpper))
	// Output: [ADA ALAN GRACE]
}

func ExampleReduce() {
	words := []string{"fork", "join", "steal"}
	// Concatenation is associative but not commutative: the pieces are
	// combined in order.
	fmt.Println(par.Reduce(words, "", func(w string) string { return w + "/" }, func(a, b string) string { return a + b }))
	total := par.Reduce([]int{3, 1, 4, 1, 5}, 0, func(x int) int { return x * x }, func(a, b int) int { return a + b })
	fmt.Println(total)
	// Output:
	// fork/join/steal/
	// 52
}

func ExampleReduceRange() {
	xs := make([]uint64, 1_000_000)
	for i := range xs {
		xs[i] = uint64(i)
	}
	// The map (x*x) and the sum fused in the caller's loop over a piece:
	// no call per element, and no slice of squares.
	sum := par.ReduceRange(len(xs), 0, func(lo, hi int) uint64 {
		var acc uint64
		for _, x := range xs[lo:hi] {
			acc += x * x
		}
		return acc
	}, func(a, b uint64) uint64 { return a + b })
	fmt.Println(sum)
	// Output: 333332833333500000
}

func ExampleReduce_counts() {
	words := strings.Fields("to be or not to be")
	// A map is a safe zero: it is only the result for an empty slice, and
	// merge may update its first argument, which is always a map of
	// Reduce's own making (one from count, or from an earlier merge).
	count := func(w string) map[string]int { return map[string]int{w: 1} }
	merge := func(a, b map[string]int) map[string]int {
		for w, n := range b {
			a[w] += n
		}
		return a
	}
	fmt.Println(par.Reduce(words, map[string]int{}, count, merge))
	// Output: map[be:2 not:1 or:1 to:2]
}

func ExampleFilter() {
	evens := par.Filter([]int{5, 2, 8, 3, 6, 1}, func(x int) bool { return x%2 == 0 })
	fmt.Println(evens)
	// Output: [2 8 6]
}

func ExampleScan() {
	fmt.Println(par.Scan([]int{1, 2, 3, 4, 5}, func(a, b int) int { return a + b }))
	fmt.Println(par.Scan([]int{3, 1, 4, 1, 5}, func(a, b int) int { return max(a, b) }))
	// Output:
	// [1 3 6 10 15]
	// [3 3 4 4 5]
}

func ExampleIndexFunc() {
	s := []int{4, 8, 15, 16, 23, 42}
	fmt.Println(par.IndexFunc(s, func(x int) bool { return x > 10 })) // the lowest index
	fmt.Println(par.IndexFunc(s, func(x int) bool { return x < 0 }))
	// Output:
	// 2
	// -1
}

func ExampleContainsFunc() {
	s := []string{"go", "rust", "zig"}
	fmt.Println(par.ContainsFunc(s, func(x string) bool { return strings.HasPrefix(x, "ru") }))
	// Output: true
}

func ExampleForErr() {
	inputs := []string{"12", "7", "x", "40"}
	out := make([]int, len(inputs))
	err := par.ForErr(context.Background(), len(inputs), func(ctx context.Context, i int) error {
		if ctx.Err() != nil {
			return ctx.Err() // another body failed: stop early
		}
		var v int
		if _, err := fmt.Sscan(inputs[i], &v); err != nil {
			return fmt.Errorf("input %d: %w", i, errBadInput)
		}
		out[i] = v
		return nil
	})
	fmt.Println(err)
	fmt.Println(errors.Is(err, errBadInput))
	// Output:
	// input 2: bad input
	// true
}

var errBadInput = errors.New("bad input")

func ExampleMapErr() {
	paths := []string{"a.txt", "b.txt", "missing.txt", "c.txt"}
	sizes, err := par.MapErr(context.Background(), paths, func(ctx context.Context, p string) (int, error) {
		if strings.HasPrefix(p, "missing") {
			return 0, fmt.Errorf("open %s: %w", p, errNotFound)
		}
		return len(p), nil // stands for reading the file
	})
	fmt.Println(sizes, err)
	sizes, err = par.MapErr(context.Background(), paths[:2], func(ctx context.Context, p string) (int, error) { return len(p), nil })
	fmt.Println(sizes, err)
	// Output:
	// [] open missing.txt: not found
	// [5 5] <nil>
}

var errNotFound = errors.New("not found")

// A tree walked with one Group: each function spawns its children with Go
// from inside itself, and Wait at the root waits for the whole tree. The
// functions run on the default pool's workers, however deep the tree, with
// no goroutine per node.
func ExampleGroup() {
	type node struct {
		name     string
		size     int
		children []*node
	}
	root := &node{"/", 1, []*node{
		{"etc", 2, []*node{{"hosts", 3, nil}}},
		{"usr", 4, []*node{{"bin", 5, nil}, {"lib", 6, nil}}},
	}}
	var total atomic.Int64
	g, ctx := par.WithContext(context.Background())
	var walk func(n *node) func() error
	walk = func(n *node) func() error {
		return func() error {
			total.Add(int64(n.size))
			for _, c := range n.children {
				g.Go(walk(c))
			}
			return nil
		}
	}
	g.Go(walk(root))
	fmt.Println(g.Wait(), total.Load(), ctx.Err()) // Wait cancels ctx once done
	// Output: <nil> 21 context canceled
}

// The first error cancels the group's context: the other functions see it,
// and Wait returns that error.
func ExampleWithContext() {
	g, ctx := par.WithContext(context.Background())
	for i := range 4 {
		g.Go(func() error {
			if i == 2 {
				return fmt.Errorf("job %d: %w", i, errBadInput)
			}
			return nil
		})
	}
	err := g.Wait()
	fmt.Println(err)
	fmt.Println(errors.Is(context.Cause(ctx), errBadInput))
	// Output:
	// job 2: bad input
	// true
}

func ExampleGroup_Go() {
	var g par.Group // the zero value is ready
	results := make([]int, 3)
	for i := range results {
		g.Go(func() error {
			results[i] = i * i // each function writes its own element
			return nil
		})
	}
	fmt.Println(g.Wait(), results)
	// Output: <nil> [0 1 4]
}

// A Group per level of a recursion: a function made inside a task may wait
// for a group of its own, on one worker or many.
func ExampleGroup_Wait() {
	var count func(depth int) (int, error)
	count = func(depth int) (int, error) {
		if depth == 0 {
			return 1, nil
		}
		var g par.Group
		var left, right int
		g.Go(func() (err error) { left, err = count(depth - 1); return })
		g.Go(func() (err error) { right, err = count(depth - 1); return })
		err := g.Wait()
		return 1 + left + right, err
	}
	fmt.Println(count(10))
	// Output: 2047 <nil>
}

func ExampleForEach() {
	ages := map[string]int{"ada": 36, "alan": 41, "grace": 85}
	var sum atomic.Int64
	// One goroutine pulls the keys; the bodies run in parallel.
	par.ForEach(maps.Keys(ages), func(name string) { sum.Add(int64(ages[name])) })
	fmt.Println(sum.Load())
	// Output: 162
}

func ExampleForEach2() {
	stock := map[string]int{"pears": 3, "figs": 0, "kiwis": 7}
	var empty atomic.Int64
	par.ForEach2(maps.All(stock), func(fruit string, n int) {
		if n == 0 {
			empty.Add(1)
		}
	})
	fmt.Println(empty.Load())
	// Output: 1
}

func ExampleSortByKey() {
	type order struct {
		id    string
		cents int64
	}
	orders := []order{{"a", 500}, {"b", 120}, {"c", 500}, {"d", 120}, {"e", 900}}
	// By amount; equal amounts keep their order. The key is computed once
	// per element, and integer keys are radix sorted.
	par.SortByKey(orders, func(o order) int64 { return o.cents })
	fmt.Println(orders)
	// Output: [{b 120} {d 120} {a 500} {c 500} {e 900}]
}

func ExampleMin() {
	fmt.Println(par.Min([]int{4, 2, 8}), par.Min([]float64{1.5, math.NaN(), -3}))
	// Output: 2 NaN
}

func ExampleMax() {
	fmt.Println(par.Max([]float64{1.5, -3, 2.25}))
	// Output: 2.25
}

func ExampleMinFunc() {
	type user struct {
		name string
		age  int
	}
	users := []user{{"ada", 36}, {"bob", 36}, {"grace", 85}, {"zoe", 85}}
	byAge := func(a, b user) int { return cmp.Compare(a.age, b.age) }
	// Of several minimal elements, the first.
	fmt.Println(par.MinFunc(users, byAge))
	// Output: {ada 36}
}

func ExampleMaxFunc() {
	words := []string{"fork", "steal", "join", "yield"}
	byLen := func(a, b string) int { return cmp.Compare(len(a), len(b)) }
	fmt.Println(par.MaxFunc(words, byLen)) // the first of the longest
	// Output: steal
}

// A par call made from a task of a pool runs on that pool, on the calling
// worker, whichever pool it is.
func Example_anyPool() {
	p := forkjoin.New(forkjoin.Workers(2))
	defer p.Close()
	s := []int{5, 3, 9, 1}
	var samePool atomic.Bool
	forkjoin.Run(p, func(*forkjoin.Worker) {
		par.Sort(s)
		par.For(4, func(int) {
			if w := forkjoin.Current(); w != nil && w.Pool() == p {
				samePool.Store(true)
			}
		})
	})
	fmt.Println(s, samePool.Load())
	// Output: [1 3 5 9] true
}

// A par call in a canceled invocation does not return as if it had done its
// work: it panics with a *forkjoin.CanceledError, which InvokeContext
// returns as the context's error.
func Example_cancellation() {
	ctx, cancel := context.WithCancel(context.Background())
	_, err := forkjoin.InvokeContext(ctx, forkjoin.Default(), func(w *forkjoin.Worker) []int {
		cancel() // a deadline passing, a client going away
		return par.Map(make([]int, 100000), func(int) int { return 1 })
	})
	fmt.Println(err)
	// Output: context canceled
}

// SetLimit bounds how many functions run at once; Go blocks until a slot
// frees, and TryGo starts a function only if one is free.
func ExampleGroup_SetLimit() {
	var g par.Group
	g.SetLimit(2)
	var active, most atomic.Int64
	for range 10 {
		g.Go(func() error {
			n := active.Add(1)
			for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
			}
			time.Sleep(time.Millisecond)
			active.Add(-1)
			return nil
		})
	}
	fmt.Println(g.Wait(), most.Load() <= 2)
	// Output: <nil> true
}
