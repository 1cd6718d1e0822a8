package forkjoin

import (
	"testing"
	"time"
)

// TestInjectorRootPolicy checks the idle worker's choice from the injector
// (popForIdle, pickInvocation): first come, first served while that meets the
// deadlines; a root that can no longer make its deadline passed over; the
// earliest deadline first only to save it, and only if the oldest can
// afford the wait; and first-come order whenever the injector holds work of
// a running invocation (rehomed jobs).
//
// The old rule, which served the newest root with a deadline first once the
// oldest had waited a millisecond, failed "backed up, the same deadline
// each": under a load the pool kept up with (16 handlers, 20 ms deadlines)
// it made the oldest requests miss their deadlines, 12-17 % of them
// (BenchmarkDeadlineServe).
func TestInjectorRootPolicy(t *testing.T) {
	const est = time.Millisecond // what a root takes to run, lately
	// invIn returns a root queued waited ago, with a deadline left from now
	// (0: none).
	invIn := func(waited, left time.Duration) *job {
		r := &invocation{queued: now() - waited}
		if left != 0 {
			r.deadline = now() + left
		}
		return &job{inv: r}
	}
	forked := &job{inv: &invocation{queued: now() - time.Hour}, owner: &Worker{}}
	ms := time.Millisecond
	cases := []struct {
		name  string
		queue []*job
		want  int // index in queue of the job popForIdle must take
	}{
		{"not backed up", []*job{invIn(0, 20*ms), invIn(0, 20*ms)}, 0},
		{"backed up, the same deadline each", []*job{invIn(3*ms, 17*ms), invIn(2*ms, 18*ms), invIn(0, 20*ms)}, 0},
		{"backed up, newest has none", []*job{invIn(3*ms, 17*ms), invIn(0, 20*ms), invIn(0, 0)}, 0},
		{"oldest hopeless", []*job{invIn(19*ms, est), invIn(3*ms, 17*ms), invIn(0, 20*ms)}, 1},
		{"all hopeless", []*job{invIn(19*ms, est), invIn(18*ms, est/2)}, 0},
		{"a hopeless one does not count as ahead", []*job{invIn(19*ms, est), invIn(10*ms, 30*ms), invIn(0, 7*est/2)}, 1},
		{"an earlier deadline that first come would miss", []*job{invIn(2*ms, 50*ms), invIn(2*ms, 50*ms), invIn(0, 2*ms+est/2)}, 2},
		{"... unless the oldest cannot afford it", []*job{invIn(2*ms, 14*est/5), invIn(2*ms, 50*ms), invIn(0, 2*ms+est/2)}, 0},
		{"an earlier deadline that first come meets", []*job{invIn(2*ms, 50*ms), invIn(0, 10*ms)}, 0},
		{"an earlier deadline before one with none", []*job{invIn(2*ms, 0), invIn(0, 2*est+est/2)}, 1},
		{"... unless that one is starving", []*job{invIn(2*starveDelay, 0), invIn(0, 2*est+est/2)}, 0},
		{"oldest is running work", []*job{forked, invIn(0, 20*ms)}, 0},
		{"running work queued behind", []*job{invIn(19*ms, est), forked, invIn(0, 20*ms)}, 0},
		{"one job", []*job{invIn(19*ms, est)}, 0},
	}
	for _, c := range cases {
		var q queue
		q.observe(8 * est) // one observation moves the average by an eighth
		for _, j := range c.queue {
			q.push(j, nil)
		}
		if got := q.popForIdle(); got != c.queue[c.want] {
			t.Errorf("%s: popForIdle took another job than #%d", c.name, c.want)
		}
		wantForked := countForked(c.queue) - countForked([]*job{c.queue[c.want]})
		if q.size != len(c.queue)-1 || q.forked != wantForked {
			t.Errorf("%s: %d jobs left, %d of them forked; want %d and %d", c.name, q.size, q.forked, len(c.queue)-1, wantForked)
		}
	}
}

func countForked(js []*job) int {
	n := 0
	for _, j := range js {
		if j.owner != nil {
			n++
		}
	}
	return n
}
