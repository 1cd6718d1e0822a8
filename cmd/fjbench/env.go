package main

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"strings"
)

// Env names the machine a report was measured on; numbers mean little without it.
type Env struct {
	CPU        string `json:"cpu"`
	Cores      int    `json:"cores"`
	GOMAXPROCS int    `json:"gomaxprocs"`
	Go         string `json:"go"`
	OS         string `json:"goos"`
	Arch       string `json:"goarch"`
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
	return fmt.Sprintf("%s, %d cores, GOMAXPROCS=%d, %s %s/%s", e.CPU, e.Cores, e.GOMAXPROCS, e.Go, e.OS, e.Arch)
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
