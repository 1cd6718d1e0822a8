package forkjoin_test

import (
	"runtime/debug"
	"syscall"
	"testing"
	"time"

	"github.com/fjkit/fjkit/forkjoin"
)

// TestIdleUsesNoCPU checks that an idle pool's workers sleep instead of
// spinning: over one idle second the whole process uses under 1% of a core.
// It must not run in parallel with other tests (none in this package call
// t.Parallel), or their CPU time would count.
func TestIdleUsesNoCPU(t *testing.T) {
	p := newPool(t, forkjoin.Workers(4))
	for range 3 {
		forkjoin.Invoke(p, func(w *forkjoin.Worker) int { return fibJoin.Call(w, 18) })
	}
	// Collect and return freed memory now, so that neither a forced GC nor
	// the background scavenger (paced at up to 1% of a core) runs during
	// the measurement: they would be the runtime's CPU, not the pool's.
	debug.FreeOSMemory()
	time.Sleep(10 * time.Millisecond) // the workers' brief search ends

	before := cpuTime(t)
	time.Sleep(time.Second)
	used := cpuTime(t) - before
	t.Logf("process CPU time over 1 s idle: %v", used)
	if used > 10*time.Millisecond {
		t.Errorf("idle pool used %v of CPU in 1 s, want < 10ms (1%% of a core)", used)
	}
	// And it still works.
	if got := forkjoin.Invoke(p, func(w *forkjoin.Worker) int { return fibJoin.Call(w, 10) }); got != 55 {
		t.Errorf("fib(10) after idling = %d", got)
	}
}

func cpuTime(t *testing.T) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
