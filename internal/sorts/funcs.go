package sorts

import (
	"sync"

	"github.com/fjkit/fjkit/forkjoin"
)

// One Func per sorter type.
//
// A sort's tasks fork through a forkjoin.Func. A Func made per call, from a
// method value of the call's sorter, would capture the sorter and with it
// the caller's slice; the pool's workers keep free job records keyed by
// their Func, so the slice would stay reachable after the sort returned,
// for as long as the pool lives (for forkjoin.Default, the process). So
// each sorter type has one Func, made on first use, and every task's
// argument carries its sorter instead: the pool clears a record's argument
// when it frees the record.

// taskArg is the argument of a sort's Func: the sorter and the step.
type taskArg[P, S any] struct {
	p    P // *quickSorter[E, K] or *mergeSorter[E, K]
	step S
}

// funcs holds one *forkjoin.Func[taskArg[P, S], R] per sorter type P, keyed
// by a nil P (comparable: its dynamic type is the key).
var funcs sync.Map

// funcFor returns the Func of sorter type P, making it with body on first
// use.
func funcFor[P, S, R any](body func(w *forkjoin.Worker, a taskArg[P, S]) R) *forkjoin.Func[taskArg[P, S], R] {
	var key P
	if f, ok := funcs.Load(any(key)); ok {
		return f.(*forkjoin.Func[taskArg[P, S], R])
	}
	f, _ := funcs.LoadOrStore(any(key), forkjoin.NewFunc(body))
	return f.(*forkjoin.Func[taskArg[P, S], R])
}
