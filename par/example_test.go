package par_test

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"strings"

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
