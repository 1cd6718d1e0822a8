package forkjoin

import (
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"time"
)

// The blocking monitor: spare workers for tasks that block without saying
// so.
//
// Blocking is the explicit form: a task that knows it will wait says so,
// and the pool lends a spare at once. A task that blocks plainly (on a
// channel, a mutex, a sync.Cond, time.Sleep, I/O, or a Wait of any kind)
// holds its worker, and a pool whose workers are all blocked runs nothing,
// not even the task they wait for. The monitor finds such workers and
// compensates them, as Go's sysmon retakes the P of a thread stuck in a
// system call (handoffp) and .NET's thread pool injects a thread when its
// queue stops moving (starvation injection; Java's ForkJoinPool does the
// same for a ManagedBlocker, which is Blocking here).
//
// The rules:
//
//  1. Each worker counts its progress (progressState.progress): at every
//     clock read, about every checkPeriod while it runs tasks or forks; at
//     its first check (every checkStride ticks at most) after a sample
//     asked (progressState.asked), so that a worker whose ticks slow down,
//     queuing for a lock say, still answers within a few ticks; and
//     whenever it comes out of a park. None of it is on a fork or join
//     path: a check is already the slow path of a tick.
//  2. The monitor, one goroutine per pool, samples while any worker is
//     awake: every monitorTick while it may soon have to act, that is
//     while no worker is parked idle and either the pool does not move
//     (no awake worker made progress since the last sample) or the
//     monitor has spares out; otherwise the period doubles at each
//     sample, up to maxMonitorTick. A timer that fires while the pool
//     keeps every P busy costs the workers time out of proportion to the
//     monitor's own (docs/benchmarks.md, "The blocking monitor's
//     period"), so a pool that moves is looked at seldom; a worker parked
//     idle is capacity no spare could add to (rule 3), so a pool that has
//     one is looked at seldom too, and uses next to no CPU while its
//     other workers stay blocked. A worker is blocked at a sample if
//     it is not parked idle, not dormant, not inside Blocking
//     (compensated already), and its progress has not moved for
//     stillTime, as the samples measure it: it runs a task that neither
//     forks nor ends, or it is parked as a joiner (a waiting worker runs
//     only its own invocation's work) and nothing woke it. A sample that
//     comes late (the process got no processor) counts for nothing.
//  3. The pool starves when work waits (a root in the injector, a task on
//     a deque or the shared queue) while no worker searches, no worker is
//     parked idle, no awake worker made progress since the last sample,
//     and more workers are blocked than the monitor has spares out, and
//     the scheduler confirms it: fewer goroutines run or wait for a
//     processor (runtime/metrics) than the pool has awake workers, so some
//     are truly blocked, not computing. Then it activates one spare per
//     sample (blocking.go's set, up to maxSpares with Blocking's) while no
//     other goroutine runs; while one does, it may be what the blocked
//     workers wait for (a long task that holds their lock, say), so a
//     spare is lent only when none is out, a starveTick after the pool
//     began to starve. Workers that queue for a lock another worker holds
//     get no spare while the holder moves: more workers would only add
//     contenders. A worker in a long serial leaf runs, and gets no spare;
//     while the program's other goroutines keep every processor busy, the
//     confirmation may not come, and the blocked work waits for a free
//     processor as a goroutine would wait for one.
//  4. When fewer workers are blocked than the monitor has spares out, it
//     retires the excess, newest first: each finishes the task it runs and
//     goes dormant. A retired spare still finishing its task counts as
//     lent in rule 3: a long task would otherwise make room for a new
//     spare at every sample.
//  5. When every worker is parked or dormant and the monitor has no spare
//     out, it sleeps until a worker wakes (unpark kicks it), and samples
//     next a monitorTick after: an idle pool uses no CPU. Unless a worker
//     is parked as a joiner while work waits: a joiner runs only its own
//     invocation's work, so with every worker parked nobody may be able
//     to take that work, and the monitor stays awake, to lend a spare by
//     rule 3 (a parked joiner whose wake-up never comes counts as blocked).
//
// So a spare starts between stillTime and 2·maxMonitorTick+stillTime
// (10 to 138 ms) after a pool that moved, or had a worker idle, stalls
// while work waits and no other goroutine runs: the first sample after the
// stall may still see the progress made before it, the next one sees the
// stall. A pool that stalls just after it woke from idle gets its spare
// after about stillTime, its period still short. Each further spare the
// same blockage needs comes stillTime+monitorTick (about 11 ms) after the
// last. Work hidden in a blocked worker's lazy frames or open spawn batch
// is not seen: those only it can publish (Blocking does, as does Tasks.Go,
// which forks eagerly).
const (
	monitorTick    = time.Millisecond
	maxMonitorTick = 64 * time.Millisecond
	stillTime      = 10 * time.Millisecond // time without progress that makes a worker blocked
	starveTick     = 100 * time.Millisecond
)

