//go:build race

package forkjoin

import (
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe"
)

// raceStrands turns on strand mode (strand.go) in race builds.
const raceStrands = true

func init() {
	strandRegistry = new(strandTable)
	concurrentStrands = int64(max(2, runtime.GOMAXPROCS(0)))
}

// The race runtime's annotations, for strand.go.
func raceDisable()                 { runtime.RaceDisable() }
func raceEnable()                  { runtime.RaceEnable() }
func raceRelease(p unsafe.Pointer) { runtime.RaceRelease(p) }
func raceAcquire(p unsafe.Pointer) { runtime.RaceAcquire(p) }

// raceWorker is a Worker's strand-mode state: nil on a pool's own workers,
// set on the workers strand mode makes, one per strand.
type raceWorker struct{ rs *strandState }

func (w *Worker) strandState() *strandState { return w.race.rs }

func (w *Worker) setStrandState(rs *strandState) { w.race.rs = rs }

// inStrand reports whether w runs a strand: the fork points then fork
// strands (strand.go) instead of scheduling.
func (w *Worker) inStrand() bool { return w != nil && w.race.rs != nil }

// racePool records whether a pool runs its invocations as strands.
type racePool struct{ strands bool }

func (p *Pool) initRace() { p.race.strands = strandsWanted() }

// strandPool reports whether p runs its invocations as strands.
func (p *Pool) strandPool() bool { return p.race.strands }

// RaceEnv is the environment variable that chooses, in race builds, how
// pools made from then on run: "strands" (or unset) for strand mode,
// "scheduler" for the work-stealing scheduler itself.
const raceEnv = "FJKIT_RACE"

var (
	raceEnvOnce  sync.Once
	raceEnvValue bool
	// raceModeOverride, when not 0, overrides the environment: 1 strands,
	// 2 scheduler (tests of the scheduler set it).
	raceModeOverride atomic.Int32
)

func strandsWanted() bool {
	switch raceModeOverride.Load() {
	case 1:
		return true
	case 2:
		return false
	}
	raceEnvOnce.Do(func() {
		switch v := os.Getenv(raceEnv); v {
		case "", "strands":
			raceEnvValue = true
		case "scheduler":
			raceEnvValue = false
		default:
			panic("forkjoin: " + raceEnv + " must be \"strands\", \"scheduler\" or unset, got " + `"` + v + `"`)
		}
	})
	return raceEnvValue
}
