package main

import (
	"bufio"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/fjkit/fjkit/algos"
	"github.com/fjkit/fjkit/forkjoin"
	"golang.org/x/sys/cpu"
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

// finishMatMul adds the table of every row's rate against the machine's
// estimated peak, from all rounds' runs (measureRounds).
func finishMatMul(cfg *config, sec *Section) {
	pk := estimatePeak()
	sec.Notes = append(sec.Notes, pk.how)
	if pk.perCore == 0 || len(sec.Results) == 0 {
		return
	}
	cores := min(runtime.NumCPU(), runtime.GOMAXPROCS(0))
	t := Table{Title: sec.Results[0].group() + " — against the peak",
		Header: []string{"scheduler", "workers", "time", "Gflop/s", "% of peak", "marks"},
		Legend: "Columns: scheduler and workers as in the table above; time is the median of the runs; " +
			"Gflop/s the floating-point operations per second at that time; % of peak is Gflop/s divided by the " +
			"estimated peak of the cores the row can use (its workers up to the cores, one for serial code, every core " +
			"for gonum and the goroutine baselines). " + marksLegend(cores)}
	for i := range sec.Results {
		r := &sec.Results[i]
		used := cores // gonum's Mul and the goroutine baselines use every P
		switch {
		case r.Scheduler == "serial":
			used = 1
		case r.Workers > 0:
			used = min(r.Workers, cores)
		}
		t.Rows = append(t.Rows, []string{r.Scheduler, workersCell(r.Workers, cores), fmtDuration(summarize(r.Durations).Median),
			strconv.FormatFloat(r.rate()/1e9, 'f', 1, 64),
			strconv.FormatFloat(100*r.rate()/(float64(used)*pk.perCore), 'f', 0, 64) + " %", unreliable(r, cores)})
	}
	t.Right = []bool{false, true, true, true, true, false}
	sec.Extra = append(sec.Extra, t)
}

// peak is an estimate of one core's float64 peak, in flop/s, and how it
// was made; perCore is 0 where there is no estimate.
type peak struct {
	perCore float64
	how     string
}

// flopsPerCycle is a core's float64 peak per cycle with AVX2 and FMA: two
// FMA units, each 4 doubles × 2 flops a cycle. It is the peak of the code
// algos.MatMul runs: CPUs with AVX-512 may do twice that, with other code.
const flopsPerCycle = 16

// estimatePeak returns the clock, measured, times flopsPerCycle. The clock
// /proc/cpuinfo reports is often the base clock (always, in a virtual
// machine), below what a busy core runs at, so the clock is measured
// instead: a chain of dependent 64-bit multiplies, 3 cycles each on x86-64
// cores since 2008, timed over a few milliseconds, the fastest of five
// tries (another job on the core can only slow a try down). It is the clock
// of one busy core; with every core busy, and with AVX, cores may run
// slower, so the percentages are if anything low.
func estimatePeak() peak {
	if runtime.GOARCH != "amd64" || !cpu.X86.HasAVX2 || !cpu.X86.HasFMA {
		return peak{how: "No peak estimate: it is made for amd64 CPUs with AVX2 and FMA, the ones MatMul's assembly kernel runs on."}
	}
	var hz float64
	for range 5 {
		const n = 1 << 20 // 8 multiplies each: ~8 ms at 3 GHz
		start := time.Now()
		mulChainSink ^= mulChain(n, mulChainSink|3)
		hz = max(hz, 3*8*n/time.Since(start).Seconds())
	}
	how := fmt.Sprintf("Peak: %.2f GHz (measured: a chain of dependent multiplies) × %d flop/cycle (AVX2+FMA: 2 FMA units × 4 doubles × 2) = %.1f Gflop/s per core, times the cores a row uses (min of its workers and %d CPUs; gonum's Mul uses them all).",
		hz/1e9, flopsPerCycle, hz*flopsPerCycle/1e9, min(runtime.NumCPU(), runtime.GOMAXPROCS(0)))
	if mhz := cpuinfoMHz(); mhz > 0 {
		how += fmt.Sprintf(" /proc/cpuinfo says %.2f GHz, which would make the peak %.1f Gflop/s per core.", mhz/1e3, mhz/1e3*flopsPerCycle)
	}
	return peak{perCore: hz * flopsPerCycle, how: how}
}

var mulChainSink uint64

// mulChain squares x 8n times, each multiply waiting for the one before.
//
//go:noinline
func mulChain(n int, x uint64) uint64 {
	for range n {
		x *= x
		x *= x
		x *= x
		x *= x
		x *= x
		x *= x
		x *= x
		x *= x
	}
	return x
}

// cpuinfoMHz returns the highest "cpu MHz" in /proc/cpuinfo, or 0.
func cpuinfoMHz() float64 {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	var mhz float64
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(k) == "cpu MHz" {
			if x, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil {
				mhz = max(mhz, x)
			}
		}
	}
	return mhz
}
