package algos_test

import (
	"cmp"
	"fmt"
	"strings"

	"github.com/fjkit/fjkit/algos"
	"github.com/fjkit/fjkit/forkjoin"
)

// The sorts run inside a task. From ordinary code, one forkjoin.Run call
// starts that task on a pool and waits for the sort.
func ExampleMergeSort() {
	s := []int{5, 2, 8, 1, 9, 3}
	forkjoin.Run(forkjoin.Default(), func(w *forkjoin.Worker) { algos.MergeSort(w, s) })
	fmt.Println(s)
	// Output: [1 2 3 5 8 9]
}

// MergeSortFunc is stable: people of the same age keep their order.
func ExampleMergeSortFunc() {
	type person struct {
		name string
		age  int
	}
	people := []person{{"Alice", 30}, {"Bob", 25}, {"Carol", 30}, {"Dave", 25}, {"Eve", 35}}
	forkjoin.Run(forkjoin.Default(), func(w *forkjoin.Worker) {
		algos.MergeSortFunc(w, people, func(a, b person) int { return cmp.Compare(a.age, b.age) })
	})
	for _, p := range people {
		fmt.Println(p.age, p.name)
	}
	// Output:
	// 25 Bob
	// 25 Dave
	// 30 Alice
	// 30 Carol
	// 35 Eve
}

// A pool of its own, here with two workers, runs the sort just as well;
// close it when done.
func ExampleQuickSort() {
	p := forkjoin.New(forkjoin.Workers(2))
	defer p.Close()
	s := make([]float64, 100_000)
	for i := range s {
		s[i] = float64((i * 7919) % len(s))
	}
	forkjoin.Run(p, func(w *forkjoin.Worker) { algos.QuickSort(w, s) })
	fmt.Println(s[0], s[1], s[len(s)-1])
	// Output: 0 1 99999
}

func ExampleQuickSortFunc() {
	words := strings.Fields("the quick brown fox jumps over the lazy dog")
	forkjoin.Run(forkjoin.Default(), func(w *forkjoin.Worker) {
		// Longest first; words of equal length alphabetically.
		algos.QuickSortFunc(w, words, func(a, b string) int {
			return cmp.Or(cmp.Compare(len(b), len(a)), strings.Compare(a, b))
		})
	})
	fmt.Println(words)
	// Output: [brown jumps quick lazy over dog fox the the]
}
