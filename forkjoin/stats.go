package forkjoin

import "sync/atomic"

// Stats are a pool's scheduling counters, summed over its workers.
type Stats struct {
	Workers       int    // number of workers
	Tasks         uint64 // tasks run: forks, spawns, scope and loop tasks, and invocations
	Steals        uint64 // successful steal operations (one StealHalf counts once)
	Stolen        uint64 // tasks moved by those steals
	StealAttempts uint64 // steals tried on victims whose deque was not empty when probed, successful or not
	LockWaits     uint64 // shared mode: queue lock found held (a failed TryLock before Lock)
	Parks         uint64 // times a worker went to sleep
	Wakeups       uint64 // times a sleeping worker was woken to look for work
}

// workerStats holds one worker's counters on cache lines of their own, so
// that workers counting at once do not bounce a shared line.
type workerStats struct {
	tasks, steals, stolen, stealAttempts, lockWaits, parks, wakeups atomic.Uint64
	_                                                               [128 - 7*8]byte
}

// Stats returns the pool's counters. Task counts of work still running are
// published when each stolen task or invocation finishes, so the numbers are
// exact once Invoke has returned.
func (p *Pool) Stats() Stats {
	s := Stats{Workers: p.size}
	for _, w := range p.live() {
		st := &w.stats
		s.Tasks += st.tasks.Load()
		s.Steals += st.steals.Load()
		s.Stolen += st.stolen.Load()
		s.StealAttempts += st.stealAttempts.Load()
		s.LockWaits += st.lockWaits.Load()
		s.Parks += st.parks.Load()
		s.Wakeups += st.wakeups.Load()
	}
	return s
}

// ResetStats sets every counter to zero. Call it between measurements, while
// no invocation is running.
func (p *Pool) ResetStats() {
	for _, w := range p.live() {
		st := &w.stats
		for _, c := range []*atomic.Uint64{&st.tasks, &st.steals, &st.stolen, &st.stealAttempts, &st.lockWaits, &st.parks, &st.wakeups} {
			c.Store(0)
		}
	}
}

// flushStats publishes the tasks this worker forked since the last flush. It
// runs before a stolen task or an invocation signals completion, so whoever
// waits for that signal sees the counts.
func (w *Worker) flushStats() {
	if w.nTasks != 0 {
		w.stats.tasks.Add(w.nTasks)
		w.nTasks = 0
	}
}
