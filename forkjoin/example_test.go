package forkjoin_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/fjkit/fjkit/forkjoin"
)

// fib forks both recursive calls through a Func: no allocation per fork. A
// Func whose body forks itself is assigned in init, as its initializer would
// otherwise refer to itself.
var fib *forkjoin.Func[int, int]

func init() { fib = forkjoin.NewFunc(fibBody) }

func fibBody(w *forkjoin.Worker, n int) int {
	if n < 2 {
		return n
	}
	a, b := fib.Join(w, n-1, n-2)
	return a + b
}

func ExampleNew() {
	p := forkjoin.New(forkjoin.Workers(4), forkjoin.WithMode(forkjoin.WorkStealing), forkjoin.WithSteal(forkjoin.StealHalf))
	defer p.Close()
	fmt.Println(p.Workers(), p.Mode())
	fmt.Println(forkjoin.Invoke(p, func(w *forkjoin.Worker) int { return fib.Call(w, 30) }))
	// Output:
	// 4 work-stealing
	// 832040
}

// fibFast is fib with the inline-join guard.
var fibFast *forkjoin.Func[int, int]

func init() { fibFast = forkjoin.NewFunc(fibFastBody) }

func fibFastBody(w *forkjoin.Worker, n int) int {
	if n < 2 {
		return n
	}
	if w.Inline() {
		// Join would run both calls here, one after the other: make them
		// as direct calls, which cost what the serial recursion's do.
		return fibFastBody(w, n-1) + fibFastBody(w, n-2)
	}
	a, b := fibFast.Join(w, n-1, n-2)
	return a + b
}

func ExampleWorker_Inline() {
	p := forkjoin.New(forkjoin.Workers(2))
	defer p.Close()
	fmt.Println(forkjoin.Invoke(p, func(w *forkjoin.Worker) int { return fibFast.Call(w, 30) }))
	// Output: 832040
}

func ExampleInvoke() {
	p := forkjoin.New(forkjoin.Workers(2))
	defer p.Close()
	// Invoke runs the function on a worker and waits for it and for
	// everything it forked.
	sum := forkjoin.Invoke(p, func(w *forkjoin.Worker) int {
		a, b := forkjoin.Join(w,
			func(*forkjoin.Worker) int { return 40 },
			func(*forkjoin.Worker) int { return 2 })
		return a + b
	})
	fmt.Println(sum)
	// Output: 42
}

func ExampleRun() {
	p := forkjoin.New(forkjoin.Workers(2))
	defer p.Close()
	squares := make([]int, 8)
	forkjoin.Run(p, func(w *forkjoin.Worker) {
		forkjoin.For(w, 0, len(squares), func(_ *forkjoin.Worker, i int) { squares[i] = i * i })
	})
	fmt.Println(squares)
	// Output: [0 1 4 9 16 25 36 49]
}

func ExampleInvokeContext() {
	p := forkjoin.New(forkjoin.Workers(2))
	defer p.Close()

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var visited atomic.Int64
	_, err := forkjoin.InvokeContext(ctx, p, func(w *forkjoin.Worker) int {
		// A long search that gives up once the answer is found: the
		// loop stops starting new pieces after cancel.
		forkjoin.ForRange(w, 0, 1<<30, 1<<10, func(w *forkjoin.Worker, lo, hi int) {
			if visited.Add(int64(hi-lo)) >= 1<<16 {
				cancel()
			}
		})
		return 0
	})
	fmt.Println(err, visited.Load() < 1<<40)

	// Without a cancellation it returns the result.
	v, err := forkjoin.InvokeContext(context.Background(), p, func(w *forkjoin.Worker) int { return fib.Call(w, 20) })
	fmt.Println(v, err)
	// Output:
	// context canceled true
	// 6765 <nil>
}

func ExampleJoin() {
	p := forkjoin.New(forkjoin.Workers(2))
	defer p.Close()
	words := []string{"fork", "join", "steal", "park"}
	line := forkjoin.Invoke(p, func(w *forkjoin.Worker) string {
		// The two sides may have different result types.
		n, s := forkjoin.Join(w,
			func(*forkjoin.Worker) int { return len(words) },
			func(*forkjoin.Worker) string { return strings.Join(words, "/") })
		return fmt.Sprint(n, " words: ", s)
	})
	fmt.Println(line)
	// Output: 4 words: fork/join/steal/park
}

