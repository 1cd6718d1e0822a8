package par_test

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/fjkit/fjkit/forkjoin"
	"github.com/fjkit/fjkit/par"
	gocmp "github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"
)

// childEnv, when set, makes the test binary a child process for
// TestWorkersEnv instead of running tests: the default pool must be made
// after the child's environment is in place, and only once per process.
const childEnv = "PAR_TEST_CHILD"

// TestMain fails the run if a test leaves a goroutine behind. The default
// pool lives as long as the process, so it is started first; and it follows
// GOMAXPROCS, so a -cpu run of another size replaces it by a pool whose
// workers are not in that first snapshot: workers are not counted as
// leaks. Every pool a test makes itself is closed (newPool), and Close
// returns once its workers have exited.
func TestMain(m *testing.M) {
	v := os.Getenv(childEnv)
	switch name, setDefault := strings.CutPrefix(v, "setdefault:"); {
	case v == "":
	case v == "scan":
		scanChild()
		os.Exit(0)
	case setDefault:
		setDefaultChild(name)
		os.Exit(0)
	default:
		child()
		os.Exit(0)
	}
	forkjoin.Default()
	goleak.VerifyTestMain(m, goleak.IgnoreCurrent(),
		goleak.IgnoreAnyFunction("github.com/fjkit/fjkit/forkjoin.(*Worker).loop"),
		goleak.IgnoreAnyFunction("github.com/fjkit/fjkit/forkjoin.(*Pool).monitorLoop"))
}

// child reports the default pool's size and runs a parallel call on it. A
// bad FJKIT_WORKERS panics in Default, which exits the child with the panic
// on stderr.
func child() {
	n := forkjoin.Default().Workers()
	s := make([]int, 1<<16)
	for i := range s {
		s[i] = len(s) - i
	}
	par.Sort(s)
	fmt.Printf("workers=%d sorted=%v\n", n, slices.IsSorted(s))
}

// diff is cmp.Diff(want, got, opts...) with a fast path: go-cmp walks
// slices by reflection, which on the long inputs costs more than the calls
// under test, so equal slices are recognised first.
func diff[E comparable](want, got []E, opts ...gocmp.Option) string {
	if slices.Equal(want, got) && (want == nil) == (got == nil) {
		return ""
	}
	return gocmp.Diff(want, got, opts...)
}

// newPool returns a pool of n workers that is closed when the test ends.
func newPool(t testing.TB, n int) *forkjoin.Pool {
	t.Helper()
	p := forkjoin.New(forkjoin.Workers(n))
	t.Cleanup(p.Close)
	return p
}
