package main

import (
	"strconv"
)

// seedTask is the seeds' unit of work: weight rounds of a 64-bit linear
// congruential step followed by an xorshift, from seed|1. The weight sets how
// long a task computes against how often the scheduler is asked for the next.
func seedTask(seed uint64, weight int) uint64 {
	state := seed | 1
	for range weight {
		state = state*6364136223846793005 + 1
		state ^= state >> 33
	}
	return state
}

// seedWork is one flat run: task i stores its result in out[i], and the
// checksum is the sum of out after all have finished. Writing to a slot of its
// own keeps the tasks from contending on a shared accumulator, so that only the
// scheduler's coordination is measured; the sum catches a dropped or repeated
// task, which a XOR would let cancel out in pairs.
type seedWork struct {
	weight int
	out    []uint64
}

func (s *seedWork) task(i int) { s.out[i] = seedTask(uint64(i), s.weight) }

func (s *seedWork) sum() uint64 {
	var c uint64
	for _, v := range s.out {
		c += v
	}
	return c
}

func (s *seedWork) reset() { clear(s.out) }

// runSeed measures the seeds' flat workload: first every scheduler over
// cfg.workers at the first weight, then the fjkit schedulers over cfg.sweep
// at every weight.
func runSeed(cfg *config, b *bench) (Section, error) {
	sec := Section{Name: "seed"}
	sw := &seedWork{out: make([]uint64, cfg.tasks)}
	base := func(weight int) Result {
		return Result{Scenario: "seed", Params: []Param{{"weight", strconv.Itoa(weight)}}, Work: float64(cfg.tasks), Unit: "tasks"}
	}
	add := func(r Result, err error) error {
		if err == nil {
			sec.Results = append(sec.Results, r)
		}
		return err
	}
	n := cfg.tasks
	for wi, weight := range cfg.weights {
		sw.weight = weight
		br := base(weight)
		if err := add(b.measure(br, contender{scheduler: "serial", prepare: sw.reset, work: func() uint64 {
			for i := range n {
				sw.task(i)
			}
			return sw.sum()
		}})); err != nil {
			return sec, err
		}
		if wi > 0 {
			continue // the sweep compares the fjkit schedulers only
		}
		for _, w := range cfg.workers {
			p := newChanPool(w)
			err := add(b.measure(br, contender{scheduler: "chanpool", workers: w, prepare: sw.reset, work: func() uint64 {
				p.flat(n, sw.task)
				return sw.sum()
			}}))
			p.close()
			if err != nil {
				return sec, err
			}
		}
		for _, w := range cfg.workers {
			if err := add(b.measure(br, contender{scheduler: "errgroup", workers: w, prepare: sw.reset, work: func() uint64 {
				flatErrgroup(w, n, sw.task)
				return sw.sum()
			}})); err != nil {
				return sec, err
			}
		}
		if err := add(b.measure(br, contender{scheduler: "goroutines", prepare: sw.reset, work: func() uint64 {
			flatGoroutines(n, sw.task)
			return sw.sum()
		}})); err != nil {
			return sec, err
		}
	}
	return sec, nil
}
