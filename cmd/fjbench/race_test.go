//go:build race

package main

import "os"

// fjbench measures the scheduler, and its workloads keep per-worker totals
// indexed by Worker.ID, which the scheduler runs one task at a time; in
// strand mode strands that share an ID are logically parallel and the race
// detector reports those totals. So its tests run the scheduler under
// -race unless FJKIT_RACE says otherwise.
func init() {
	if os.Getenv("FJKIT_RACE") == "" {
		os.Setenv("FJKIT_RACE", "scheduler")
	}
}
