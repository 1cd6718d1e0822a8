package main

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Env names the machine a report was measured on; numbers mean little without it.
type Env struct {
	CPU        string `json:"cpu"`
	Cores      int    `json:"cores"`
	GOMAXPROCS int    `json:"gomaxprocs"`
	Go         string `json:"go"`
	OS         string `json:"goos"`
	Arch       string `json:"goarch"`
	// Usable is how many of the GOMAXPROCS cores a spin loop could use just
	// before and just after the measurements (see usableCores); on a machine
	// shared with other jobs it says how much of the machine the run had.
	UsableBefore float64 `json:"usable_cores_before,omitempty"`
	UsableAfter  float64 `json:"usable_cores_after,omitempty"`
}

func currentEnv() Env {
	return Env{
		CPU:        cpuModel(),
		Cores:      runtime.NumCPU(),
		GOMAXPROCS: runtime.GOMAXPROCS(0),
		Go:         runtime.Version(),
		OS:         runtime.GOOS,
		Arch:       runtime.GOARCH,
	}
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

func spin(n int) {
	s := uint64(n) | 1
	for range n {
		s = s*6364136223846793005 + 1
		s ^= s >> 33
	}
	spinSink.Add(s)
}

// usableCores estimates how many cores this process can use right now: the
// same spin loop on one goroutine and on GOMAXPROCS goroutines at once, the
// ratio of the two times scaled by GOMAXPROCS (median of three tries). On an
// idle machine it is close to GOMAXPROCS; other jobs on the machine take it
// down, and the speed-ups a run can show go down with it.
func usableCores() float64 {
	const n = 4_000_000 // a few milliseconds per loop
	p := runtime.GOMAXPROCS(0)
	var tries []float64
	for range 3 {
		start := time.Now()
		spin(n)
		one := time.Since(start)
		start = time.Now()
		var wg sync.WaitGroup
		for range p {
			wg.Go(func() { spin(n) })
		}
		wg.Wait()
		all := time.Since(start)
		tries = append(tries, float64(p)*one.Seconds()/all.Seconds())
	}
	slices.Sort(tries)
	return min(tries[1], float64(p))
}

// cpuModel reads the processor's name the way lscpu does on Linux; elsewhere
// it says it does not know rather than guess.
func cpuModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return "unknown CPU"
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown CPU"
}
