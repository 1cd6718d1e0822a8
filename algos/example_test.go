package algos_test

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/fjkit/fjkit/algos"
	"github.com/fjkit/fjkit/forkjoin"
)

func ExampleFib() {
	// Fork at every call above n = 10; compute serially below.
	f := forkjoin.Invoke(forkjoin.Default(), func(w *forkjoin.Worker) uint64 {
		return algos.Fib(w, 25, 10)
	})
	fmt.Println(f)
	// Output: 75025
}

func ExampleFibSerial() {
	fmt.Println(algos.FibSerial(25))
	// Output: 75025
}

func ExampleNQueens() {
	n := forkjoin.Invoke(forkjoin.Default(), func(w *forkjoin.Worker) int {
		return algos.NQueens(w, 8)
	})
	fmt.Println(n)
	// Output: 92
}

func ExampleNQueensSerial() {
	fmt.Println(algos.NQueensSerial(10))
	// Output: 724
}

func ExampleMatMul() {
	a := mat.NewDense(2, 3, []float64{
		1, 2, 3,
		4, 5, 6,
	})
	b := mat.NewDense(3, 2, []float64{
		7, 8,
		9, 10,
		11, 12,
	})
	c := mat.NewDense(2, 2, nil)
	forkjoin.Run(forkjoin.Default(), func(w *forkjoin.Worker) { algos.MatMul(w, c, a, b) })
	fmt.Printf("%v\n", mat.Formatted(c))
	// Output:
	// ⎡ 58   64⎤
	// ⎣139  154⎦
}

func ExampleStrassen() {
	// Orders up to 4096 multiply as MatMul does; larger even orders take
	// Strassen steps. The identity times a matrix is the matrix.
	const n = 512
	a := mat.NewDense(n, n, nil)
	b := mat.NewDense(n, n, nil)
	for i := range n {
		a.Set(i, i, 1)
		for j := range n {
			b.Set(i, j, float64(i-j))
		}
	}
	c := mat.NewDense(n, n, nil)
	forkjoin.Run(forkjoin.Default(), func(w *forkjoin.Worker) { algos.Strassen(w, c, a, b) })
	fmt.Println(mat.Equal(c, b), c.At(3, 1), c.At(1, 3))
	// Output: true 2 -2
}

func ExampleTranspose() {
	src := mat.NewDense(2, 3, []float64{
		1, 2, 3,
		4, 5, 6,
	})
	var dst mat.Dense // empty: Transpose sizes it 3×2
	forkjoin.Run(forkjoin.Default(), func(w *forkjoin.Worker) { algos.Transpose(w, &dst, src) })
	fmt.Printf("%v\n", mat.Formatted(&dst))
	// Output:
	// ⎡1  4⎤
	// ⎢2  5⎥
	// ⎣3  6⎦
}

func ExampleUTS() {
	// The sample tree T1 (uts -t 1 -a 3 -d 10 -b 4 -r 19), cut to depth 6.
	p := algos.UTSParams{Tree: algos.Geometric, Shape: algos.Fixed, Depth: 6, B0: 4, Seed: 19}
	r := forkjoin.Invoke(forkjoin.Default(), func(w *forkjoin.Worker) algos.UTSResult {
		return algos.UTS(w, p)
	})
	fmt.Printf("%d nodes, %d leaves, depth %d\n", r.Nodes, r.Leaves, r.MaxDepth)
	// Output: 16000 nodes, 12839 leaves, depth 6
}

func ExampleUTSSerial() {
	// A binomial tree: 50 children at the root, then 8 children with
	// probability 0.124875 at every node (uts -t 0 -b 50 -q 0.124875 -m 8 -r 42).
	p := algos.UTSParams{Tree: algos.Binomial, B0: 50, Q: 0.124875, M: 8, Seed: 42}
	r := algos.UTSSerial(p)
	fmt.Printf("%d nodes, %d leaves, depth %d\n", r.Nodes, r.Leaves, r.MaxDepth)
	// Output: 6531 nodes, 5720 leaves, depth 67
}
