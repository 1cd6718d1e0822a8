//go:build !race && !fjkit_workspan

package forkjoin

import "unsafe"

// raceStrands is false outside race builds and work/span builds (the
// fjkit_workspan tag, workspan_on.go): every strand-mode branch
// (strand.go) is dead code the compiler removes.
const raceStrands = false

func raceDisable()               {}
func raceEnable()                {}
func raceRelease(unsafe.Pointer) {}
func raceAcquire(unsafe.Pointer) {}

// raceWorker and racePool take no room outside race builds.
//
//lint:ignore U1000 the race build's fields (race.go)
type raceWorker struct{}

//lint:ignore U1000 the race build's fields (race.go)
type racePool struct{}

func (w *Worker) strandState() *strandState   { return nil }
func (w *Worker) setStrandState(*strandState) {}
func (w *Worker) inStrand() bool              { return false }
func (p *Pool) initRace()                     {}
func (p *Pool) strandPool() bool              { return false }
