package forkjoin

import (
	"fmt"
	"runtime"
)

// Mode selects how a pool schedules forked tasks.
type Mode int

const (
	// WorkStealing gives each worker its own Chase-Lev deque. A worker pushes
	// what it forks, pops it back if nobody took it, and steals from a random
	// victim when it runs dry. This is the default.
	WorkStealing Mode = iota
	// SharedQueue puts every forked task on one mutex-protected queue that all
	// workers take from: the design most tutorials start with, kept as a
	// fallback and as the baseline that shows what stealing buys.
	SharedQueue
)

func (m Mode) String() string {
	switch m {
	case WorkStealing:
		return "work-stealing"
	case SharedQueue:
		return "shared-queue"
	}
	return fmt.Sprintf("Mode(%d)", int(m))
}

// StealPolicy selects how much a thief takes from its victim.
type StealPolicy int

const (
	// StealHalf moves half of the victim's deque (at least one task) to the
	// thief, as the Go scheduler's runqgrab does. The default.
	StealHalf StealPolicy = iota
	// StealOne takes a single task, the oldest.
	StealOne
)

func (s StealPolicy) String() string {
	switch s {
	case StealHalf:
		return "steal-half"
	case StealOne:
		return "steal-one"
	}
	return fmt.Sprintf("StealPolicy(%d)", int(s))
}

type config struct {
	workers int
	mode    Mode
	steal   StealPolicy
}

// An Option configures a Pool made by New.
type Option func(*config)

// Workers sets the number of worker goroutines. The default, and what
// Workers(0) means, is runtime.GOMAXPROCS(0) when the pool is made (at most
// 65536). It panics if n < 0 or n > 65536: a worker holds about 6 KB and a
// goroutine, and a pool is for the machine's cores, a few times over at most.
func Workers(n int) Option {
	if n < 0 || n > maxWorkers {
		panic(fmt.Sprintf("forkjoin.Workers: n must be from 0 to %d, got %d", maxWorkers, n))
	}
	return func(c *config) {
		if n == 0 {
			c.workers = procsWorkers()
			return
		}
		c.workers = n
	}
}

// maxWorkers bounds a pool's size (Workers, FJKIT_WORKERS).
const maxWorkers = 1 << 16

// procsWorkers is the default size: GOMAXPROCS, within maxWorkers.
func procsWorkers() int { return min(runtime.GOMAXPROCS(0), maxWorkers) }

// WithMode sets the scheduling mode (WorkStealing by default).
func WithMode(m Mode) Option {
	if m != WorkStealing && m != SharedQueue {
		panic(fmt.Sprintf("forkjoin.WithMode: unknown mode %d", int(m)))
	}
	return func(c *config) { c.mode = m }
}

// WithSteal sets the steal policy of a work-stealing pool (StealHalf by default).
func WithSteal(s StealPolicy) Option {
	if s != StealHalf && s != StealOne {
		panic(fmt.Sprintf("forkjoin.WithSteal: unknown policy %d", int(s)))
	}
	return func(c *config) { c.steal = s }
}

func defaultConfig() config {
	return config{workers: procsWorkers(), mode: WorkStealing, steal: StealHalf}
}
