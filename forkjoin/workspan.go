package forkjoin

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"text/tabwriter"
	"time"
)

// Work and span.
//
// MeasureWorkSpan runs a fork-join program as its serial elision: every
// fork runs its child at once, to its end, on the calling goroutine, and
// then the continuation, as Cilkscale does. Each strand (the code between
// two fork or join points) is timed with the monotonic clock, and the
// times are composed along the program's structure: each strand carries
// its span so far; a forked child starts from its parent's, a join takes
// the larger of the two; work is the sum of all strands.

// ErrWorkSpanOff is what MeasureWorkSpan returns in a build without the
// measurement: build with -tags fjkit_workspan, without -race.
var ErrWorkSpanOff = errors.New("forkjoin: work/span measurement is off in this build; build with -tags fjkit_workspan (and without -race)")

// WorkSpanBurden is the burden MeasureWorkSpan adds to the burdened span
// for every forked side on a path: what it costs the path when another
// worker runs that side (the promotion of the lazy fork, the steal, the
// thief's start, and the join's wait for it). It is the time measured
// for that hand-off on a two-core machine, between the few microseconds
// it takes when the other worker is looking for work and the heartbeat's
// period (about 100 µs) it takes when the other worker has gone to sleep
// and only the heartbeat offers it the fork: its tenth percentile, a
// program whose workers keep each other busy.
const WorkSpanBurden = 10 * time.Microsecond

// WorkSpan is the measurement of a fork-join program (MeasureWorkSpan).
//
// Work is T₁, the total time of all strands; Span is T∞, the time of the
// longest chain of strands that must run one after another; their ratio,
// the parallelism, bounds the speed-up on any number of workers. The
// burdened span adds Burden for every fork on a path, a path's cost when
// each of its forked tasks runs on another worker: its parallelism is what
// a program can expect when its strands are short. The times are those of
// the measured run, serial, on this machine, with the measurement's own
// cost (a clock read per fork, join and task end, and the records of
// the forks) included: the parallelisms, ratios, carry less of it than
// the times.
type WorkSpan struct {
	Work, Span, BurdenedSpan time.Duration
	// Forks counts the program's forks: a Join or Func.Join counts one
	// (its second side is forked), as does each Spawn, Func.Fork, task of
	// a scope or of a Tasks set, and function of Do after the first; a
	// loop counts one per piece after the first, and Reduce one more per
	// combine of pieces.
	Forks int64
	// CriticalForks counts the forks on the burdened span's path: each
	// adds Burden to it.
	CriticalForks int64
	// Burden is the per-fork burden of BurdenedSpan (WorkSpanBurden).
	Burden time.Duration
	// Regions are the figures of the program's regions (Region), in the
	// order they were first entered.
	Regions []RegionWorkSpan
}

// RegionWorkSpan is the work and span of a named region (Region), summed
// over its entries: a region entered again inside itself counts only its
// outermost entry.
type RegionWorkSpan struct {
	Name                     string
	Count                    int64 // outermost entries
	Work, Span, BurdenedSpan time.Duration
	Forks                    int64
}

// Parallelism is Work/Span: the most speed-up any number of workers can
// give the program. It is 0 for a program that took no time.
func (ws WorkSpan) Parallelism() float64 { return ratio(ws.Work, ws.Span) }

// BurdenedParallelism is Work/BurdenedSpan, the parallelism with the
// scheduler's cost per fork on the critical path counted.
func (ws WorkSpan) BurdenedParallelism() float64 { return ratio(ws.Work, ws.BurdenedSpan) }

// Parallelism is the region's Work/Span.
func (r RegionWorkSpan) Parallelism() float64 { return ratio(r.Work, r.Span) }

// BurdenedParallelism is the region's Work/BurdenedSpan.
func (r RegionWorkSpan) BurdenedParallelism() float64 { return ratio(r.Work, r.BurdenedSpan) }

