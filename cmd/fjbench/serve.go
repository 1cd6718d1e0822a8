package main

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/fjkit/fjkit/forkjoin"
)

// The serve scenario uses a pool the way a server does: -clients goroutines
// each loop sending requests, every request a forkjoin.InvokeContext with a
// -deadline, its fn a parallel Reduce over -n int64s. It measures what a
// server's tail latency is made of: how late a timed-out call returns after
// its deadline, how long after fn returned its caller gets the result, and
// how late a 1 ms ticker goroutine that is not part of the pool wakes up
// while the pool is saturated.

// serveStats is what one pool measured in -duration.
type serveStats struct {
	elapsed  time.Duration
	ok       int             // right value, nil error
	timedOut int             // context.DeadlineExceeded
	wrong    int             // a wrong value with a nil error: a bug
	other    int             // any other error
	lateness []time.Duration // timed-out calls: return time less the deadline
	handback []time.Duration // finished calls: return time less fn's return time
	ticks    []time.Duration // the ticker's lateness
}

// serveInput is the Reduce's input: 1..n, so the right sum is n(n+1)/2.
func serveInput(n int) []int64 {
	s := make([]int64, n)
	for i := range s {
		s[i] = int64(i + 1)
	}
	return s
}

// serveLoad runs the clients against p for d, with a ticker beside them.
func serveLoad(p *forkjoin.Pool, clients int, deadline, d time.Duration, data []int64) serveStats {
	n := len(data)
	want := int64(n) * int64(n+1) / 2
	sum := func(x, y int64) int64 { return x + y }
	at := func(i int) int64 { return data[i] }

	stop := make(chan struct{})
	tickDone := make(chan []time.Duration)
	go func() { tickDone <- tick(stop, time.Millisecond) }()

	per := make([]serveStats, clients)
	start := time.Now()
	end := start.Add(d)
	var wg sync.WaitGroup
	for c := range per {
		st := &per[c]
		wg.Go(func() {
			for time.Now().Before(end) {
				ctx, cancel := context.WithTimeout(context.Background(), deadline)
				dl, _ := ctx.Deadline()
				var returned time.Time // set by fn; read only after fn's result came back
				v, err := forkjoin.InvokeContext(ctx, p, func(w *forkjoin.Worker) int64 {
					s := forkjoin.Reduce(w, 0, n, 0, at, sum)
					returned = time.Now()
					return s
				})
				now := time.Now()
				cancel()
				switch {
				case err == nil && v == want:
					st.ok++
					st.handback = append(st.handback, now.Sub(returned))
				case err == nil:
					st.wrong++
				case errors.Is(err, context.DeadlineExceeded):
					st.timedOut++
					st.lateness = append(st.lateness, now.Sub(dl))
				default:
					st.other++
				}
			}
		})
	}
	wg.Wait()
	out := serveStats{elapsed: time.Since(start)}
	close(stop)
	out.ticks = <-tickDone
	for _, st := range per {
		out.ok += st.ok
		out.timedOut += st.timedOut
		out.wrong += st.wrong
		out.other += st.other
		out.lateness = append(out.lateness, st.lateness...)
		out.handback = append(out.handback, st.handback...)
	}
	return out
}

// tick is a goroutine that wants to run every period, as a ticker's
// consumer does, until stop is closed: it returns how late it woke each time.
func tick(stop <-chan struct{}, period time.Duration) []time.Duration {
	var late []time.Duration
	next := time.Now().Add(period)
	t := time.NewTimer(period)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return late
		case <-t.C:
		}
		now := time.Now()
		late = append(late, max(0, now.Sub(next)))
		next = now.Add(period)
		t.Reset(period)
	}
}

// quantile is the q-quantile of ds by the nearest rank; 0 when empty.
func quantile(ds []time.Duration, q float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := int(math.Ceil(q*float64(len(s)))) - 1
	return s[min(max(i, 0), len(s)-1)]
}

func fmtLatency(ds []time.Duration, q float64) string {
	if len(ds) == 0 {
		return "—"
	}
	return fmtDuration(float64(quantile(ds, q)))
}

