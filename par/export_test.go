package par

// ForceParallel makes every call of more than one unit run its first unit
// serially and the rest on the pool in pieces of grain units, whatever its
// cost, so that tests reach the parallel paths and their piece boundaries
// on any input. It returns a function that restores the tuning. Tests that
// use it must not run in parallel with others.
func ForceParallel(grain int) (restore func()) {
	old := timing
	timing.probe, timing.parallel, timing.piece, timing.grain = 0, 0, 0, grain
	return func() { timing = old }
}

// Exported for tests.
var (
	MakeNoZero  = makeNoZero[uint64]
	HasPointers = hasPointers
	Chunk       = chunk
)
