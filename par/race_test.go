//go:build race

package par_test

import "os"

// raceEnabled tells tests to size their workloads for the race detector.
const raceEnabled = true

// strandMode reports whether pools run in strand mode, as they do in race
// builds unless FJKIT_RACE=scheduler: each piece on a goroutine of its own,
// so tests of which workers ran what do not hold there.
func strandMode() bool { return os.Getenv("FJKIT_RACE") != "scheduler" }