func ExampleDo() {
	p := forkjoin.New(forkjoin.Workers(2))
	defer p.Close()
	var a, b, c int
	forkjoin.Run(p, func(w *forkjoin.Worker) {
		forkjoin.Do(w,
			func(*forkjoin.Worker) { a = 1 },
			func(*forkjoin.Worker) { b = 2 },
			func(*forkjoin.Worker) { c = 3 })
	})
	fmt.Println(a, b, c)
	// Output: 1 2 3
}

func ExampleSpawn() {
	p := forkjoin.New(forkjoin.Workers(2))
	defer p.Close()
	forkjoin.Run(p, func(w *forkjoin.Worker) {
		fs := make([]forkjoin.Future[int], 5)
		for i := range fs {
			fs[i] = forkjoin.Spawn(w, func(w *forkjoin.Worker) int { return fib.Call(w, 10+i) })
		}
		// Futures may be joined in any order, each exactly once.
		for i := len(fs) - 1; i >= 0; i-- {
			fmt.Println(fs[i].Join(w))
		}
	})
	// Output:
	// 377
	// 233
	// 144
	// 89
	// 55
}

func ExampleScope() {
	p := forkjoin.New(forkjoin.Workers(2))
	defer p.Close()
	lengths := make([]int, 3)
	forkjoin.Run(p, func(w *forkjoin.Worker) {
		forkjoin.Scope(w, func(s *forkjoin.S) {
			for i, word := range []string{"a", "bb", "ccc"} {
				s.Go(func(*forkjoin.Worker) { lengths[i] = len(word) })
			}
		}) // returns once every task spawned with s.Go has finished
	})
	fmt.Println(lengths)
	// Output: [1 2 3]
}

func ExampleFor() {
	p := forkjoin.New(forkjoin.Workers(2))
	defer p.Close()
	v := make([]float64, 1000)
	forkjoin.Run(p, func(w *forkjoin.Worker) {
		forkjoin.For(w, 0, len(v), func(_ *forkjoin.Worker, i int) { v[i] = float64(i) / 2 })
	})
	fmt.Println(v[0], v[1], v[999])
	// Output: 0 0.5 499.5
}

func ExampleForRange() {
	p := forkjoin.New(forkjoin.Workers(2))
	defer p.Close()
	data := make([]int, 10000)
	for i := range data {
		data[i] = i % 7
	}
	var total atomic.Int64
	forkjoin.Run(p, func(w *forkjoin.Worker) {
		// Pieces of at most 512 elements; grain 0 would adapt instead.
		forkjoin.ForRange(w, 0, len(data), 512, func(_ *forkjoin.Worker, lo, hi int) {
			s := 0
			for _, x := range data[lo:hi] {
				s += x
			}
			total.Add(int64(s))
		})
	})
	fmt.Println(total.Load())
	// Output: 29994
}

func ExampleReduce() {
	p := forkjoin.New(forkjoin.Workers(2))
	defer p.Close()
	sumSquares := forkjoin.Invoke(p, func(w *forkjoin.Worker) int {
		return forkjoin.Reduce(w, 1, 101, 0,
			func(i int) int { return i * i },
			func(x, y int) int { return x + y })
	})
	fmt.Println(sumSquares)
	// Output: 338350
}

func ExampleNewFunc() {
	p := forkjoin.New(forkjoin.Workers(2))
	defer p.Close()
	// fib is declared above: var fib *forkjoin.Func[int, int], assigned in
	// init with forkjoin.NewFunc(fibBody); fibBody calls fib.Join.
	fmt.Println(forkjoin.Invoke(p, func(w *forkjoin.Worker) int { return fib.Call(w, 25) }))

	// A Func that does not fork itself can be made anywhere.
	square := forkjoin.NewFunc(func(_ *forkjoin.Worker, x int) int { return x * x })
	fmt.Println(forkjoin.Invoke(p, func(w *forkjoin.Worker) int {
		a, b := square.Join(w, 3, 4)
		return a + b
	}))
	// Output:
	// 75025
	// 25
}