func ratio(a, b time.Duration) float64 {
	if b <= 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// MeasureWorkSpan runs fn as an invocation of p, measured: it returns the
// work and span of fn and every task it starts (see WorkSpan), and nil.
// The program runs as its serial elision on the calling goroutine: each
// fork (Join, Func.Join, Func.Fork, Spawn, a scope's Go, Do, the pieces
// of For, ForRange, Reduce and ReduceW, the tasks of a Tasks set, and the
// calls of package par made from its tasks) runs its child to its end
// before the continuation, on one *Worker bound to p. A loop is cut into at
// most 1024 pieces, forked as a balanced tree. So a program whose tasks
// wait for each other otherwise than by joining (a Tasks set whose tasks
// talk over channels) does not run measured; nor do its timings say
// anything about contention between workers.
//
// A program that shapes its work by its pool's size, as package par's
// calls, the sorts and the matrix kernels do (on a pool of one worker they
// run serially), is measured in the shape it has on p: measure on a pool
// of the size the prediction is for, or the larger of two.
//
// Invoke and Tasks.Submit on p from the measured program are part of it;
// calls into other pools run there, and count as the calling strand's
// time. Measurements run one at a time (a second caller waits);
// MeasureWorkSpan must not be called from a task. A panic in fn is re-raised as a
// *PanicError. In a build without the fjkit_workspan tag, or with -race,
// it runs nothing and returns ErrWorkSpanOff: the fork paths of an
// ordinary build carry no trace of the measurement.
func MeasureWorkSpan(p *Pool, fn func(w *Worker)) (WorkSpan, error) {
	if p == nil {
		panic("forkjoin.MeasureWorkSpan: p is nil")
	}
	if fn == nil {
		panic("forkjoin.MeasureWorkSpan: fn is nil")
	}
	if !workSpan {
		return WorkSpan{}, ErrWorkSpanOff
	}
	return measureWorkSpan(p, fn), nil
}

// Region runs fn(w) as a named region of a measured program: its work and
// span are reported under name in WorkSpan.Regions (a region is one task:
// the Futures and Forked it leaves unjoined are joined when it returns, as
// a task's are). Outside a measurement Region is fn(w), at the cost of
// a call.
func Region(w *Worker, name string, fn func(w *Worker)) {
	if fn == nil {
		panic("forkjoin.Region: fn is nil")
	}
	if workSpan && w.inStrand() {
		wsRegion(w, name, fn)
		return
	}
	fn(w)
}

// WriteTable writes ws as a table like Cilkscale's: the program's work,
// span, parallelism, burdened span and burdened parallelism, then each
// region's.
func (ws WorkSpan) WriteTable(out io.Writer) error {
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "region\tentries\twork\tspan\tparallelism\tburdened span\tburdened parallelism\tforks\t")
	row := func(name string, n int64, work, span, bspan time.Duration, forks int64) {
		fmt.Fprintf(tw, "%s\t%d\t%v\t%v\t%.2f\t%v\t%.2f\t%d\t\n", name, n, work, span, ratio(work, span), bspan, ratio(work, bspan), forks)
	}
	row("(program)", 1, ws.Work, ws.Span, ws.BurdenedSpan, ws.Forks)
	for _, r := range ws.Regions {
		row(r.Name, r.Count, r.Work, r.Span, r.BurdenedSpan, r.Forks)
	}
	return tw.Flush()
}

// WriteCSV writes ws as CSV, with a header line: one row for the program
// (region "(program)") and one per region; times in nanoseconds.
func (ws WorkSpan) WriteCSV(out io.Writer) error {
	cw := csv.NewWriter(out)
	cw.Write([]string{"region", "entries", "work_ns", "span_ns", "parallelism", "burdened_span_ns", "burdened_parallelism", "forks"})
	row := func(name string, n int64, work, span, bspan time.Duration, forks int64) {
		cw.Write([]string{name, strconv.FormatInt(n, 10), strconv.FormatInt(int64(work), 10), strconv.FormatInt(int64(span), 10),
			strconv.FormatFloat(ratio(work, span), 'g', 6, 64), strconv.FormatInt(int64(bspan), 10),
			strconv.FormatFloat(ratio(work, bspan), 'g', 6, 64), strconv.FormatInt(forks, 10)})
	}
	row("(program)", 1, ws.Work, ws.Span, ws.BurdenedSpan, ws.Forks)
	for _, r := range ws.Regions {
		row(r.Name, r.Count, r.Work, r.Span, r.BurdenedSpan, r.Forks)
	}
	cw.Flush()
	return cw.Error()
}

