package workloads

import (
	"sync"

	"github.com/fjkit/fjkit/forkjoin"
)

// The tiny-tasks experiment's own two schedulers, ported to Go as the
// baselines of fjkit's two modes. Both get every task before the clock
// starts, as the original does: the work-stealing one deals the task
// indices out to per-worker queues, the shared one puts them all in one
// queue. So they measure taking and running tasks, where a program on fjkit
// also creates the tasks while the clock runs. Both count a lock wait as
// the original does: one failed TryLock before Lock.

// Port is one of the two: Deal puts tasks 0..n-1 in its queues and resets
// its counters (untimed), Run runs them all, Counters reads what Run did.
type Port interface {
	Deal(n int)
	Run(task func(i int))
	Counters() forkjoin.Stats
}

// portQueue is one mutex-protected queue of task indices: the owner takes
// from the front, a thief takes the back half.
type portQueue struct {
	mu    sync.Mutex
	tasks []int32
	head  int
	buf   []int32 // the owner's: what it is stealing, between the two locks
	// One worker's counters, kept with its queue; the padding keeps two
	// workers' queues and counters off one cache line.
	lockWaits, steals, stolen uint64
	_                         [64]byte
}

// lock takes q's lock, counting a wait in waits when it was held.
func (q *portQueue) lock(waits *uint64) {
	if !q.mu.TryLock() {
		*waits++
		q.mu.Lock()
	}
}

// PortStealing is the experiment's work-stealing scheduler: P workers, each
// running the tasks of its own queue and, when that is dry, moving half of
// another worker's queue (the first non-empty one after its own) into its
// own. Tasks are never created while it runs, so a worker that finds every
// queue empty is done: what is left is held by workers that will run it.
type PortStealing struct {
	qs []portQueue
	n  int // tasks dealt
}

// NewPortStealing returns the scheduler for up to n tasks on workers workers.
func NewPortStealing(workers, n int) *PortStealing {
	s := &PortStealing{qs: make([]portQueue, workers)}
	for i := range s.qs {
		// A queue never holds more than its first deal: a thief's own
		// queue is empty when it steals, and it takes half of another's.
		s.qs[i].tasks = make([]int32, 0, n/workers+1)
		s.qs[i].buf = make([]int32, 0, n/workers+1)
	}
	return s
}

// Deal resets the counters and deals tasks 0..n-1 round-robin.
func (s *PortStealing) Deal(n int) {
	s.n = n
	for i := range s.qs {
		q := &s.qs[i]
		q.tasks, q.head = q.tasks[:0], 0
		q.lockWaits, q.steals, q.stolen = 0, 0, 0
	}
	for i := range n {
		q := &s.qs[i%len(s.qs)]
		q.tasks = append(q.tasks, int32(i))
	}
}

func (s *PortStealing) Run(task func(i int)) {
	var wg sync.WaitGroup
	for me := range s.qs {
		wg.Go(func() { s.work(me, task) })
	}
	wg.Wait()
}

func (s *PortStealing) work(me int, task func(i int)) {
	own := &s.qs[me]
	for {
		own.lock(&own.lockWaits)
		if own.head < len(own.tasks) {
			i := own.tasks[own.head]
			own.head++
			own.mu.Unlock()
			task(int(i))
			continue
		}
		own.tasks, own.head = own.tasks[:0], 0
		own.mu.Unlock()
		if !s.stealHalf(me) {
			return
		}
	}
}

// stealHalf moves half (rounded up) of the first non-empty queue after me's
// into me's, and reports whether it found one.
func (s *PortStealing) stealHalf(me int) bool {
	own := &s.qs[me]
	for k := 1; k < len(s.qs); k++ {
		v := &s.qs[(me+k)%len(s.qs)]
		v.lock(&own.lockWaits)
		left := len(v.tasks) - v.head
		if left == 0 {
			v.mu.Unlock()
			continue
		}
		take := (left + 1) / 2
		cut := len(v.tasks) - take
		// Through a buffer, never holding two locks: two thieves that each
		// held a victim's lock and wanted their own would deadlock.
		own.buf = append(own.buf[:0], v.tasks[cut:]...)
		v.tasks = v.tasks[:cut]
		v.mu.Unlock()
		own.lock(&own.lockWaits)
		own.tasks = append(own.tasks, own.buf...)
		own.mu.Unlock()
		own.steals++
		own.stolen += uint64(take)
		return true
	}
	return false
}

func (s *PortStealing) Counters() forkjoin.Stats {
	c := forkjoin.Stats{Tasks: uint64(s.n)}
	for i := range s.qs {
		q := &s.qs[i]
		c.LockWaits += q.lockWaits
		c.Steals += q.steals
		c.Stolen += q.stolen
	}
	return c
}

// PortShared is the experiment's global queue: every task in one
// mutex-protected queue, P workers taking one at a time from its front.
type PortShared struct {
	q       portQueue
	workers int
	waits   []portQueue // per-worker lock-wait counters (only the counters are used)
}

// NewPortShared returns the scheduler for up to n tasks on workers workers.
func NewPortShared(workers, n int) *PortShared {
	return &PortShared{q: portQueue{tasks: make([]int32, 0, n)}, workers: workers, waits: make([]portQueue, workers)}
}

func (s *PortShared) Deal(n int) {
	s.q.tasks, s.q.head = s.q.tasks[:0], 0
	for i := range n {
		s.q.tasks = append(s.q.tasks, int32(i))
	}
	for i := range s.waits {
		s.waits[i].lockWaits = 0
	}
}

func (s *PortShared) Run(task func(i int)) {
	var wg sync.WaitGroup
	for me := range s.workers {
		waits := &s.waits[me].lockWaits
		wg.Go(func() {
			for {
				s.q.lock(waits)
				if s.q.head == len(s.q.tasks) {
					s.q.mu.Unlock()
					return
				}
				i := s.q.tasks[s.q.head]
				s.q.head++
				s.q.mu.Unlock()
				task(int(i))
			}
		})
	}
	wg.Wait()
}

func (s *PortShared) Counters() forkjoin.Stats {
	c := forkjoin.Stats{Tasks: uint64(len(s.q.tasks))}
	for i := range s.waits {
		c.LockWaits += s.waits[i].lockWaits
	}
	return c
}

// Static runs task(0..n-1) with no scheduler at all: worker k of workers
// runs tasks k, k+workers, k+2·workers, ... and nothing is shared. It is the
// floor every scheduler stands on.
func Static(workers, n int, task func(i int)) {
	var wg sync.WaitGroup
	for k := range workers {
		wg.Go(func() {
			for i := k; i < n; i += workers {
				task(i)
			}
		})
	}
	wg.Wait()
}
