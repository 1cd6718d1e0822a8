// Package wsdeque provides Deque, a generic Chase-Lev work-stealing deque.
//
// One goroutine owns a Deque and uses it as a stack: Push and Pop work at the
// bottom, newest first, with no lock: Push costs one fenced store; Pop costs
// a fenced store and a load, or the thieves' CAS when at most one value is
// left, and a CAS besides when it races thieves for the last value (see
// docs/deque.md for which path runs when). A push+pop pair costs less than
// half what it costs on a mutex-guarded slice. Any number of other
// goroutines, the thieves, take the oldest values from the top with Steal
// (one CAS) or move half of them to a deque of their own with StealHalf.
// A fork-join scheduler gives each worker one Deque: a worker pushes the work
// it forks and pops it back when nobody took it, and idle workers steal.
//
// An owner that pushes many values in a row can skip the fenced store per
// value: PushLocal adds a value that thieves do not see yet, and Publish
// makes all of them visible with one store. Pop takes unpublished values with
// no atomic operation at all.
//
// # Invariants
//
//   - Indices are int64 and only grow at the top: top counts values ever taken
//     from the top, bottom is one past the newest published value; bottom -
//     top is the length thieves see. Pop on an empty deque cannot underflow.
//   - Thieves see only published values: those below bottom, which Push and
//     Publish store. Values pushed with PushLocal above it are the owner's
//     alone until then; Len counts published values only.
//   - Every value pushed is removed at most once: by Pop, by Steal or by
//     StealHalf. Thieves claim index top with a CAS; the owner claims the
//     last value with the same CAS and every other value by moving bottom
//     below it before it reads top.
//   - The ring is a power of two and grows by doubling when full. The owner
//     never writes to a ring after replacing it, so a thief that still holds
//     an old ring reads consistent values; the garbage collector keeps that
//     ring alive for as long as the thief needs it.
//   - No slot is written while a thief may be reading it: thieves announce
//     themselves in a counter; before reusing a slot that a slow thief might
//     still read, the owner waits a moment for the counter to drop to zero,
//     or else moves to a fresh ring. The race detector therefore never sees a
//     racing pair of accesses (the stress, race and linearizability tests run
//     under -race in make test).
//
// docs/deque.md in the repository gives the algorithm, the memory-ordering
// argument under Go's sequentially consistent sync/atomic, and why StealHalf
// claims values one CAS at a time.
package wsdeque
