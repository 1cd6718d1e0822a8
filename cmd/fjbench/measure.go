package main

import (
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/fjkit/fjkit/forkjoin"
)

// measureRounds runs scenario s cfg.rounds times in turn (once if s.once)
// and pools the rounds: every row's timed runs and counters are appended to
// the first round's, and s.finish then derives the section's tables from
// all of them. A row's runs then come from moments spread over the whole
// section rather than from one stretch of a few seconds: on a shared machine
// whose speed drifts by up to 2× within a minute (this project's KVM guest),
// a slow spell otherwise lands on every run of the rows measured during it,
// and a table's ratios compare one moment of the machine with another.
func measureRounds(s scenario, cfg *config, b *bench) (Section, error) {
	rounds := cfg.rounds
	if s.once {
		rounds = 1
	}
	sec, err := s.run(cfg, b)
	for r := 1; r < rounds && err == nil; r++ {
		var next Section
		if next, err = s.run(cfg, b); err == nil {
			err = mergeRound(&sec, &next)
		}
	}
	if err == nil && s.finish != nil {
		s.finish(cfg, &sec)
	}
	return sec, err
}

// mergeRound appends the runs of round next to sec's: the same rows, in the
// same order, with the same checksums (a scheduler that computed something
// else in a later round fails the measurement, as within a round).
func mergeRound(sec, next *Section) error {
	if len(next.Results) != len(sec.Results) {
		return fmt.Errorf("a later round measured %d rows, the first %d", len(next.Results), len(sec.Results))
	}
	for i := range sec.Results {
		r, n := &sec.Results[i], &next.Results[i]
		if n.group() != r.group() || n.Scheduler != r.Scheduler || n.Workers != r.Workers {
			return fmt.Errorf("a later round's row %d is %s %s w=%d, the first round's %s %s w=%d",
				i, n.group(), n.Scheduler, n.Workers, r.group(), r.Scheduler, r.Workers)
		}
		if n.Checksum != r.Checksum {
			return fmt.Errorf("%s %s w=%d: checksum %s in a later round, %s in the first",
				r.group(), r.Scheduler, r.Workers, fmtChecksum(n.Checksum), fmtChecksum(r.Checksum))
		}
		r.Durations = append(r.Durations, n.Durations...)
		r.Counters = append(r.Counters, n.Counters...)
		if n.Usable > 0 && (r.Usable == 0 || n.Usable < r.Usable) {
			r.Usable = n.Usable
		}
	}
	return nil
}

// contender is one scheduler at one worker count, ready to run a scenario's work.
type contender struct {
	scheduler string
	workers   int                   // 0: the scheduler has no worker count
	prepare   func()                // untimed, before every run (fresh input, reset counters)
	work      func() uint64         // timed; returns the checksum of the work it did
	counters  func() forkjoin.Stats // untimed, after every timed run; nil if none
}

// bench runs contenders: a warm-up, then runs timed runs each. Its first
// error (a checksum that changed) is kept, and every later measurement
// returns it at once, so that a scenario measures on and reports it at the end.
type bench struct {
	runs     int
	progress io.Writer // nil unless stderr is a terminal
	// usable, if set, says how many cores the process can use now
	// (usableCores); measure asks it before and after each result's runs,
	// so that a row measured while other work took cores is marked.
	usable func() float64
	// workspan: measure the work and span of each fjkit row (-workspan).
	workspan bool
	err      error
}

// measure runs c once untimed to warm caches, the pool and the heap, then
// b.runs times under the clock. The checksum of every run must equal the
// warm-up's: a scheduler that drops or repeats a task shows up here.
func (b *bench) measure(base Result, c contender) (Result, error) {
	r := base
	r.Params = slices.Clone(base.Params)
	r.Scheduler, r.Workers = c.scheduler, c.workers
	label := r.group() + " " + c.scheduler
	if c.workers > 0 {
		label += fmt.Sprintf(" w=%d", c.workers)
	}
	if b.usable != nil {
		r.Usable = b.usable()
	}
	for i := 0; i <= b.runs && b.err == nil; i++ {
		if c.prepare != nil {
			c.prepare()
		}
		b.show("%s: run %d/%d", label, i, b.runs) // run 0 is the warm-up
		start := time.Now()
		got := c.work()
		d := time.Since(start)
		switch {
		case i == 0:
			r.Checksum = got
		case got != r.Checksum:
			b.err = fmt.Errorf("%s: checksum %s in run %d, %s in the warm-up", label, fmtChecksum(got), i, fmtChecksum(r.Checksum))
		default:
			r.Durations = append(r.Durations, d)
			if c.counters != nil {
				r.Counters = append(r.Counters, c.counters())
			}
		}
	}
	b.show("")
	if b.usable != nil {
		r.Usable = min(r.Usable, b.usable())
	}
	return r, b.err
}

