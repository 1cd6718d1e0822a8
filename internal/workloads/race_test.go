//go:build race

package workloads

import "os"

// The tree walks keep per-worker totals indexed by Worker.ID, sound on the
// scheduler (one task at a time per worker), reported in strand mode where
// strands that share an ID are logically parallel; and the 10^6-node walks
// take minutes as strands. So these tests run the scheduler under -race
// unless FJKIT_RACE says otherwise.
func init() {
	if os.Getenv("FJKIT_RACE") == "" {
		os.Setenv("FJKIT_RACE", "scheduler")
	}
}
