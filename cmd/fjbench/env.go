package main

import (
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fjkit/fjkit/internal/workloads"
)

// Env names the machine a report was measured on; numbers mean little without it.
type Env struct {
	CPU                       string
	Cores, GOMAXPROCS         int
	Go, OS, Arch              string
	UsableBefore, UsableAfter float64 // usableCores just before and just after the measurements
}

func currentEnv() Env {
	return Env{CPU: cpuModel(), Cores: runtime.NumCPU(), GOMAXPROCS: runtime.GOMAXPROCS(0),
		Go: runtime.Version(), OS: runtime.GOOS, Arch: runtime.GOARCH}
}

func (e Env) String() string {
	s := fmt.Sprintf("%s, %d cores, GOMAXPROCS=%d, %s %s/%s", e.CPU, e.Cores, e.GOMAXPROCS, e.Go, e.OS, e.Arch)
	if e.UsableBefore > 0 {
		s += fmt.Sprintf("; usable cores by a spin loop: %.2f before the run, %.2f after", e.UsableBefore, e.UsableAfter)
	}
	return s
}

// spinSink keeps the compiler from dropping the spin loops.
var spinSink atomic.Uint64

// usableCores estimates how many cores this process can use right now: the
// same spin loop on one goroutine and on GOMAXPROCS goroutines at once, the
// ratio of the two times scaled by GOMAXPROCS (median of three tries). On an
// idle machine it is close to GOMAXPROCS; other jobs on a shared machine take
// it down, and the speed-ups a run can show go down with it.
func usableCores() float64 {
	const n = 4_000_000 // a few milliseconds per loop
	spin := func() { spinSink.Add(workloads.TinyTask(n, n)) }
	p := runtime.GOMAXPROCS(0)
	var tries []float64
	for range 3 {
		start := time.Now()
		spin()
		one := time.Since(start)
		start = time.Now()
		var wg sync.WaitGroup
		for range p {
			wg.Go(spin)
		}
		wg.Wait()
		tries = append(tries, float64(p)*one.Seconds()/time.Since(start).Seconds())
	}
	slices.Sort(tries)
	return min(tries[1], float64(p))
}

// cpuModel reads the processor's name as lscpu does on Linux; elsewhere it
// says it does not know rather than guess.
func cpuModel() string {
	data, _ := os.ReadFile("/proc/cpuinfo")
	for line := range strings.Lines(string(data)) {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown CPU"
}
