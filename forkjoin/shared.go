package forkjoin

import (
	"sync"
	"sync/atomic"
)

// queue is a mutex-protected double-ended queue of jobs. A pool uses one as
// the injector, where Invoke hands root tasks to the workers, and in
// SharedQueue mode one more for every forked task: the design where all
// workers coordinate through a single lock.
//
// Idle workers take from the front (the oldest task, usually the largest);
// a joiner takes from the back (the newest, usually its own or a close
// relative), which keeps the queue from growing breadth-first.
type queue struct {
	mu   sync.Mutex
	buf  []*job // ring buffer, len is a power of two
	head int    // index of the front
	size int
	// n mirrors size for lock-free emptiness checks by idle workers.
	n atomic.Int64
}

// lock takes the queue's lock and counts a wait when it was held, as the
// seeds do: one failed TryLock before Lock is one lock wait.
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

// popFront removes the oldest job, or returns nil.
func (q *queue) popFront(st *workerStats) *job {
	if q.n.Load() == 0 {
		return nil
	}
	q.lock(st)
	if q.size == 0 {
		q.mu.Unlock()
		return nil
	}
	j := q.buf[q.head]
	q.buf[q.head] = nil
	q.head = (q.head + 1) & (len(q.buf) - 1)
	q.size--
	q.n.Store(int64(q.size))
	q.mu.Unlock()
	return j
}

// popBack removes the newest job if want is nil or the newest job is want,
// and returns it; otherwise it returns nil.
func (q *queue) popBack(want *job, st *workerStats) *job {
	if q.n.Load() == 0 {
		return nil
	}
	q.lock(st)
	if q.size == 0 {
		q.mu.Unlock()
		return nil
	}
	i := (q.head + q.size - 1) & (len(q.buf) - 1)
	j := q.buf[i]
	if want != nil && j != want {
		q.mu.Unlock()
		return nil
	}
	q.buf[i] = nil
	q.size--
	q.n.Store(int64(q.size))
	q.mu.Unlock()
	return j
}

// popBackOf removes and returns the newest job if it belongs to invocation
// r, else returns nil: a waiting joiner helps only its own invocation (see
// Worker.waitFor).
func (q *queue) popBackOf(r *root, st *workerStats) *job {
	if q.n.Load() == 0 {
		return nil
	}
	q.lock(st)
	if q.size == 0 {
		q.mu.Unlock()
		return nil
	}
	i := (q.head + q.size - 1) & (len(q.buf) - 1)
	j := q.buf[i]
	if j.root != r {
		q.mu.Unlock()
		return nil
	}
	q.buf[i] = nil
	q.size--
	q.n.Store(int64(q.size))
	q.mu.Unlock()
	return j
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
		if q.buf[(q.head+i)&mask] != j {
			continue
		}
		for k := i; k < q.size-1; k++ {
			q.buf[(q.head+k)&mask] = q.buf[(q.head+k+1)&mask]
		}
		q.buf[(q.head+q.size-1)&mask] = nil
		q.size--
		q.n.Store(int64(q.size))
		return true
	}
	return false
}

func (q *queue) empty() bool { return q.n.Load() == 0 }
