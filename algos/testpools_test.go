package algos

import (
	"fmt"
	"testing"

	"github.com/fjkit/fjkit/forkjoin"
)

// testModes are the two schedulers every parallel algorithm is tested under.
var testModes = []struct {
	name string
	mode forkjoin.Mode
}{
	{"WorkStealing", forkjoin.WorkStealing},
	{"SharedQueue", forkjoin.SharedQueue},
}

// testWorkerCounts: one worker runs every fork inline or from its own
// deque; two and four (on fewer cores) make thieves and joins interleave.
var testWorkerCounts = []int{1, 2, 4}

// eachPool runs fn as a subtest on a fresh pool for every scheduler mode and
// worker count.
func eachPool(t *testing.T, fn func(t *testing.T, p *forkjoin.Pool)) {
	t.Helper()
	for _, m := range testModes {
		for _, n := range testWorkerCounts {
			t.Run(fmt.Sprintf("%s/workers=%d", m.name, n), func(t *testing.T) {
				p := forkjoin.New(forkjoin.Workers(n), forkjoin.WithMode(m.mode))
				defer p.Close()
				fn(t, p)
			})
		}
	}
}

// panicMessage runs fn and returns what it panicked with, formatted, or ""
// if it returned normally.
func panicMessage(fn func()) (msg string) {
	defer func() {
		if r := recover(); r != nil {
			msg = fmt.Sprint(r)
		}
	}()
	fn()
	return ""
}
