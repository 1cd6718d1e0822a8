package forkjoin

import (
	"testing"
	"time"
)

// TestInjectorServesNewestDeadlineRootWhenBackedUp checks the idle
// worker's choice from the injector (popForIdle): the oldest job, except
// that a root with a deadline at the back goes first once the oldest root
// has waited backlogDelay, until it has waited starveDelay, and never
// while the injector holds work of a running invocation (rehomed jobs).
func TestInjectorServesNewestDeadlineRootWhenBackedUp(t *testing.T) {
	rootJob := func(waited time.Duration, deadline bool) *job {
		r := &root{queued: now() - waited, deadline: deadline}
		return &job{root: r}
	}
	forked := &job{root: &root{queued: now() - time.Hour}, owner: &Worker{}}
	cases := []struct {
		name  string
		queue []*job
		want  int // index in queue of the job popForIdle must take
	}{
		{"not backed up", []*job{rootJob(0, true), rootJob(0, true)}, 0},
		{"backed up, newest has a deadline", []*job{rootJob(2*backlogDelay, true), rootJob(0, false), rootJob(0, true)}, 2},
		{"backed up, newest has none", []*job{rootJob(2*backlogDelay, true), rootJob(0, true), rootJob(0, false)}, 0},
		{"oldest starving", []*job{rootJob(2*starveDelay, false), rootJob(0, true)}, 0},
		{"oldest is running work", []*job{forked, rootJob(0, true)}, 0},
		{"running work queued behind", []*job{rootJob(2*backlogDelay, true), forked, rootJob(0, true)}, 0},
		{"one job", []*job{rootJob(2*backlogDelay, true)}, 0},
	}
	for _, c := range cases {
		var q queue
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