// measureOne is measure for callers that collect a slice of results.
func (b *bench) measureOne(base Result, c contender) ([]Result, error) {
	r, err := b.measure(base, c)
	return []Result{r}, err
}

// workSpanRuns is how many times -workspan measures a row: it keeps the
// run of the least span, since other work on the machine only lengthens
// a strand, and the span, a longest path, takes the longest.
const workSpanRuns = 3

// measureWorkSpan measures the work and span of body on p, after prepare,
// for row r (-workspan); the checksum must be the timed runs'.
func measureWorkSpan(b *bench, r Result, p *forkjoin.Pool, prepare func(), body func(w *forkjoin.Worker) uint64) (*forkjoin.WorkSpan, error) {
	var best *forkjoin.WorkSpan
	for i := range workSpanRuns {
		if prepare != nil {
			prepare()
		}
		b.show("%s %s w=%d: work and span %d/%d", r.group(), r.Scheduler, r.Workers, i+1, workSpanRuns)
		var got uint64
		ws, err := forkjoin.MeasureWorkSpan(p, func(w *forkjoin.Worker) { got = body(w) })
		b.show("")
		switch {
		case err != nil:
			return nil, err
		case got != r.Checksum:
			return nil, fmt.Errorf("%s %s w=%d: checksum %s measuring work and span, %s in the warm-up", r.group(), r.Scheduler, r.Workers, fmtChecksum(got), fmtChecksum(r.Checksum))
		case best == nil || ws.Span < best.Span:
			best = &ws
		}
	}
	return best, nil
}

// workSpanBuilt reports whether this binary measures work and span.
func workSpanBuilt() bool {
	p := forkjoin.New(forkjoin.Workers(1))
	defer p.Close()
	_, err := forkjoin.MeasureWorkSpan(p, func(*forkjoin.Worker) {})
	return err == nil
}

// add appends what a measurement returned to the section; the bench keeps
// its error, which the scenario returns at the end.
func (s *Section) add(rs []Result, _ error) { s.Results = append(s.Results, rs...) }

// show rewrites the progress line on a terminal; "" clears it.
func (b *bench) show(format string, args ...any) {
	if b.progress != nil {
		fmt.Fprintf(b.progress, "\r\033[K"+format, args...)
	}
}

// checkGroups insists that every result of a group did the same work: equal
// checksums across schedulers, baselines and worker counts.
func checkGroups(rs []Result) error {
	for _, g := range groupsOf(rs) {
		ref := &rs[g[0]]
		for _, i := range g[1:] {
			if r := &rs[i]; r.Checksum != ref.Checksum {
				return fmt.Errorf("%s: %s w=%d computed checksum %s, %s w=%d computed %s",
					r.group(), r.Scheduler, r.Workers, fmtChecksum(r.Checksum),
					ref.Scheduler, ref.Workers, fmtChecksum(ref.Checksum))
			}
		}
	}
	return nil
}

// measureOurs measures body on an fjkit pool for every mode and worker
// count: a fresh pool per measurement, its counters reset before every run
// and read after it. prepare (may be nil) runs untimed before every run;
// the scheduler is named mode+suffix ("ws", "shared-merge").
func measureOurs(b *bench, base Result, modeNames []string, workers []int, suffix string, prepare func(), body func(w *forkjoin.Worker) uint64) ([]Result, error) {
	var out []Result
	for _, mode := range modeNames {
		for _, n := range workers {
			p := forkjoin.New(forkjoin.Workers(n), forkjoin.WithMode(modes[mode].mode))
			r, _ := b.measure(base, contender{scheduler: mode + suffix, workers: n,
				prepare: func() {
					if prepare != nil {
						prepare()
					}
					p.ResetStats()
				},
				work:     func() uint64 { return forkjoin.Invoke(p, body) },
				counters: p.Stats,
			})
			if b.workspan && b.err == nil {
				r.WorkSpan, b.err = measureWorkSpan(b, r, p, prepare, body)
			}
			p.Close()
			out = append(out, r)
		}
	}
	return out, b.err
}
