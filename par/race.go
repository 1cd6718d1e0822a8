//go:build race

package par

import "os"

// strandRace is set in race builds unless FJKIT_RACE=scheduler, when pools
// run in strand mode (see the forkjoin package doc): then every call, of any
// size, runs its user functions on the pool as logically parallel pieces,
// so that the race detector sees them as unordered.
var strandRace = os.Getenv("FJKIT_RACE") != "scheduler"

func strandCalls() bool { return strandRace }
