package par

import (
	"runtime/debug"

	"github.com/fjkit/fjkit/forkjoin"
)

// workers returns how many workers the default pool has.
func workers() int { return forkjoin.Default().Workers() }

// rewrap, deferred by a serial path, re-raises a panic of the user's code as
// a *forkjoin.PanicError, as the parallel path does: the caller sees the same
// type whatever the input size. It captures the stack here, while the
// panicking frames are still on it.
func rewrap() {
	if v := recover(); v != nil {
		if pe, ok := v.(*forkjoin.PanicError); ok && pe != nil {
			panic(pe)
		}
		panic(&forkjoin.PanicError{Value: v, Stack: debug.Stack()})
	}
}

// run runs fn on the default pool and waits for it.
func run(fn func(w *forkjoin.Worker)) { forkjoin.Run(forkjoin.Default(), fn) }
