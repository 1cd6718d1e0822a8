package forkjoin

import (
	"sync"
	"sync/atomic"
	"time"
)

// queue is a mutex-protected double-ended queue of jobs. A pool uses one as
// the injector, where Invoke hands root tasks to the workers, and in
// SharedQueue mode one more for every forked task: the design where all
// workers coordinate through a single lock.
//
// Idle workers take from the front (the oldest task, usually the largest;
// from the injector, see popForIdle for when the newest root goes first);
// a joiner takes from the back (the newest, usually its own or a close
// relative), which keeps the queue from growing breadth-first.
type queue struct {
	mu   sync.Mutex
	buf  []*job // ring buffer, len is a power of two
	head int    // index of the front
	size int
	// n mirrors size for lock-free emptiness checks by idle workers.
	n atomic.Int64
	// forked counts the queued jobs that are not roots (owner != nil): in
	// the injector, the work of running invocations that waiting workers
	// moved there (Worker.rehome); see popForIdle.
	forked int
}

// count updates forked for j, added (d = 1) or removed (d = -1). The
// caller holds q.mu.
func (q *queue) count(j *job, d int) {
	if j.owner != nil {
		q.forked += d
	}
}

// lock takes the queue's lock and counts a wait when it was held, as the
// tiny-tasks experiment does: one failed TryLock before Lock is one lock wait.
func (q *queue) lock(st *workerStats) {
	if q.mu.TryLock() {
		return
	}
	if st != nil {
		st.lockWaits.Add(1)
	}
	q.mu.Lock()
}

func (q *queue) push(j *job, st *workerStats) {
	q.lock(st)
	if q.size == len(q.buf) {
		q.grow()
	}
	q.buf[(q.head+q.size)&(len(q.buf)-1)] = j
	q.size++
	q.count(j, 1)
	q.n.Store(int64(q.size))
	q.mu.Unlock()
}

func (q *queue) grow() {
	nb := make([]*job, max(16, 2*len(q.buf)))
	for i := 0; i < q.size; i++ {
		nb[i] = q.buf[(q.head+i)&(len(q.buf)-1)]
	}
	q.buf, q.head = nb, 0
}

// popFront removes the oldest job, or returns nil: every idle worker's
// take from the shared queue. It unlocks without a defer, as popBack does.
func (q *queue) popFront(st *workerStats) *job {
	if q.n.Load() == 0 {
		return nil
	}
	q.lock(st)
	if q.size == 0 {
		q.mu.Unlock()
		return nil
	}
	j := q.take(0)
	q.mu.Unlock()
	return j
}