func runServe(cfg *config, b *bench) (Section, error) {
	n := cfg.n
	if n == 0 {
		n = 100_000
	}
	workers := []int{runtime.GOMAXPROCS(0)}
	if cfg.workersSet {
		workers = cfg.workers
	}
	modes := []string{"ws"}
	if cfg.modeSet {
		modes = cfg.modes
	}
	data := serveInput(n)
	sec := Section{Name: "serve", OwnTables: true, Notes: []string{fmt.Sprintf(
		"Note: %d clients, each looping forkjoin.InvokeContext(ctx, pool, fn) with a %s deadline for %s per pool, "+
			"fn a parallel forkjoin.Reduce over %d int64s; a goroutine outside the pool asks to wake every 1 ms. "+
			"Without -workers the pool has GOMAXPROCS workers, as forkjoin.Default() does; -runs and -rounds do not apply, "+
			"each pool is loaded once for -duration.",
		cfg.clients, cfg.deadline, cfg.duration, n)}}
	params := []Param{{"clients", strconv.Itoa(cfg.clients)}, {"deadline", cfg.deadline.String()}, {"n", strconv.Itoa(n)}}

	// The ticker alone first: what the machine's timers give with nothing else running.
	idleStop := make(chan struct{})
	idleDone := make(chan []time.Duration)
	go func() { idleDone <- tick(idleStop, time.Millisecond) }()
	time.Sleep(min(cfg.duration/4, 500*time.Millisecond))
	close(idleStop)
	idle := <-idleDone

	t := Table{
		Title: "serve — requests through InvokeContext with a deadline, the pool saturated",
		Header: []string{"scheduler", "workers", "requests ok", "timed out", "wrong, nil error", "requests/s",
			"deadline→return p50", "p99", "fn return→caller p50", "p99", "1 ms ticker late p50", "p99"},
		Right: []bool{false, true, true, true, true, true, true, true, true, true, true, true},
	}
	t.Rows = append(t.Rows, []string{"(ticker alone)", "—", "", "", "", "", "", "", "", "", fmtLatency(idle, 0.5), fmtLatency(idle, 0.99)})
	var all []serveStats
	var labels []string
	for _, mode := range modes {
		for _, w := range workers {
			p := forkjoin.New(forkjoin.Workers(w), forkjoin.WithMode(poolModes[mode]))
			b.show("serve %s w=%d: %s", mode, w, cfg.duration)
			st := serveLoad(p, cfg.clients, cfg.deadline, cfg.duration, data)
			p.Close()
			b.show("")
			if st.wrong > 0 {
				return sec, fmt.Errorf("%s w=%d: %d requests returned a wrong value with a nil error", mode, w, st.wrong)
			}
			sec.Results = append(sec.Results, Result{Scenario: "serve", Params: params, Scheduler: mode, Workers: w,
				Work: float64(st.ok), Unit: "requests", Durations: []time.Duration{st.elapsed},
				Checksum: uint64(n) * uint64(n+1) / 2})
			rate := float64(st.ok) / st.elapsed.Seconds()
			t.Rows = append(t.Rows, []string{mode, strconv.Itoa(w), strconv.Itoa(st.ok), strconv.Itoa(st.timedOut),
				strconv.Itoa(st.wrong), fmtSI(rate),
				fmtLatency(st.lateness, 0.5), fmtLatency(st.lateness, 0.99),
				fmtLatency(st.handback, 0.5), fmtLatency(st.handback, 0.99),
				fmtLatency(st.ticks, 0.5), fmtLatency(st.ticks, 0.99)})
			all = append(all, st)
			labels = append(labels, fmt.Sprintf("%s with %s", serveModeName[mode], workersWord(w)))
		}
	}
	sec.Extra = []Table{t}
	sec.Summary = serveSummary(all, labels, idle)
	return sec, nil
}

// serveModeName names a -mode in the summary's sentences.
var serveModeName = map[string]string{"ws": "work stealing", "shared": "the shared queue"}

// The targets of issue 15 for this scenario: a timed-out call back within
// 1 ms of its deadline at p99, a result handed back within 0.5 ms of fn's
// return, and a ticker beside the saturated pool late by at most 1 ms.
const (
	targetLateness = time.Millisecond
	targetHandback = 500 * time.Microsecond
	targetTick     = time.Millisecond
)

// serveSummary reads the serve table against the targets, one paragraph per
// pool; every figure comes from the measurements.
func serveSummary(all []serveStats, labels []string, idle []time.Duration) []string {
	var out []string
	for i, st := range all {
		s := fmt.Sprintf("%s: %d requests answered right (%s/s), %d timed out, %d other errors, %d wrong values with a nil error.",
			upper(labels[i]), st.ok, fmtSI(float64(st.ok)/st.elapsed.Seconds()), st.timedOut, st.other, st.wrong)
		check := func(what string, ds []time.Duration, target time.Duration) {
			if len(ds) == 0 {
				s += fmt.Sprintf(" No %s was measured.", what)
				return
			}
			p99 := quantile(ds, 0.99)
			word := "within"
			if p99 > target {
				word = "over"
			}
			s += fmt.Sprintf(" %s: p99 %s, %s the %s target.", upper(what), fmtDuration(float64(p99)), word, fmtDuration(float64(target)))
		}
		check("lateness of a timed-out call after its deadline", st.lateness, targetLateness)
		check("delay from fn's return to its caller's", st.handback, targetHandback)
		check("1 ms ticker's lateness beside the pool", st.ticks, targetTick)
		if len(idle) > 0 && len(st.ticks) > 0 {
			s += fmt.Sprintf(" (Alone, the ticker was late by %s at p99.)", fmtDuration(float64(quantile(idle, 0.99))))
		}
		out = append(out, s)
	}
	return out
}
