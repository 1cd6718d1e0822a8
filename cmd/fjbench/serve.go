package main

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"
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

	stopTicker := ticker()
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
	out := serveStats{elapsed: time.Since(start), ticks: stopTicker()}
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

// ticker starts a goroutine that wants to run every millisecond, as a
// ticker's consumer does; stop ends it and returns how late it woke each time.
func ticker() (stop func() []time.Duration) {
	done, out := make(chan struct{}), make(chan []time.Duration)
	go func() {
		var late []time.Duration
		t := time.NewTimer(time.Millisecond)
		defer t.Stop()
		for next := time.Now().Add(time.Millisecond); ; next = time.Now().Add(time.Millisecond) {
			select {
			case <-done:
				out <- late
				return
			case <-t.C:
			}
			late = append(late, max(0, time.Since(next)))
			t.Reset(time.Millisecond)
		}
	}()
	return func() []time.Duration { close(done); return <-out }
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
	modeNames := []string{"ws"}
	if cfg.modeSet {
		modeNames = cfg.modes
	}
	data := serveInput(n)
	sec := Section{Name: "serve", OwnTables: true, Notes: []string{fmt.Sprintf(
		"Note: %d clients, each looping forkjoin.InvokeContext(ctx, pool, fn) with a %s deadline for %s per pool, "+
			"fn a parallel forkjoin.Reduce over %d int64s; a goroutine outside the pool asks to wake every 1 ms. "+
			"Without -workers the pool has GOMAXPROCS workers, as forkjoin.Default() does; -runs and -rounds do not apply, "+
			"each pool is loaded once for -duration. The p99 targets: a timed-out call back within 1 ms of its deadline, "+
			"a result handed back within 0.5 ms of fn's return, the ticker late by at most 1 ms.",
		cfg.clients, cfg.deadline, cfg.duration, n)}}
	params := []Param{{"clients", strconv.Itoa(cfg.clients)}, {"deadline", cfg.deadline.String()}, {"n", strconv.Itoa(n)}}

	// The ticker alone first: what the machine's timers give with nothing else running.
	stopIdle := ticker()
	time.Sleep(min(cfg.duration/4, 500*time.Millisecond))
	idle := stopIdle()

	t := Table{
		Title: "serve — requests through InvokeContext with a deadline, the pool saturated",
		Header: []string{"scheduler", "workers", "requests ok", "timed out", "other errors", "requests/s",
			"deadline→return p50", "p99", "fn return→caller p50", "p99", "1 ms ticker late p50", "p99", "p99 targets"},
		Right: []bool{false, true, true, true, true, true, true, true, true, true, true, true, false},
		Legend: "Columns: scheduler is the pool's mode (ws: work stealing, shared: one shared queue) and workers its workers; " +
			"requests ok, timed out and other errors count the calls by how they ended, requests/s the ok ones per second; " +
			"deadline→return p50 and its p99 are how late a timed-out call returned after its deadline; " +
			"fn return→caller p50 and its p99 how long a finished call's result took to reach its caller; " +
			"1 ms ticker late p50 and its p99 how late a 1 ms ticker beside the pool fired; " +
			"p99 targets says whether each p99 met its target (1 ms, 0.5 ms, 1 ms). " +
			"\"(oversubscribed)\": more workers than the machine's cores.",
	}
	cores := min(runtime.NumCPU(), runtime.GOMAXPROCS(0))
	t.Rows = append(t.Rows, []string{"(ticker alone)", "—", "", "", "", "", "", "", "", "", fmtLatency(idle, 0.5), fmtLatency(idle, 0.99), ""})
	for _, mode := range modeNames {
		for _, w := range workers {
			p := forkjoin.New(forkjoin.Workers(w), forkjoin.WithMode(modes[mode].mode))
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
			t.Rows = append(t.Rows, []string{mode, workersCell(w, cores), strconv.Itoa(st.ok), strconv.Itoa(st.timedOut),
				strconv.Itoa(st.other), fmtSI(float64(st.ok) / st.elapsed.Seconds()),
				fmtLatency(st.lateness, 0.5), fmtLatency(st.lateness, 0.99),
				fmtLatency(st.handback, 0.5), fmtLatency(st.handback, 0.99),
				fmtLatency(st.ticks, 0.5), fmtLatency(st.ticks, 0.99), st.targets()})
		}
	}
	sec.Extra = []Table{t}
	return sec, nil
}

// targets checks the p99s against the scenario's targets: a timed-out call
// back within 1 ms of its deadline, a result handed back within 0.5 ms of
// fn's return, a ticker beside the saturated pool late by at most 1 ms.
func (st *serveStats) targets() string {
	var over []string
	for _, c := range []struct {
		what   string
		ds     []time.Duration
		target time.Duration
	}{{"lateness", st.lateness, time.Millisecond}, {"hand-back", st.handback, 500 * time.Microsecond}, {"ticker", st.ticks, time.Millisecond}} {
		if len(c.ds) > 0 && quantile(c.ds, 0.99) > c.target {
			over = append(over, c.what)
		}
	}
	if len(over) == 0 {
		return "all met"
	}
	return "over: " + strings.Join(over, ", ")
}
