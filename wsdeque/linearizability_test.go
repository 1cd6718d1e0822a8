package wsdeque

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
)

// The linearizability test records short concurrent histories of the owner's
// Push and Pop and thieves' Steal and asks porcupine whether some order of the
// operations, each placed between its call and its return, explains every
// result with a sequential deque.
//
// StealHalf is not in the model on purpose: it is not atomic. It is a run of
// single-value steals, each its own linearization point, so other operations
// may fall between the values it moves, and no one-step sequential
// "move half" would explain the histories it produces. Its guarantee is that
// every value is taken exactly once, which TestStressExactlyOnce and
// TestRaceStealHalf check by counting every value.

type opKind uint8

const (
	opPush opKind = iota
	opPop
	opSteal
)

type linInput struct {
	kind opKind
	v    byte // the value pushed
}

type linOutput struct {
	v  byte
	ok bool
}

// dequeModel is a sequential deque whose state is a string, one byte per
// value, bottom at the end; strings compare with ==, so porcupine's default
// equality and caching work.
var dequeModel = porcupine.Model{
	Init: func() any { return "" },
	Step: func(state, input, output any) (bool, any) {
		s, in, out := state.(string), input.(linInput), output.(linOutput)
		switch in.kind {
		case opPush:
			return true, s + string([]byte{in.v})
		case opPop:
			if !out.ok {
				return s == "", s
			}
			return s != "" && s[len(s)-1] == out.v, s[:max(0, len(s)-1)]
		default: // opSteal
			if !out.ok {
				return s == "", s
			}
			return s != "" && s[0] == out.v, s[min(1, len(s)):]
		}
	},
	DescribeOperation: func(input, output any) string {
		in, out := input.(linInput), output.(linOutput)
		switch in.kind {
		case opPush:
			return fmt.Sprintf("Push(%d)", in.v)
		case opPop:
			return fmt.Sprintf("Pop() = %d, %v", out.v, out.ok)
		default:
			return fmt.Sprintf("Steal() = %d, %v", out.v, out.ok)
		}
	},
	DescribeState: func(state any) string { return fmt.Sprint([]byte(state.(string))) },
}

// recorder stamps calls and returns with one shared atomic clock, so that an
// operation that returned before another was called has the smaller stamp.
type recorder struct {
	clock atomic.Int64
	mu    sync.Mutex
	ops   []porcupine.Operation
}

func (r *recorder) do(client int, in linInput, f func() linOutput) {
	call := r.clock.Add(1)
	out := f()
	ret := r.clock.Add(1)
	r.mu.Lock()
	r.ops = append(r.ops, porcupine.Operation{ClientId: client, Input: in, Call: call, Output: out, Return: ret})
	r.mu.Unlock()
}

// linRound runs one short concurrent history on a fresh deque: the owner
// pushes and pops, thieves steal, all released together.
func linRound(rng *rand.Rand, thieves, ownerOps, thiefOps int) []porcupine.Operation {
	d := New[byte](0)
	rec := new(recorder)
	next := byte(0)
	// A few values pushed before the race, so that thieves start with work.
	for range rng.IntN(3) {
		next++
		v := next
		rec.do(0, linInput{kind: opPush, v: v}, func() linOutput { d.Push(v); return linOutput{ok: true} })
	}
	var start atomic.Bool
	var ready atomic.Int32
	var wg sync.WaitGroup
	for c := 1; c <= thieves; c++ {
		delay := rng.IntN(100)
		wg.Go(func() {
			ready.Add(1)
			// Spin hard for a while before yielding (and, much later,
			// sleeping): a thief that has gone to sleep misses the
			// owner's few microseconds of work.
			for i := 0; !start.Load(); i++ {
				backoff(i, 1<<14)
			}
			for range thiefOps {
				pause(delay)
				rec.do(c, linInput{kind: opSteal}, func() linOutput { v, ok := d.Steal(); return linOutput{v, ok} })
			}
		})
	}
	plan := make([]opKind, ownerOps)
	for i := range plan {
		plan[i] = opPop
		if rng.IntN(5) < 3 {
			plan[i] = opPush
		}
	}
	spinUntil(func() bool { return ready.Load() == int32(thieves) })
	start.Store(true)
	for _, k := range plan {
		pause(rng.IntN(60))
		if k == opPush {
			next++
			v := next
			rec.do(0, linInput{kind: opPush, v: v}, func() linOutput { d.Push(v); return linOutput{ok: true} })
		} else {
			rec.do(0, linInput{kind: opPop}, func() linOutput { v, ok := d.Pop(); return linOutput{v, ok} })
		}
	}
	wg.Wait()
	return rec.ops
}

