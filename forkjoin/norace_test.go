//go:build !race

package forkjoin_test

// raceEnabled tells tests to size their workloads for the race detector,
// which slows forking down by an order of magnitude.
const raceEnabled = false
