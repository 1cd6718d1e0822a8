// Package algos holds fork-join algorithms written against package forkjoin:
// the classic benchmarks of work-stealing schedulers, each next to the serial
// code it is measured against.
//
// Every algorithm runs inside a task: it takes the current *forkjoin.Worker
// first, forks through it, and returns when all it forked is done. From
// ordinary code, enter a pool with forkjoin.Invoke (or forkjoin.Run):
//
//	n := forkjoin.Invoke(forkjoin.Default(), func(w *forkjoin.Worker) int { return algos.NQueens(w, 12) })
//
// The algorithms:
//
//   - Fib(w, n, cutoff): the n-th Fibonacci number by the doubly recursive
//     definition, forking both calls above cutoff. With cutoff 0 it forks at
//     every call and measures almost nothing but the runtime's fork and join
//     overhead; FibSerial is the same recursion without forks.
//   - MergeSort and QuickSort (and their Func variants): parallel sorts of
//     slices; see their own documentation.
//   - MatMul(w, c, a, b): c = a·b for gonum matrices: c is halved in
//     parallel, along whichever dimension is the larger multiple of the
//     leaf's, down to blocks of at most 256×512, each multiplied serially
//     by a GotoBLAS-style kernel (packed panels of a and b sized to the
//     caches around a 6×8 register tile, in AVX2/FMA assembly where the CPU
//     has it; package internal/gemm).
//     Transpose(w, dst, src) transposes by halving the same way, and
//     Strassen(w, c, a, b) multiplies square matrices with Strassen's seven
//     half-size products, forked in parallel, above order 4096 (below it
//     the additions cost more than they save).
//   - NQueens(w, n): the number of ways to place n non-attacking queens on an
//     n×n board, by bit-mask backtracking, parallel over the first rows;
//     NQueensSerial is the serial search.
//   - UTS(w, p): Unbalanced Tree Search (Olivier et al., LCPC 2006), the
//     benchmark built to defeat static load balancing: it counts the nodes,
//     leaves and depth of an implicit random tree whose shape no one can
//     predict, since every node's number of children is drawn from a SHA-1
//     based splittable random number generator seeded by its parent's state.
//     The trees are those of the reference implementation (UTSParams mirrors
//     its flags), and the published sample trees are reproduced exactly;
//     UTSSerial is the serial depth-first search.
//
// Each parallel algorithm forks through a forkjoin.Func, the runtime's
// allocation-free path, and falls back to serial code below a cutoff where a
// fork would cost more than the work it hands out. The non-generic ones use a
// package-level Func; the generic sorts, which a package-level variable
// cannot hold, make one Func per element type on first use and keep it
// (internal/sorts), so a sort keeps nothing of its slice reachable after it
// returns.
package algos
