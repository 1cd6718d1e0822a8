//go:build unix

package par_test

import (
	"syscall"
	"time"
)

// processCPU returns the CPU time the process has used, all threads: on a
// machine shared with other loads, wall time says how much of the CPU the
// benchmark got, CPU time how much work it did.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
