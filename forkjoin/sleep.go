package forkjoin

import (
	"sync"
	"sync/atomic"
)

// sleep is the pool's idle/wake protocol.
//
// A worker that runs out of work first searches (counted as searching), then
// parks: it adds itself to parked, raises idle, looks for work once more and
// only then blocks on its wake channel. A producer publishes work first (a
// deque push, a queue append) and then reads idle and searching. Go's atomics
// are sequentially consistent, so for any producer and parking worker either
// the producer sees idle > 0, or the worker's last look sees the work: a wake-up
// cannot be lost.
//
// A producer wakes one parked worker, and only when nobody is searching: a
// searching worker will find the work itself. When the last searcher finds
// work it wakes one more worker, which searches in turn. Wake-ups thus spread
// one at a time as long as work keeps appearing, with no thundering herd.
type sleep struct {
	// counts is two counts in one word, so that a producer, which checks
	// on every lazy fork whether anyone is hungry, reads both in one load:
	// idle, len(parked) (readable without the lock), in the high 32 bits;
	// searching, the workers looking for work awake, in the low 32.
	counts atomic.Uint64

	mu     sync.Mutex
	parked []*Worker
}

// A count's unit in sleep.counts, and the word's two counts.
const (
	oneSearching uint64 = 1
	oneIdle      uint64 = 1 << 32
)

func idleOf(v uint64) int      { return int(v >> 32) }
func searchingOf(v uint64) int { return int(uint32(v)) }

// addIdle and addSearching add n (negative to remove) to a count;
// addSearching returns the new counts.
func (s *sleep) addIdle(n int)             { s.counts.Add(uint64(int64(n)) * oneIdle) }
func (s *sleep) addSearching(n int) uint64 { return s.counts.Add(uint64(int64(n)) * oneSearching) }

// idle returns the number of parked workers.
func (s *sleep) idle() int { return idleOf(s.counts.Load()) }

// parking is a worker's slot in the sleep protocol.
type parking struct {
	wake        chan struct{} // parking semaphore, capacity 1: any goroutine sends (signal), the owner receives
	isParked    bool          // in pool.sleep.parked; guarded by pool.sleep.mu
	joining     bool          // parked as a joiner (on a latch or scope), not idle; guarded by pool.sleep.mu
	wokeForWork bool          // a producer's wakeOne chose us since we parked; guarded by pool.sleep.mu
}

// notify is called after new work was published.
func (s *sleep) notify() {
	if v := s.counts.Load(); idleOf(v) != 0 && searchingOf(v) == 0 {
		s.wakeOne()
	}
}

// hungry reports whether some worker is looking for work or parked.
func (s *sleep) hungry() bool { return s.counts.Load() != 0 }

// wakeOne wakes a parked worker for new work: the most recently parked idle
// one (its cache is the warmest), else the most recently parked joiner,
// which helps if the work is of its invocation (waitFor) and passes the
// wake-up on to an idle worker otherwise (park).
func (s *sleep) wakeOne() { s.wake(false) }

// wakeIdle is wakeOne restricted to idle workers: a joiner passing on a
// wake-up it cannot use calls it, and passing it to another joiner could
// bounce it between joiners for ever.
func (s *sleep) wakeIdle() { s.wake(true) }

func (s *sleep) wake(idleOnly bool) {
	s.mu.Lock()
	i := -1
	for k := len(s.parked) - 1; k >= 0; k-- {
		if !s.parked[k].joining {
			i = k
			break
		}
	}
	if i < 0 && !idleOnly {
		i = len(s.parked) - 1
	}
	if i < 0 {
		s.mu.Unlock()
		return
	}
	w := s.parked[i]
	s.parked = append(s.parked[:i], s.parked[i+1:]...)
	w.isParked = false
	w.wokeForWork = true
	s.addIdle(-1)
	s.mu.Unlock()
	w.stats.wakeups.Add(1)
	w.signal()
}

// joinerParked reports whether a worker is parked as a joiner (the
// blocking monitor's rule 5).
func (s *sleep) joinerParked() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, w := range s.parked {
		if w.joining {
			return true
		}
	}
	return false
}

// wakeJoinersOf wakes every worker parked as a joiner in invocation r: work
// that only they and idle workers may run has appeared where no producer's
// wakeOne is sure to reach them (Worker.rehome). A parked worker does not
// change its invocation, so w.inv is read safely under s.mu.
func (s *sleep) wakeJoinersOf(r *invocation) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for k := len(s.parked) - 1; k >= 0; k-- { // from the end: unlist shifts only what follows k
		if w := s.parked[k]; w.joining && w.inv == r {
			w.unlist()
			w.stats.wakeups.Add(1)
			w.signal() // never blocks: the channel holds one token
		}
	}
}

