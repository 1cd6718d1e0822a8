//go:build race

package algos

import "os"

// utsRace is set when the race detector is on: it slows the parallel search
// of a sample tree (millions of forks, each a dozen synchronized accesses)
// by about 10×, against 6× for the serial one.
const utsRace = true

// strandMode reports whether pools run in strand mode, as they do in race
// builds unless FJKIT_RACE=scheduler: tests of what the scheduler does
// (that forks allocate nothing) do not hold there.
func strandMode() bool { return os.Getenv("FJKIT_RACE") != "scheduler" }
