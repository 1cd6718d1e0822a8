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
// from the injector, see popForIdle for when another root goes first);
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
	// invTime is the injector's estimate of how long a root runs, in
	// nanoseconds (observe); pickInvocation reads it.
	invTime atomic.Int64
}

// count updates forked for j, added (d = 1) or removed (d = -1). The
// caller holds q.mu.
func (q *queue) count(j *job, d int) {
	if j.owner != nil {
		q.forked += d
	}
}

// lock takes the queue's lock and counts a wait when it was held, as the
// reference experiment counts them: one failed TryLock before Lock is one
// lock wait.
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
// the injector: the oldest, except that among roots with deadlines it
// passes over one that can no longer make its deadline, and takes a root
// out of turn only to save a deadline that first-come order would miss and
// only where the root it overtakes can afford the wait (pickInvocation).
// While the injector holds any job that is not a root (work of a running
// invocation that a waiting worker moved here, Worker.rehome) it keeps
// first-come order, so that no root overtakes that work, on which the
// invocation's waiting workers may be parked.
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
		return q.take(q.pickInvocation(now(), time.Duration(q.invTime.Load())))
	}
	return q.take(0)
}

// pickInvocation returns the position of the root an idle worker should start,
// at time t, with est the time a root has taken to run, lately (observe).
// The caller holds q.mu and has checked that only roots are queued.
//
// The policy is first come, first served, while that meets the deadlines,
// which it does under any load the pool keeps up with; all roots alike
// (one handler's requests, the same deadline each) it is exactly that.
// Within the first pickScan roots:
//
//   - A root whose deadline is less than 2·est away is hopeless: started
//     now, it would likely be canceled midway, its work wasted. It is passed
//     over (its InvokeContext withdraws it at its deadline), unless every
//     root is: then the oldest goes. Under overload (requests arriving
//     faster than the pool answers them) this keeps the workers on
//     requests that can still be answered in time, the oldest of them
//     first, instead of on requests that would time out.
//   - The root with the earliest deadline (earliest-deadline-first) goes
//     before the oldest root worth starting only if first-come order would
//     leave it hopeless by the time it starts (at est a root for those
//     worth starting ahead of it), and the oldest can afford to wait for
//     it: it is not hopeless after one est more (3·est of slack), or,
//     without a deadline, has waited less than starveDelay. So nothing
//     waits for ever, and no root is made to miss a deadline that
//     first-come order would meet.
func (q *queue) pickInvocation(t, est time.Duration) int {
	mask := len(q.buf) - 1
	invAt := func(i int) *invocation { return q.buf[(q.head+i)&mask].inv }
	// first: the oldest root worth starting; edf: the one with the
	// earliest deadline, and ahead: how many worth starting are older.
	first, edf, ahead, worth := -1, -1, 0, 0
	for i := range min(q.size, pickScan) {
		r := invAt(i)
		if r.deadline != 0 && r.deadline-t < 2*est {
			continue // hopeless
		}
		if first < 0 {
			first = i
		}
		if r.deadline != 0 && (edf < 0 || r.deadline < invAt(edf).deadline) {
			edf, ahead = i, worth
		}
		worth++
	}
	switch {
	case first < 0:
		return 0 // all hopeless: the oldest may still make it
	case edf < 0 || edf == first:
		return first
	}
	e, f := invAt(edf), invAt(first)
	fifoMisses := e.deadline-t < time.Duration(ahead+2)*est // started after those ahead, with less than 2·est left
	affords := f.deadline != 0 && f.deadline-t >= 3*est || f.deadline == 0 && t-f.queued < starveDelay
	if fifoMisses && affords {
		return edf
	}
	return first
}

// The injector's root policy's bounds (pickInvocation): it looks at the oldest
// pickScan roots, and a root without a deadline that has waited starveDelay
// is overtaken by none.
const (
	pickScan    = 64
	starveDelay = 100 * time.Millisecond
)

// observe records that a root ran for d, from its start to its end, in the
// estimate pickInvocation works with: a moving average over the last few roots
// (a weight of 1/8 each), kept by the injector. Workers that end roots at
// the same time may lose one of their updates, which an average can
// afford; it costs no lock.
func (q *queue) observe(d time.Duration) {
	old := q.invTime.Load()
	q.invTime.Store(old + (int64(d)-old)/8)
}

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
func (q *queue) popNewestOf(r *invocation, st *workerStats) *job {
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
func (q *queue) hasOf(r *invocation) bool {
	if q.n.Load() == 0 {
		return false
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.newestOf(r) >= 0
}

// newestOf returns the position (0 = front) of the newest job of r, or -1.
// The caller holds q.mu.
func (q *queue) newestOf(r *invocation) int {
	mask := len(q.buf) - 1
	for i := q.size - 1; i >= 0; i-- {
		if q.buf[(q.head+i)&mask].inv == r {
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

// popForkedOf removes and returns the oldest forked job (not a root) of
// invocation r, wherever it is in the queue, or returns nil: the injector
// holds such jobs when a waiting worker stole them for another invocation
// (Worker.rehome), and their invocation's waiting workers may run them. A
// waiting worker never takes a root, so one queued ahead must not hide
// them: if every worker waits in r, nobody else would ever take them. It
// scans only while the queue holds forked jobs, which is rare.
func (q *queue) popForkedOf(r *invocation) *job {
	if q.n.Load() == 0 {
		return nil
	}
	q.lock(nil)
	defer q.mu.Unlock()
	if i := q.findForkedOf(r); i >= 0 {
		return q.take(i)
	}
	return nil
}

// hasForkedOf reports whether popForkedOf(r) would take a job.
func (q *queue) hasForkedOf(r *invocation) bool {
	if q.n.Load() == 0 {
		return false
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.findForkedOf(r) >= 0
}

// findForkedOf returns the position of the oldest forked job of r, or -1.
// The caller holds q.mu.
func (q *queue) findForkedOf(r *invocation) int {
	if q.forked == 0 {
		return -1
	}
	mask := len(q.buf) - 1
	for i := 0; i < q.size; i++ {
		if j := q.buf[(q.head+i)&mask]; j.inv == r && j.owner != nil {
			return i
		}
	}
	return -1
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