// MaxSpares bounds the compensating workers a pool lends at once, through
// Blocking and its monitor together: every worker's ID is below
// Workers()+MaxSpares, the size of a per-worker table that spares may
// index too.
const MaxSpares = maxSpares

// progressState is a worker's part in the monitor's samples.
type progressState struct {
	progress atomic.Uint64 // rule 1; written by the worker's goroutine only
	asked    atomic.Bool   // set by the monitor at a sample; the worker's next check answers (rule 1)
	blocking atomic.Bool   // inside Blocking: compensated already
	inTasks  []*Tasks      // the sets whose tasks run on the worker's stack, innermost last (tasks.go)
}

// madeProgress counts one unit of w's progress (rule 1). Only w's
// goroutine calls it.
func (w *Worker) madeProgress() { w.progress.Store(w.progress.Load() + 1) }

// answerMonitor counts progress if the monitor asked since w's last
// answer (rule 1): one atomic load per check, a store per sample. Only w's
// goroutine calls it.
func (w *Worker) answerMonitor() {
	if w.asked.Load() {
		w.asked.Store(false)
		w.madeProgress()
	}
}

// monitor is a pool's blocking monitor's state.
type monitor struct {
	mu      sync.Mutex // held while the monitor activates a spare, and by Close to stop it
	stopped bool       // guarded by mu
	asleep  atomic.Bool
	kick    chan struct{} // capacity 1

	// The monitor goroutine's own.
	spares  []*Worker       // spares it activated and has not retired, oldest first
	last    []uint64        // each live worker's progress at the last sample
	still   []time.Duration // each live worker's time without progress, as the samples saw it
	sampled time.Duration
	tick    time.Duration // the period to the next sample (rule 2)
	samples int           // samples taken, for tests (read after Close)
	parked  []uint8       // sample's scratch
	starved time.Duration
	sched   [2]metrics.Sample
}

// startMonitor starts p's monitor goroutine (New).
func (p *Pool) startMonitor() {
	p.mon.kick = make(chan struct{}, 1)
	p.wg.Add(1)
	go p.monitorLoop()
}

// wakeMonitor wakes the monitor if it sleeps (rule 5): a worker calls it
// when it comes out of a park.
func (p *Pool) wakeMonitor() {
	if m := &p.mon; m.asleep.Load() && m.asleep.CompareAndSwap(true, false) {
		select {
		case m.kick <- struct{}{}:
		default:
		}
	}
}

// stopMonitor makes the monitor exit, and keeps it from activating spares
// from now on (Close, once no invocation runs).
func (p *Pool) stopMonitor() {
	m := &p.mon
	m.mu.Lock()
	m.stopped = true
	m.mu.Unlock()
	select {
	case m.kick <- struct{}{}:
	default:
	}
}

// allParked reports whether every live worker is parked or dormant.
func (p *Pool) allParked() bool {
	return p.sleep.idle() >= p.size+int(p.spares.active.Load())
}

// maySleep reports whether the monitor may sleep (rule 5): every live
// worker is parked or dormant, and none is parked as a joiner while work
// waits.
func (p *Pool) maySleep() bool {
	return p.allParked() && (!p.sleep.joinerParked() || !p.workWaits(p.live()))
}

func (p *Pool) monitorLoop() {
	defer p.wg.Done()
	m := &p.mon
	m.tick = monitorTick
	timer := time.NewTimer(m.tick)
	defer timer.Stop()
	for {
		woke := false
		if len(m.spares) == 0 && p.maySleep() {
			m.asleep.Store(true)
			if p.maySleep() {
				<-m.kick
				woke = true
			}
			m.asleep.Store(false)
		} else {
			timer.Reset(m.tick)
			select {
			case <-timer.C:
			case <-m.kick:
			}
		}
		m.mu.Lock()
		stopped := m.stopped
		m.mu.Unlock()
		if stopped {
			return
		}
		if woke {
			// A worker came out of a park: the first sample comes a
			// monitorTick later, not now, when nothing can have stalled
			// yet.
			m.sampled = now()
			m.tick = monitorTick
			continue
		}
		if p.sample() {
			m.tick = min(2*m.tick, maxMonitorTick)
		} else {
			m.tick = monitorTick
		}
	}
}

