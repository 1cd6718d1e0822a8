// Package usage makes the panic values of fjkit's misuse checks: a message
// that names the entry point and what to do, and the line of the caller's
// code that misused it.
package usage

import (
	"runtime"
	"strconv"
	"strings"
)

// An Error is the panic value of a misuse: Msg says what was wrong, Site
// is file:line of the frame that called into the library.
type Error struct {
	Msg  string
	Site string
}

// Error returns the message and the call site.
func (e *Error) Error() string {
	if e.Site == "" {
		return e.Msg
	}
	return e.Msg + " (at " + e.Site + ")"
}

// New returns the panic value for the misuse msg, with the site of the
// innermost caller outside the library's packages. Call it only to panic:
// it walks the stack.
func New(msg string) *Error {
	return &Error{Msg: msg, Site: callerSite()}
}

// library lists the package path prefixes whose frames are fjkit's own
// code, not the caller's: a function name is the package path, a dot, and
// the name, so "forkjoin." does not match the tests' "forkjoin_test.".
var library = []string{
	"github.com/fjkit/fjkit/forkjoin.",
	"github.com/fjkit/fjkit/par.",
	"github.com/fjkit/fjkit/internal/usage.",
	"runtime.",
}

func callerSite() string {
	var pcs [32]uintptr
	n := runtime.Callers(3, pcs[:]) // above New
	frames := runtime.CallersFrames(pcs[:n])
	for {
		f, more := frames.Next()
		if !isLibrary(f.Function) {
			return f.File + ":" + strconv.Itoa(f.Line)
		}
		if !more {
			return ""
		}
	}
}

func isLibrary(fn string) bool {
	for _, p := range library {
		if strings.HasPrefix(fn, p) {
			return true
		}
	}
	return false
}