func ExampleFunc_Join() {
	p := forkjoin.New(forkjoin.Workers(2))
	defer p.Close()
	r := forkjoin.Invoke(p, func(w *forkjoin.Worker) [2]int {
		a, b := fib.Join(w, 20, 21) // fib(21) is stealable, fib(20) runs here
		return [2]int{a, b}
	})
	fmt.Println(r)
	// Output: [6765 10946]
}

func ExampleFunc_Fork() {
	p := forkjoin.New(forkjoin.Workers(2))
	defer p.Close()
	forkjoin.Run(p, func(w *forkjoin.Worker) {
		var hs [4]forkjoin.Forked[int, int]
		for i := range hs {
			hs[i] = fib.Fork(w, 20+i)
		}
		// Join each handle once; the reverse of the fork order (LIFO) is
		// cheapest, but any order works.
		for i := len(hs) - 1; i >= 0; i-- {
			fmt.Println(hs[i].Join(w))
		}
	})
	// Output:
	// 28657
	// 17711
	// 10946
	// 6765
}

// squareInto is a task body for Func.Go: it writes its result through its
// argument, since Go discards results.
var squareInto = forkjoin.NewFunc(func(_ *forkjoin.Worker, a struct {
	i   int
	out []int
}) struct{} {
	a.out[a.i] = a.i * a.i
	return struct{}{}
})

func ExampleFunc_Go() {
	p := forkjoin.New(forkjoin.Workers(2))
	defer p.Close()
	out := make([]int, 100_000)
	forkjoin.Run(p, func(w *forkjoin.Worker) {
		forkjoin.Scope(w, func(s *forkjoin.S) {
			for i := range out {
				// Like s.Go, but no closure and no record is allocated.
				squareInto.Go(s, struct {
					i   int
					out []int
				}{i, out})
			}
		})
	})
	fmt.Println(out[3], out[99_999])
	// Output: 9 9999800001
}

func ExamplePool_Stats() {
	p := forkjoin.New(forkjoin.Workers(4))
	defer p.Close()
	forkjoin.Invoke(p, func(w *forkjoin.Worker) int { return fib.Call(w, 20) })
	st := p.Stats()
	// Steals, parks and wake-ups vary from run to run; the task count does
	// not: 10945 forks and the invocation itself.
	fmt.Println(st.Workers, st.Tasks, st.Stolen >= st.Steals)
	p.ResetStats()
	fmt.Println(p.Stats().Tasks)
	// Output:
	// 4 10946 true
	// 0
}

func ExampleDefault() {
	// The default pool has runtime.GOMAXPROCS(0) workers and is never
	// closed: use it from anywhere without managing a pool.
	fmt.Println(forkjoin.Invoke(forkjoin.Default(), func(w *forkjoin.Worker) int { return fib.Call(w, 15) }))
	// Output: 610
}

func ExamplePanicError() {
	p := forkjoin.New(forkjoin.Workers(2))
	defer p.Close()
	errBad := errors.New("bad input")
	defer func() {
		err := recover().(error)
		var pe *forkjoin.PanicError
		fmt.Println(errors.As(err, &pe), errors.Is(err, errBad), pe.Value)
		// Error names the panicking line: "forkjoin: task panicked: bad
		// input at /src/.../example_test.go:NNN". %+v adds the stack.
		_, at, _ := strings.Cut(pe.Error(), " at ")
		fmt.Println(filepath.Base(at[:strings.LastIndex(at, ":")]))
	}()
	forkjoin.Run(p, func(w *forkjoin.Worker) {
		forkjoin.Join(w,
			func(*forkjoin.Worker) int { return 1 },
			func(*forkjoin.Worker) int { panic(errBad) })
	})
	// Output:
	// true true bad input
	// example_test.go
}