// popForIdle removes and returns the job an idle worker should start from
// the injector: the oldest, unless the injector is backed up with
// invocations that have deadlines. When the oldest job is a root that has
// waited longer than backlogDelay (but not yet starveDelay), and the newest
// is a root whose context has a deadline, it takes the newest.
//
// Why. Under overload a first-come queue makes every request wait for the
// whole queue: with clients that send a new request as soon as the last
// one timed out, the queue stays full, each request waits longer than its
// deadline, and almost all of them time out (fjbench serve shows it;
// docs/benchmarks.md). Serving the newest request first while the queue is backed up
// ("adaptive LIFO") starts requests while they can still make their
// deadline; the old ones would time out anyway and are withdrawn when they
// do (InvokeContext). While the injector holds any job that is not a root (work of a
// running invocation that a waiting worker moved here, Worker.rehome) it
// keeps first-come order, so that no new root overtakes that work, on which
// the invocation's waiting workers may be parked. Roots without a deadline
// keep their order too: the newest is taken only if it has a deadline, and
// a root that has waited starveDelay is taken first whatever is behind it,
// so nothing waits for ever.
func (q *queue) popForIdle() *job {
	if q.n.Load() == 0 {
		return nil
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.size == 0 {
		return nil
	}
	if q.size > 1 && q.forked == 0 { // only roots queued
		front, back := q.buf[q.head], q.buf[(q.head+q.size-1)&(len(q.buf)-1)]
		if waited := now() - front.root.queued; waited > backlogDelay && waited < starveDelay && back.root.deadline {
			return q.take(q.size - 1)
		}
	}
	return q.take(0)
}

// The injector's backlog thresholds (popForIdle): a root that waited
// backlogDelay means the pool is not keeping up; one that waited starveDelay
// is served before anything newer.
const (
	backlogDelay = time.Millisecond
	starveDelay  = 100 * time.Millisecond
)

// popBack removes and returns the newest job if it is want, and nil
// otherwise: a joiner takes its own job back.
//
// It is every shared-queue join's take-back, so it spells out take(size-1)
// and unlocks without a defer: the two calls cost a fifth of a shared-queue
// fork (BenchmarkFib30/shared-func).
func (q *queue) popBack(want *job, st *workerStats) *job {
	if q.n.Load() == 0 {
		return nil
	}
	q.lock(st)
	i := (q.head + q.size - 1) & (len(q.buf) - 1)
	if q.size == 0 || q.buf[i] != want {
		q.mu.Unlock()
		return nil
	}
	q.buf[i] = nil
	q.size--
	q.count(want, -1)
	q.n.Store(int64(q.size))
	q.mu.Unlock()
	return want
}

// popNewestOf removes and returns the newest job of invocation r, or nil:
// a waiting worker helps only its own invocation (see Worker.waitFor). With
// one invocation at a time that is the newest job; with several, the scan
// goes past other invocations' jobs, which only workers of theirs (or idle
// ones) may run: taking the newest job alone, a worker waiting in a nested
// invocation whose newest entry belonged to the outer one could wait for
// ever with every other worker doing the same.
func (q *queue) popNewestOf(r *root, st *workerStats) *job {
	if q.n.Load() == 0 {
		return nil
	}
	q.lock(st)
	defer q.mu.Unlock()
	if i := q.newestOf(r); i >= 0 {
		return q.take(i)
	}
	return nil
}

// hasOf reports whether the queue holds a job of invocation r.
func (q *queue) hasOf(r *root) bool {
	if q.n.Load() == 0 {
		return false
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.newestOf(r) >= 0
}

// newestOf returns the position (0 = front) of the newest job of r, or -1.
// The caller holds q.mu.
func (q *queue) newestOf(r *root) int {
	mask := len(q.buf) - 1
	for i := q.size - 1; i >= 0; i-- {
		if q.buf[(q.head+i)&mask].root == r {
			return i
		}
	}
	return -1
}

// take removes and returns the job at position i (0 = front): the front
// by moving head, any other by closing the gap from behind. The caller
// holds q.mu.
func (q *queue) take(i int) *job {
	mask := len(q.buf) - 1
	j := q.buf[(q.head+i)&mask]
	if i == 0 {
		q.buf[q.head] = nil
		q.head = (q.head + 1) & mask
	} else {
		for k := i; k < q.size-1; k++ {
			q.buf[(q.head+k)&mask] = q.buf[(q.head+k+1)&mask]
		}
		q.buf[(q.head+q.size-1)&mask] = nil
	}
	q.size--
	q.count(j, -1)
	q.n.Store(int64(q.size))
	return j
}

// popFrontOf removes and returns the oldest job if it is a forked job (not a
// root) of invocation r, else returns nil: the injector holds such jobs
// when a waiting worker stole them for another invocation (Worker.rehome),
// and their invocation's waiting workers may run them.
func (q *queue) popFrontOf(r *root) *job {
	if q.n.Load() == 0 {
		return nil
	}
	q.lock(nil)
	defer q.mu.Unlock()
	if q.size == 0 {
		return nil
	}
	if j := q.buf[q.head]; j.root != r || j.owner == nil {
		return nil
	}
	return q.take(0)
}

// frontIsForkedOf reports whether popFrontOf(r) would take a job.
func (q *queue) frontIsForkedOf(r *root) bool {
	if q.n.Load() == 0 {
		return false
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.size > 0 && q.buf[q.head].root == r && q.buf[q.head].owner != nil
}

// remove takes j out of the queue wherever it is and reports whether it was
// there. It scans the whole queue, so it serves only rare paths: a join
// unwinding from a panic discarding its forked side (Worker.discard), and
// InvokeContext withdrawing a canceled root that no worker has started.
func (q *queue) remove(j *job, st *workerStats) bool {
	q.lock(st)
	defer q.mu.Unlock()
	mask := len(q.buf) - 1
	for i := 0; i < q.size; i++ {
		if q.buf[(q.head+i)&mask] == j {
			q.take(i)
			return true
		}
	}
	return false
}

func (q *queue) empty() bool { return q.n.Load() == 0 }
