package forkjoin

import (
	"errors"
	"fmt"
	"runtime/debug"
)

// ErrClosed is the panic value of Invoke, Run and InvokeContext on a closed pool.
var ErrClosed = errors.New("forkjoin: pool is closed")

// PanicError carries a panic out of a task. Join, Spawn's Future, Scope, For
// and Invoke re-raise a task's panic in the joining goroutine as a
// *PanicError, once every task forked beside it has finished.
type PanicError struct {
	// Value is what the task passed to panic.
	Value any
	// Stack is the stack of the goroutine where the panic happened, taken
	// before it unwound.
	Stack []byte
}

func (e *PanicError) Error() string {
	return fmt.Sprintf("forkjoin: task panicked: %v\n\n%s", e.Value, e.Stack)
}

// Unwrap returns Value if it is an error, so errors.Is and errors.As see
// through a PanicError.
func (e *PanicError) Unwrap() error {
	err, _ := e.Value.(error)
	return err
}

// errGoexit is the panic value a joiner sees for a task whose goroutine was
// ended by runtime.Goexit (testing.T.FailNow calls it), or that was running
// on the same worker's stack beneath such a task.
var errGoexit = errors.New("forkjoin: runtime.Goexit called in a task on this worker; the task did not finish")

func goexitPanic() *PanicError { return &PanicError{Value: errGoexit, Stack: debug.Stack()} }

// asPanicError wraps a recovered value. A *PanicError from a nested join is
// passed on as it is: it already holds the original value and stack.
func asPanicError(v any) *PanicError {
	if pe, ok := v.(*PanicError); ok {
		return pe
	}
	return &PanicError{Value: v, Stack: debug.Stack()}
}

// call runs fn(w) and returns its panic, if any, as a *PanicError.
func call[T any](w *Worker, fn func(*Worker) T) (r T, pe *PanicError) {
	defer func() {
		if v := recover(); v != nil {
			pe = asPanicError(v)
		}
	}()
	return fn(w), nil
}
