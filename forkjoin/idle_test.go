package forkjoin_test

import (
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/fjkit/fjkit/forkjoin"
)

// idleChildEnv marks the child process in which TestIdleUsesNoCPU measures.
const idleChildEnv = "FJKIT_IDLE_CHILD"

// TestIdleUsesNoCPU checks that an idle pool's workers sleep instead of
// spinning: no worker wakes over one idle second, and the whole process
// uses under 1% of a core in it. The CPU time is measured in a child
// process that runs this test alone: in the test binary's own process, the
// runtime's and the race detector's upkeep left by the tests before (their
// threads, heaps and shadow memory) costs that much by itself, and would
// count as the pool's.
func TestIdleUsesNoCPU(t *testing.T) {
	if os.Getenv(idleChildEnv) == "" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestIdleUsesNoCPU$", "-test.count=1", "-test.v")
		cmd.Env = append(os.Environ(), idleChildEnv+"=1", "GOMAXPROCS="+strconv.Itoa(runtime.GOMAXPROCS(0)))
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Errorf("child process: %v\n%s", err, out)
		} else {
			t.Logf("child process:\n%s", out)
		}
	}
	p := newPool(t, forkjoin.Workers(4))
	for range 3 {
		forkjoin.Invoke(p, func(w *forkjoin.Worker) int { return fibJoin.Call(w, 18) })
	}
	// Collect and return freed memory now, so that neither a forced GC nor
	// the background scavenger (paced at up to 1% of a core) runs during
	// the measurement: they would be the runtime's CPU, not the pool's.
	debug.FreeOSMemory()
	time.Sleep(10 * time.Millisecond) // the workers' brief search ends

	st0 := p.Stats()
	before := cpuTime(t)
	time.Sleep(time.Second)
	used := cpuTime(t) - before
	st1 := p.Stats()
	if d := st1.Wakeups - st0.Wakeups; d != 0 {
		t.Errorf("workers woke %d times in 1 s idle, want 0", d)
	}
	if os.Getenv(idleChildEnv) != "" {
		t.Logf("process CPU time over 1 s idle: %v", used)
		if used > 10*time.Millisecond {
			t.Errorf("idle pool used %v of CPU in 1 s, want < 10ms (1%% of a core)", used)
		}
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
