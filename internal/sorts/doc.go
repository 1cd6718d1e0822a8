// Package sorts holds the parallel sort kernels that package algos exports
// and package par builds on: a pattern-defeating quicksort (QuickSort,
// QuickSortFunc) and a stable merge sort (MergeSort, MergeSortFunc), each
// taking the *forkjoin.Worker of the task it runs in.
//
// It imports only forkjoin and the standard library, so that par can use it
// without pulling in algos' gonum dependency.
package sorts
