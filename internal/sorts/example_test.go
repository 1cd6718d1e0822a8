package sorts_test

import (
	"cmp"
	"fmt"
	"strings"

	"github.com/fjkit/fjkit/forkjoin"
	"github.com/fjkit/fjkit/internal/sorts"
)

func ExampleQuickSort() {
	s := []int{5, 2, 8, 1, 9, 3}
	forkjoin.Run(forkjoin.Default(), func(w *forkjoin.Worker) { sorts.QuickSort(w, s) })
	fmt.Println(s)
	// Output: [1 2 3 5 8 9]
}

func ExampleQuickSortFunc() {
	s := []string{"pear", "Apple", "fig"}
	forkjoin.Run(forkjoin.Default(), func(w *forkjoin.Worker) { sorts.QuickSortFunc(w, s, strings.Compare) })
	fmt.Println(s)
	// Output: [Apple fig pear]
}

func ExampleMergeSort() {
	s := []float64{2.5, -1, 0, 7}
	forkjoin.Run(forkjoin.Default(), func(w *forkjoin.Worker) { sorts.MergeSort(w, s) })
	fmt.Println(s)
	// Output: [-1 0 2.5 7]
}

// MergeSortFunc is stable: words of the same length keep their order.
func ExampleMergeSortFunc() {
	s := []string{"ccc", "a", "bb", "b", "aa"}
	forkjoin.Run(forkjoin.Default(), func(w *forkjoin.Worker) {
		sorts.MergeSortFunc(w, s, func(a, b string) int { return cmp.Compare(len(a), len(b)) })
	})
	fmt.Println(s)
	// Output: [a b bb aa ccc]
}