// wakeAll wakes every parked worker (used by Close).
func (s *sleep) wakeAll() {
	s.mu.Lock()
	ws := s.parked
	s.parked = nil
	for _, w := range ws {
		w.isParked = false
	}
	s.addIdle(-len(ws))
	s.mu.Unlock()
	for _, w := range ws {
		w.signal()
	}
}

// maySearch reports whether an idle worker may start searching: while fewer
// than half of the n workers' busy ones are searching (Go's scheduler spins
// at most that many Ms). The others go straight to the last look and park.
func (s *sleep) maySearch(n int) bool {
	v := s.counts.Load()
	return 2*searchingOf(v) < n-idleOf(v)
}

// startSearching and stopSearching bracket a worker's search for work. When
// the last searcher finds work, there may be more where it came from, so it
// wakes a parked worker to keep looking.
func (s *sleep) startSearching() { s.addSearching(1) }

func (s *sleep) stopSearching(found bool) {
	if v := s.addSearching(-1); searchingOf(v) == 0 && found && idleOf(v) != 0 {
		s.wakeOne()
	}
}

// park blocks w until it is woken. pr, if not nil, is the condition w waits
// for (a latch or a scope); park returns at once if it already holds. After
// park returns the caller looks for work or checks its condition again:
// wake-ups can be spurious. Only w's goroutine calls it.
//
// A joiner (pr != nil) that a producer woke for work (wakeOne) passes the
// wake-up on to an idle worker: it may be leaving (its condition holds) or
// unable to run the work (another invocation's; see waitFor), and a wake-up
// spent on it would otherwise be lost while an idle worker sleeps on.
func (w *Worker) park(pr probe) {
	w.flushHeld() // nobody may wait on counts we hold while we sleep
	w.flushGiveBack()
	p := w.pool
	s := &p.sleep
	if pr != nil && !pr.arm(w) {
		return
	}
	s.mu.Lock()
	s.parked = append(s.parked, w)
	w.isParked = true
	w.joining = pr != nil
	s.addIdle(1)
	s.mu.Unlock()

	// The last look, after raising idle (see the type comment): for a
	// joiner, at its condition and the work it may run (hasWorkFor).
	var work bool
	if pr == nil {
		work = p.hasWork(w)
	} else {
		work = pr.done() || p.hasWorkFor(w, w.inv)
	}
	blocked := !work && !p.shutdown.Load()
	if blocked {
		w.stats.parks.Add(1)
		<-w.wake
	}
	wokeForWork, signaled := w.unpark()
	if signaled && !blocked {
		// Whoever took w off the list sends it one wake-up: take it
		// now, or w's next park would return at once, and w would be
		// awake while it looks parked to the others' counts.
		<-w.wake
	}
	if wokeForWork && pr != nil {
		s.wakeIdle()
	}
}

// unpark takes w off the parked list if nobody else did (a producer's
// wakeOne, Close, or a latch or scope waking its owner: see wakeOwner), and
// reports whether a producer's wakeOne chose w since it parked, and whether
// anybody else took w off the list, which then sends w a wake-up. Only w's
// goroutine calls it.
func (w *Worker) unpark() (wokeForWork, signaled bool) {
	s := &w.pool.sleep
	s.mu.Lock()
	signaled = !w.isParked
	w.unlist()
	wokeForWork, w.wokeForWork = w.wokeForWork, false
	s.mu.Unlock()
	w.madeProgress()
	w.pool.wakeMonitor()
	return wokeForWork, signaled
}

// unlist removes w from the parked list if it is on it. The caller holds
// pool.sleep.mu.
func (w *Worker) unlist() {
	s := &w.pool.sleep
	if !w.isParked {
		return
	}
	for i, x := range s.parked {
		if x == w {
			s.parked = append(s.parked[:i], s.parked[i+1:]...)
			break
		}
	}
	w.isParked = false
	s.addIdle(-1)
}

// wakeOwner wakes w, parked (or about to park) on a latch or scope that has
// just been set. It takes w off the parked list first, so that a producer's
// wakeOne cannot spend its wake-up on a worker that is leaving anyway while a
// worker idle in its loop sleeps on. Any goroutine may call it.
func (w *Worker) wakeOwner() {
	s := &w.pool.sleep
	s.mu.Lock()
	w.unlist()
	s.mu.Unlock()
	w.signal()
}

// signal hands w a wake-up token. The channel holds one token, so wake-ups
// that arrive while one is pending merge into it.
func (w *Worker) signal() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}
