package main

import (
	"math"
	"math/rand/v2"
	"strconv"

	"github.com/fjkit/fjkit/algos"
	"github.com/fjkit/fjkit/forkjoin"
	"gonum.org/v1/gonum/mat"
)

// matmulRowBlock is the rows per task of the flat baselines: enough work per
// task (block·n² multiply-adds) to pay for a goroutine.
const matmulRowBlock = 16

// matInput is an n×n matrix of small integers. With integer entries every
// product and partial sum is exact in float64, so any summation order — ours,
// gonum's, a naive loop's — gives bit-identical results and one checksum.
func matInput(n int, seed uint64) *mat.Dense {
	r := rand.New(rand.NewPCG(seed, 7))
	d := make([]float64, n*n)
	for i := range d {
		d[i] = float64(r.IntN(9) - 4)
	}
	return mat.NewDense(n, n, d)
}

func matChecksum(c *mat.Dense) uint64 {
	var sum uint64
	r, cols := c.Dims()
	for i := range r {
		for j, v := range c.RawRowView(i) {
			sum += math.Float64bits(v) * uint64(i*cols+j+1)
		}
	}
	return sum
}

// mulRows sets rows lo..hi of c to those of a·b with the cache-friendly i-k-j
// loop: the serial kernel of the serial and flat baselines.
func mulRows(c, a, b *mat.Dense, lo, hi int) {
	for i := lo; i < hi; i++ {
		ci := c.RawRowView(i)
		clear(ci)
		for k, aik := range a.RawRowView(i) {
			for j, bkj := range b.RawRowView(k) {
				ci[j] += aik * bkj
			}
		}
	}
}

func runMatMul(cfg *config, b *bench) (Section, error) {
	n := cfg.n
	if n == 0 {
		n = 512
	}
	if n > 8192 {
		return Section{}, errSize("matmul", "-n", n, "at most 8192")
	}
	sec := Section{Name: "matmul", Notes: []string{
		"The flat baselines split c into blocks of " + strconv.Itoa(matmulRowBlock) + " rows, one task each, with the serial i-k-j kernel; " +
			"a capped pool is safe here because the tasks do not fork. gonum's Mul uses its own blocked kernel and its own goroutines."}}
	a, bm := matInput(n, 1), matInput(n, 2)
	c := mat.NewDense(n, n, nil)
	base := Result{Scenario: "matmul", Params: []Param{{"n", strconv.Itoa(n)}}, Work: 2 * float64(n) * float64(n) * float64(n), Unit: "flop"}
	reset := func() { c.Zero() }
	add := func(rs []Result, err error) error {
		sec.Results = append(sec.Results, rs...)
		return err
	}
	r, err := b.measure(base, contender{scheduler: "serial", prepare: reset, work: func() uint64 {
		mulRows(c, a, bm, 0, n)
		return matChecksum(c)
	}})
	if add([]Result{r}, err) != nil {
		return sec, err
	}
	r, err = b.measure(base, contender{scheduler: "gonum", prepare: reset, work: func() uint64 {
		c.Mul(a, bm)
		return matChecksum(c)
	}})
	if add([]Result{r}, err) != nil {
		return sec, err
	}
	if err := add(measureOurs(b, base, cfg.modes, cfg.workers, "", reset, func(w *forkjoin.Worker) uint64 {
		algos.MatMul(w, c, a, bm)
		return matChecksum(c)
	})); err != nil {
		return sec, err
	}
	blocks := (n + matmulRowBlock - 1) / matmulRowBlock
	err = add(measureFlat(b, base, cfg.workers, reset, blocks, func(i int) {
		mulRows(c, a, bm, i*matmulRowBlock, min((i+1)*matmulRowBlock, n))
	}, func() uint64 { return matChecksum(c) }))
	return sec, err
}