// Bound is the prediction for P workers from a WorkSpan (Predict).
type Bound struct {
	P int
	// Lower is the least time P workers can take, max(Work/P, Span);
	// Upper is Brent's bound on a greedy scheduler, Work/P + Span, and
	// BurdenedUpper the same with the burdened span.
	Lower, Upper, BurdenedUpper time.Duration
	// MaxSpeedup is Work/Lower; MinSpeedup and BurdenedMinSpeedup are
	// Work/Upper and Work/BurdenedUpper, the speed-ups a greedy scheduler
	// reaches at least, without and with the burden.
	MaxSpeedup, MinSpeedup, BurdenedMinSpeedup float64
}

// Predict returns the bounds on the time and speed-up of the measured
// program on P = 1, 2, 4, …, maxP workers (powers of two, and maxP):
// Brent's T_P ≤ T₁/P + T∞ and T_P ≥ max(T₁/P, T∞), and the burdened upper
// bound with the burdened span in place of T∞. It panics if maxP < 1.
func (ws WorkSpan) Predict(maxP int) []Bound {
	if maxP < 1 {
		panic("forkjoin.WorkSpan.Predict: maxP must be at least 1, got " + strconv.Itoa(maxP))
	}
	var bs []Bound
	for p := 1; ; p *= 2 {
		if p > maxP {
			p = maxP
		}
		bs = append(bs, ws.Bound(p))
		if p == maxP {
			return bs
		}
	}
}

// Bound returns the prediction for p workers (see Predict). It panics if
// p < 1.
func (ws WorkSpan) Bound(p int) Bound {
	if p < 1 {
		panic("forkjoin.WorkSpan.Bound: p must be at least 1, got " + strconv.Itoa(p))
	}
	perP := time.Duration(math.Round(float64(ws.Work) / float64(p)))
	b := Bound{P: p, Lower: max(perP, ws.Span), Upper: perP + ws.Span, BurdenedUpper: perP + ws.BurdenedSpan}
	b.MaxSpeedup = ratio(ws.Work, b.Lower)
	b.MinSpeedup = ratio(ws.Work, b.Upper)
	b.BurdenedMinSpeedup = ratio(ws.Work, b.BurdenedUpper)
	return b
}

// WritePrediction writes Predict(maxP) as a table: for each P, the range
// of speed-up (at least, burdened and not, and at most) and of time.
func (ws WorkSpan) WritePrediction(out io.Writer, maxP int) error {
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "P\tspeed-up ≥ (burdened)\tspeed-up ≥\tspeed-up ≤\ttime ≥\ttime ≤\ttime ≤ (burdened)\t")
	for _, b := range ws.Predict(maxP) {
		fmt.Fprintf(tw, "%d\t%.2f\t%.2f\t%.2f\t%v\t%v\t%v\t\n", b.P, b.BurdenedMinSpeedup, b.MinSpeedup, b.MaxSpeedup, b.Lower, b.Upper, b.BurdenedUpper)
	}
	return tw.Flush()
}

// wsPath is a path's figures in a measurement: its span so far, its
// burdened span, and the forks on the burdened path.
type wsPath struct {
	span, burdened time.Duration
	forks          int64
}

// wsLoopPieces is the most pieces a measured loop is cut into: enough
// that a loop of equal pieces bounds no prediction up to 256 workers.
const wsLoopPieces = 1024