func ExamplePool_Close() {
	p := forkjoin.New(forkjoin.Workers(2))
	fmt.Println(forkjoin.Invoke(p, func(w *forkjoin.Worker) int { return fib.Call(w, 12) }))
	p.Close() // waits for running invocations, then stops the workers
	p.Close() // a second Close does nothing
	defer func() { fmt.Println(recover() == forkjoin.ErrClosed) }()
	forkjoin.Run(p, func(*forkjoin.Worker) {})
	// Output:
	// 144
	// true
}

func ExampleCurrent() {
	p := forkjoin.New(forkjoin.Workers(2))
	defer p.Close()
	fmt.Println(forkjoin.Current() == nil) // an ordinary goroutine
	forkjoin.Run(p, func(w *forkjoin.Worker) {
		// Code handed no *Worker finds the task's own.
		fmt.Println(forkjoin.Current() == w, forkjoin.Current().Pool() == p)
	})
	// Output:
	// true
	// true true
}

func ExampleCanceledError() {
	p := forkjoin.New(forkjoin.Workers(2))
	defer p.Close()
	ctx, cancel := context.WithCancel(context.Background())
	_, err := forkjoin.InvokeContext(ctx, p, func(w *forkjoin.Worker) int {
		cancel()
		// What a call without an error result (par.Map, say) does when
		// the invocation it runs in is canceled before it is done.
		panic(&forkjoin.CanceledError{Err: ctx.Err()})
	})
	fmt.Println(err) // the panic became InvokeContext's error
	// Output: context canceled
}

// A task that waits for a goroutine which itself needs the pool wraps the
// wait in Blocking: with every worker waiting so, the goroutine's Invoke
// would otherwise never start.
func ExampleBlocking() {
	p := forkjoin.New(forkjoin.Workers(1))
	defer p.Close()
	fmt.Println(forkjoin.Invoke(p, func(w *forkjoin.Worker) int {
		result := make(chan int)
		go func() { // say, a cache filled by a loader that uses the pool
			result <- forkjoin.Invoke(p, func(w *forkjoin.Worker) int { return fib.Call(w, 20) })
		}()
		var v int
		forkjoin.Blocking(w, func() { v = <-result })
		return v + 1
	}))
	// Output: 6766
}

// A Tasks starts tasks one at a time and waits for them together: here a
// producer and a consumer that block on each other, which a one-worker pool
// runs because Go makes each task stealable at once and the pool lends a
// compensating worker while the first blocks.
func ExampleTasks() {
	p := forkjoin.New(forkjoin.Workers(1))
	defer p.Close()
	sum := forkjoin.Invoke(p, func(w *forkjoin.Worker) int {
		var ts forkjoin.Tasks
		ch := make(chan int)
		sum := 0
		ts.Go(w, func(*forkjoin.Worker) {
			for i := range 10 {
				ch <- i
			}
			close(ch)
		})
		ts.Go(w, func(*forkjoin.Worker) {
			for v := range ch {
				sum += v
			}
		})
		ts.Wait(w)
		return sum
	})
	fmt.Println(sum)
	// Output: 45
}

// firstError is a forkjoin.TaskEnd that keeps the first error or panic of
// the tasks it is told of.
type firstError struct {
	mu  sync.Mutex
	err error
}

func (f *firstError) TaskEnded(err error, pe *forkjoin.PanicError) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err == nil && pe != nil {
		f.err = pe
	} else if f.err == nil {
		f.err = err
	}
}

// GoErr runs functions with an error result and tells a TaskEnd how each
// ended: the building block of an errgroup (par.Group is one), with no
// wrapper closure per task.
func ExampleTasks_GoErr() {
	p := forkjoin.New(forkjoin.Workers(2))
	defer p.Close()
	err := forkjoin.Invoke(p, func(w *forkjoin.Worker) error {
		var ts forkjoin.Tasks
		var end firstError
		for i := range 4 {
			ts.GoErr(w, func() error {
				if i == 2 {
					return fmt.Errorf("task %d failed", i)
				}
				return nil
			}, &end)
		}
		ts.Wait(w)
		return end.err
	})
	fmt.Println(err)
	// Output: task 2 failed
}