// TestLinearizable checks many short histories, each at most 16 operations
// (up to 2 values pushed first, 6-8 owner operations, 2 or 3 thieves with 2
// steals each). Only histories where a Steal overlaps a Pop can catch a race,
// and how many do depends on the scheduler, so the test runs until it has
// seen enough of them (or its time is up); the long run fails if it saw
// almost none. With one CPU or one P the two sides overlap only when the
// owner loses its thread inside an operation, which is rare and no fault of
// the deque: there the test checks its minimum of histories and does not
// hunt for overlaps.
func TestLinearizable(t *testing.T) {
	minRounds, wantOverlap, budget := 20_000, 2_000, 60*time.Second
	if testing.Short() {
		minRounds, wantOverlap, budget = 2_000, 200, 15*time.Second
	}
	canRace := runtime.NumCPU() > 1 && runtime.GOMAXPROCS(0) > 1
	if !canRace {
		wantOverlap = 0
	}
	rng := rand.New(rand.NewPCG(7, 8))
	unknown, overlapped, rounds := 0, 0, 0
	deadline := time.Now().Add(budget)
	for ; rounds < minRounds || overlapped < wantOverlap && time.Now().Before(deadline); rounds++ {
		thieves := 2 + rounds%2
		hist := linRound(rng, thieves, 6+rng.IntN(3), 2)
		res := porcupine.CheckOperationsTimeout(dequeModel, hist, time.Second)
		if res == porcupine.Unknown {
			// A busy machine can stall the checker; give it longer before
			// calling the history undecided.
			res = porcupine.CheckOperationsTimeout(dequeModel, hist, 20*time.Second)
		}
		switch res {
		case porcupine.Illegal:
			for _, op := range hist {
				t.Logf("client %d [%d, %d] %s", op.ClientId, op.Call, op.Return,
					dequeModel.DescribeOperation(op.Input, op.Output))
			}
			t.Fatalf("round %d: history of %d operations is not linearizable", rounds, len(hist))
		case porcupine.Unknown:
			unknown++
		}
		if overlaps(hist) {
			overlapped++
		}
	}
	t.Logf("%d histories, %d with a thief's Steal overlapping an owner's Pop", rounds, overlapped)
	if unknown > 0 {
		t.Errorf("%d of %d histories timed out in the checker", unknown, rounds)
	}
	if overlapped < 10 {
		// On a loaded machine (make test runs packages side by side) the
		// thieves may rarely get a core while the owner works. Do not
		// fail the quick run for that; the long run must race where it
		// can.
		switch {
		case !canRace:
			t.Logf("only %d of %d histories had a Steal overlapping a Pop: needs 2 CPUs and 2 Ps to race: NumCPU=%d GOMAXPROCS=%d",
				overlapped, rounds, runtime.NumCPU(), runtime.GOMAXPROCS(0))
		case testing.Short():
			t.Logf("only %d of %d histories had a Steal overlapping a Pop: the machine is busy", overlapped, rounds)
		default:
			t.Errorf("only %d of %d histories had a Steal overlapping a Pop; the test did not race", overlapped, rounds)
		}
	}
}

// overlaps reports whether some Steal ran at the same time as some Pop.
func overlaps(hist []porcupine.Operation) bool {
	for _, a := range hist {
		if a.Input.(linInput).kind != opPop {
			continue
		}
		for _, b := range hist {
			if b.Input.(linInput).kind == opSteal && b.Call < a.Return && a.Call < b.Return {
				return true
			}
		}
	}
	return false
}

var pauseSink atomic.Int64

// pause busy-waits for roughly n short steps, to vary interleavings.
func pause(n int) {
	for range n {
		pauseSink.Add(1)
	}
}
