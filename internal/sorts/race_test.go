//go:build race

package sorts

import "os"

// The comparison-count tests count in a plain variable, and the adversary
// of TestSortsComparisonsNotQuadratic answers comparisons as they come:
// both read the kernels' comparisons as one sequence, which they are on
// the scheduler's one worker, and which strand mode (where the race
// detector reports that counter) runs in parallel strands. So these tests
// run the scheduler under -race unless FJKIT_RACE says otherwise.
func init() {
	if os.Getenv("FJKIT_RACE") == "" {
		os.Setenv("FJKIT_RACE", "scheduler")
	}
}
