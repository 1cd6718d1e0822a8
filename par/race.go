//go:build race

package par

import (
	"os"
	"sync"
)

// strandRace reports, in race builds, whether pools run in strand mode:
// unless FJKIT_RACE=scheduler (read at the first call). Then every call, of
// any size, runs its user functions on the pool as logically parallel
// pieces, so that the race detector sees them as unordered.
var strandRace = sync.OnceValue(func() bool { return os.Getenv("FJKIT_RACE") != "scheduler" })

func strandCalls() bool { return strandRace() }