// sample is one look of the monitor (rules 2 to 4). It reports whether
// the pool is calm (rule 2): a worker is parked idle, or the pool moved
// and no spare is out.
func (p *Pool) sample() (calm bool) {
	m := &p.mon
	ws := p.live()
	for len(m.last) < len(ws) {
		m.last = append(m.last, ^uint64(0))
		m.still = append(m.still, 0)
	}
	m.samples++
	// A sample that comes late, the monitor's timer overshooting, says
	// that the process got no processor for a while: the workers' progress
	// stalled with it, and counts for nothing.
	t := now()
	elapsed := t - m.sampled
	late := elapsed > 3*m.tick
	m.sampled = t
	// Who is parked, and how: the sleep protocol's state, under its lock.
	idleParked := 0
	parked := m.parked[:0] // 0 awake, 1 parked idle or dormant, 2 parked joining
	for range ws {
		parked = append(parked, 0)
	}
	m.parked = parked
	p.sleep.mu.Lock()
	for i, x := range ws {
		if x.isParked {
			if x.joining {
				parked[i] = 2
			} else {
				parked[i] = 1
				idleParked++
			}
		}
	}
	p.sleep.mu.Unlock()
	winding := 0 // retired spares still finishing a task: lent, though no longer in m.spares
	p.spares.mu.Lock()
	for i, x := range ws {
		if x.spare && x.dormant {
			parked[i] = 1
		} else if x.spare && x.retired.Load() {
			winding++
		}
	}
	p.spares.mu.Unlock()

	blocked, awake, moved := 0, 0, false
	for i, x := range ws {
		if parked[i] != 1 {
			awake++
		}
		prog := x.progress.Load()
		x.asked.Store(true)
		if prog != m.last[i] && parked[i] != 1 {
			moved = true
		}
		if prog != m.last[i] || late || parked[i] == 1 || x.blocking.Load() {
			m.still[i] = 0
		} else if m.still[i] += elapsed; m.still[i] >= stillTime {
			blocked++
		}
		m.last[i] = prog
	}
	calm = idleParked > 0 || moved && len(m.spares)+winding == 0
	if blocked < len(m.spares) {
		for _, s := range m.spares[blocked:] {
			p.retireSpare(s)
		}
		clear(m.spares[blocked:])
		m.spares = m.spares[:blocked]
		return
	}
	if moved || blocked <= len(m.spares)+winding || idleParked > 0 || searchingOf(p.sleep.counts.Load()) > 0 || !p.workWaits(ws) {
		m.starved = 0
		return
	}
	if m.starved == 0 {
		m.starved = t
	}
	// Evidence from the scheduler: some awake worker neither runs nor
	// waits for a processor (it is blocked). A worker that computes for
	// long without a check (a long serial leaf) runs: it gets no spare.
	running, runnable := p.schedCounts()
	if running+runnable-1 >= uint64(awake) {
		return
	}
	// Another goroutine runs (the monitor is one of running): rule 3's
	// single spare, after starveTick.
	if running+runnable > 1 && (len(m.spares)+winding > 0 || t-m.starved < starveTick) {
		return
	}
	m.starved = t
	m.mu.Lock()
	if !m.stopped {
		if s := p.activateSpare(); s != nil {
			m.spares = append(m.spares, s)
		}
	}
	m.mu.Unlock()
	return calm
}

// schedCounts reads the goroutines running (the monitor among them) and
// runnable from runtime/metrics.
func (p *Pool) schedCounts() (running, runnable uint64) {
	s := &p.mon.sched
	if s[0].Name == "" {
		s[0].Name = "/sched/goroutines/runnable:goroutines"
		s[1].Name = "/sched/goroutines/running:goroutines"
	}
	metrics.Read(s[:])
	return s[1].Value.Uint64(), s[0].Value.Uint64()
}
