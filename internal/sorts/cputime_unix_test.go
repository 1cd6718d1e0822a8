//go:build unix

package sorts

import (
	"syscall"
	"time"
)

// processCPU returns the CPU time the process has used, user and system.
// Benchmarks report it beside the wall time: on a shared machine the wall
// time of a parallel sort says as much about the neighbours as about the
// sort, while the CPU time is its work (idle workers' searching included).
func processCPU() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
