//go:build !race

package par_test

// raceEnabled tells tests to size their workloads for the race detector.
const raceEnabled = false

func strandMode() bool { return false }
