package par

import (
	"iter"
	"reflect"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"

	"github.com/fjkit/fjkit/forkjoin"
)

// ForEach calls body(e) for every element e of seq, in parallel. One
// goroutine pulls seq, element by element (a worker of the pool, or the
// caller when the pool has one worker or the process one P), and hands each
// element to a task; the other workers run the bodies, and the pulling
// worker does too when many are waiting. So it is for bodies that cost much more than pulling an
// element, such as a file to parse per entry of a directory walk, or a
// record to process per row of a scanner: elements that are cheap to
// process are better collected in a slice and given to For or Map.
//
// ForEach returns once every body has returned. A panic in a body stops
// the pulling (the element being pulled is the last) and comes out of
// ForEach as a *forkjoin.PanicError once the bodies already started have
// returned; so does a panic in seq itself.
func ForEach[E any](seq iter.Seq[E], body func(E)) {
	if seq == nil || body == nil {
		panic("par.ForEach: seq and body must not be nil")
	}
	if pullsAlone() && !strandCalls() {
		defer rewrap()
		for e := range seq {
			body(e)
		}
		return
	}
	f := eachFunc[E]()
	run(func(w *forkjoin.Worker) {
		var stop atomic.Bool
		forkjoin.Scope(w, func(s *forkjoin.S) {
			for e := range seq {
				if stop.Load() || w.Canceled() {
					return
				}
				f.Go(s, eachArg[E]{body: body, e: e, stop: &stop})
			}
		})
	})
}

// ForEach2 is ForEach for a sequence of pairs: it calls body(k, v) for
// every pair of seq, in parallel, with the same rules.
func ForEach2[K, V any](seq iter.Seq2[K, V], body func(K, V)) {
	if seq == nil || body == nil {
		panic("par.ForEach2: seq and body must not be nil")
	}
	if pullsAlone() && !strandCalls() {
		defer rewrap()
		for k, v := range seq {
			body(k, v)
		}
		return
	}
	f := eachFunc[pair[K, V]]()
	run(func(w *forkjoin.Worker) {
		var stop atomic.Bool
		pairBody := func(p pair[K, V]) { body(p.k, p.v) }
		forkjoin.Scope(w, func(s *forkjoin.S) {
			for k, v := range seq {
				if stop.Load() || w.Canceled() {
					return
				}
				f.Go(s, eachArg[pair[K, V]]{body: pairBody, e: pair[K, V]{k, v}, stop: &stop})
			}
		})
	})
}

// pullsAlone reports whether ForEach is to run every body as it pulls it:
// with one worker, or one P (GOMAXPROCS, a process pinned to one CPU), no
// body would run beside the pulling, so a panicking one would be found
// only after the pulling had gone on without bound.
func pullsAlone() bool { return workers() == 1 || runtime.GOMAXPROCS(0) == 1 }

type pair[K, V any] struct {
	k K
	v V
}

// eachArg is one body of a ForEach: the task's argument, carried in the
// spawn record, so a spawn allocates nothing.
type eachArg[E any] struct {
	body func(E)
	e    E
	stop *atomic.Bool // set by a panicking body: pull no more
}

// eachFuncs holds one *forkjoin.Func[eachArg[E], struct{}] per E: a Func
// per call would keep the caller's body reachable from the workers' record
// caches after the call.
var eachFuncs sync.Map // reflect.Type -> *forkjoin.Func[eachArg[E], struct{}]

func eachFunc[E any]() *forkjoin.Func[eachArg[E], struct{}] {
	k := reflect.TypeFor[E]()
	if f, ok := eachFuncs.Load(k); ok {
		return f.(*forkjoin.Func[eachArg[E], struct{}])
	}
	f, _ := eachFuncs.LoadOrStore(k, forkjoin.NewFunc(eachTask[E]))
	return f.(*forkjoin.Func[eachArg[E], struct{}])
}

// eachTask runs one body. A panic stops the pulling, and goes on as a
// *forkjoin.PanicError made here, so that its stack and location are the
// body's.
func eachTask[E any](_ *forkjoin.Worker, a eachArg[E]) struct{} {
	defer func() {
		if v := recover(); v != nil {
			a.stop.Store(true)
			if pe, ok := v.(*forkjoin.PanicError); ok && pe != nil {
				panic(pe)
			}
			panic(&forkjoin.PanicError{Value: v, Stack: debug.Stack()})
		}
	}()
	a.body(a.e)
	return struct{}{}
}
