package forkjoin

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"strings"

	"github.com/fjkit/fjkit/internal/usage"
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

// Error returns one line: the panic value, and where the panic happened,
// as the file and line of the frame that panicked, read from Stack
// ("forkjoin: task panicked: boom at /src/app/walk.go:42"). So a task
// panic that nobody recovers, which the runtime prints by its Error, names
// its origin and not only the joiner that re-raised it. The whole stack is
// in Stack, and printing the error with %+v shows it too.
//
// A misuse of the library that a task commits (a *Worker used from another
// goroutine, a handle joined twice) is no panic of the task's own: its
// Error is the misuse's message alone, which names the file and line of
// the call that misused the API.
func (e *PanicError) Error() string {
	if u, ok := e.Value.(*usage.Error); ok {
		return u.Error()
	}
	msg := strings.ReplaceAll(fmt.Sprint(e.Value), "\n", `\n`)
	if at := panicSite(e.Stack); at != "" {
		return "forkjoin: task panicked: " + msg + " at " + at
	}
	return "forkjoin: task panicked: " + msg
}

// panicSite returns the file:line of the frame that panicked in stack, a
// goroutine's stack as runtime/debug.Stack prints it while the panic is
// being recovered: the first frame below the innermost call of panic that
// is not the runtime's own (runtime.panicmem, runtime.sigpanic, the
// runtime's bounds check failures and the like raise the runtime errors).
// It returns "" if stack shows no call of panic.
func panicSite(stack []byte) string {
	lines := strings.Split(string(stack), "\n")
	for i, l := range lines {
		if !strings.HasPrefix(l, "panic(") {
			continue
		}
		// Frames come in pairs: the function's line, then a tab and
		// file:line +offset.
		for j := i + 2; j+1 < len(lines); j += 2 {
			if strings.HasPrefix(lines[j], "runtime.") {
				continue
			}
			at := strings.TrimPrefix(lines[j+1], "\t")
			if k := strings.LastIndex(at, " +0x"); k >= 0 {
				at = at[:k]
			}
			return at
		}
		return ""
	}
	return ""
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

// A CanceledError is the panic value of a call that has no error to return
// and could not do all of its work because the invocation it ran in was
// canceled (the context given to InvokeContext is done): package par's
// For, Map, Sort and the others panic with one when they are made from a
// task of such an invocation, rather than return as if they were done. Err
// is the context's error.
//
// InvokeContext, when such a panic comes out of its fn once its context is
// done, returns Err as its error instead of re-raising the panic: a
// canceled invocation ends with ctx.Err(), however deep in it the call was.
// Anywhere else it is re-raised like any panic, as a *PanicError, through
// which errors.As finds it.
type CanceledError struct {
	Err error
}

func (e *CanceledError) Error() string {
	return "forkjoin: the invocation was canceled before the call did all its work: " + e.Err.Error()
}

// Unwrap returns Err, so errors.Is(err, context.Canceled) and
// errors.Is(err, context.DeadlineExceeded) see through it.
func (e *CanceledError) Unwrap() error { return e.Err }

// canceledBy reports whether pe is the panic of a call that ctx's
// cancellation cut short (a CanceledError), ctx being done.
func canceledBy(pe *PanicError, ctx context.Context) bool {
	var ce *CanceledError
	return ctx.Err() != nil && errors.As(pe, &ce)
}

// ErrGoexit is the Value of the *PanicError a joiner sees for a task whose
// goroutine was ended by runtime.Goexit (testing.T.FailNow calls it), or
// that was running on the same worker's stack beneath such a task:
// errors.Is(err, ErrGoexit) tells such a failure from a panic.
var ErrGoexit = errors.New("forkjoin: runtime.Goexit called in a task on this worker; the task did not finish")

func goexitPanic() *PanicError { return &PanicError{Value: ErrGoexit, Stack: debug.Stack()} }

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
