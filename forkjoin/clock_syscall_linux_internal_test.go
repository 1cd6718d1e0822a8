package forkjoin

import (
	"runtime"
	"syscall"
	"testing"
)

// A goroutine blocked in a system call holds its P (until sysmon takes it
// back, which can take 10 ms), so no P is idle to run the timers on the
// worker's P: the worker must go on yielding every yieldInterval. The
// runtime counts that goroutine as "not in Go", not as running, so
// pWanted must count those too: a worker that took the P for idle would
// yield only every millisecond (about 100 times in tickWindow instead of
// about 500), and a timer on its P would fire milliseconds late.
func TestYieldBesideASystemCall(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	var fds [2]int
	if err := syscall.Pipe(fds[:]); err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(fds[0])
	defer syscall.Close(fds[1])
	released := make(chan struct{})
	go func() {
		var b [1]byte
		syscall.Read(fds[0], b[:]) // blocks in the kernel until the write below
		close(released)
	}()
	defer func() {
		syscall.Write(fds[1], []byte{0})
		<-released
	}()
	p := New(Workers(1))
	defer p.Close()
	yields := Invoke(p, func(w *Worker) uint64 { return mostYields(w, 200) })
	if yields < 200 {
		t.Errorf("1 worker on 2 Ps beside a goroutine in a system call yielded at most %d times in %v (best of 5 windows), want at least 200 (about 500 expected; about 100 if it wrongly saw an idle P)", yields, tickWindow)
	}
}
