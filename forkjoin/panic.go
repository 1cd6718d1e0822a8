package forkjoin

import (
	"errors"
	"fmt"
	"io"
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

// Error returns one line: the panic value. The stack is in Stack, and
// printing the error with %+v shows it too.
func (e *PanicError) Error() string {
	return fmt.Sprintf("forkjoin: task panicked: %v", e.Value)
}

// Format prints Error for %v and %s, and Error followed by the stack for %+v.
func (e *PanicError) Format(f fmt.State, verb rune) {
	switch {
	case verb == 'v' && f.Flag('+'):
		fmt.Fprintf(f, "%s\n\n%s", e.Error(), e.Stack)
	case verb == 'q':
		fmt.Fprintf(f, "%q", e.Error())
	default:
		io.WriteString(f, e.Error())
	}
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
// passed on as it is: it already holds the original value and stack. A nil
// *PanicError (panic((*PanicError)(nil))) is wrapped as any value is: taken
// as it is, it would read as no panic at all.
func asPanicError(v any) *PanicError {
	if pe, ok := v.(*PanicError); ok && pe != nil {
		return pe
	}
	return &PanicError{Value: v, Stack: debug.Stack()}
}

// call runs fn(w) as a task and returns its panic, if any, as a
// *PanicError; see settleTask for what it does before it returns.
func call[T any](w *Worker, fn func(*Worker) T) (r T, pe *PanicError) {
	mark := w.mark()
	ok := false
	defer func() {
		if !ok { // a panic, or runtime.Goexit
			pe = w.settleTask(mark, recover(), nil)
		}
	}()
	r = fn(w)
	ok = true
	if w.leftovers(mark) {
		pe = w.settleTask(mark, nil, nil)
	}
	return r, pe
}
