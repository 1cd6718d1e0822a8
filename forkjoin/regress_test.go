package forkjoin_test

import (
	"runtime"
	"testing"
	"time"

	"github.com/fjkit/fjkit/forkjoin"
)

// Regression tests for three scheduling bugs a review found: each failed
// before its fix.

var spawnDepth int

func spawnFib(w *forkjoin.Worker, n int) int {
	if n < 2 {
		var pcs [4096]uintptr
		spawnDepth = max(spawnDepth, runtime.Callers(0, pcs[:]))
		return n
	}
	a := forkjoin.Spawn(w, func(w *forkjoin.Worker) int { return spawnFib(w, n-1) })
	b := forkjoin.Spawn(w, func(w *forkjoin.Worker) int { return spawnFib(w, n-2) })
	return a.Join(w) + b.Join(w) // spawn order: a's join runs b on the spot
}

// Joining futures in spawn order must not make a join run its ancestors'
// pending work inline: the stack would grow with the number of tasks (it
// reached tens of thousands of frames at n=20).
func TestSpawnInOrderStackDepth(t *testing.T) {
	p := forkjoin.New(forkjoin.Workers(1))
	defer p.Close()
	spawnDepth = 0
	if got := forkjoin.Invoke(p, func(w *forkjoin.Worker) int { return spawnFib(w, 20) }); got != serialFib(20) {
		t.Fatalf("spawnFib(20) = %d; want %d", got, serialFib(20))
	}
	// A frame or three per level of recursion, plus the runtime's.
	if spawnDepth > 400 {
		t.Errorf("deepest stack %d frames for a recursion 20 deep; joins are running ancestors' work inline", spawnDepth)
	}
}

// A worker that runs a scope's task while in the middle of another task must
// not hold the scope's count until that task ends: the scope's owner would
// wait for unrelated work, here for ever.
func TestScopeCountNotHeldByBusyWorker(t *testing.T) {
	p := hangPool(t, forkjoin.Workers(2))
	withTimeout(t, 10*time.Second, func() {
		forkjoin.Run(p, func(w *forkjoin.Worker) {
			sCh := make(chan *forkjoin.S)
			spawned := make(chan struct{})
			done := make(chan struct{})
			forkjoin.Join(w,
				func(w *forkjoin.Worker) int {
					forkjoin.Scope(w, func(s *forkjoin.S) { sCh <- s; <-spawned })
					close(done)
					return 0
				},
				func(w *forkjoin.Worker) int { // runs on the other worker
					s := <-sCh
					forkjoin.Join(w,
						func(w *forkjoin.Worker) int { s.GoFrom(w, func(*forkjoin.Worker) {}); return 0 },
						func(w *forkjoin.Worker) int { return 0 })
					close(spawned)
					<-done // only the scope's return lets this task end
					return 0
				})
		})
	})
}

// A root task submitted while a joiner is parked on its latch must not wait
// for that join: the joiner, woken, takes it (or another worker does). The
// join's other side waits for the root task, with a deadline.
func TestInvokeWhileJoinerWaits(t *testing.T) {
	p := forkjoin.New(forkjoin.Workers(3))
	defer p.Close()
	started := make(chan struct{})
	secondDone := make(chan struct{})
	go func() {
		<-started
		time.Sleep(50 * time.Millisecond) // let the joiner park
		forkjoin.Run(p, func(*forkjoin.Worker) {})
		close(secondDone)
	}()
	var timedOut bool
	forkjoin.Run(p, func(w *forkjoin.Worker) {
		forkjoin.Join(w,
			func(w *forkjoin.Worker) int { <-started; return 0 },
			func(w *forkjoin.Worker) int {
				close(started)
				select {
				case <-secondDone:
				case <-time.After(5 * time.Second):
					timedOut = true
				}
				return 0
			})
	})
	if timedOut {
		t.Fatal("an empty Invoke did not run while a joiner was parked on its latch")
	}
}
