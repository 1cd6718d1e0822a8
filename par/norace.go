//go:build !race

package par

// strandCalls is false outside race builds: the branches it guards are
// dead code.
func strandCalls() bool { return false }
