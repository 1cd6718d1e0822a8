//go:build race

package forkjoin

import "os"

// The package's tests check the scheduler itself: its steals, frames,
// records and counts, and under the race detector its own synchronization.
// So in race builds they run it, not strand mode, unless FJKIT_RACE asks
// for strands; the strand tests make their pools in strand mode
// (newStrandPool).
func init() {
	if os.Getenv(raceEnv) == "" {
		raceModeOverride.Store(2)
	}
}

// newStrandPool makes a pool in strand mode.
func newStrandPool(opts ...Option) *Pool {
	p := New(opts...)
	p.race.strands = true
	return p
}
