package forkjoin

import (
	"testing"
)

var fibF *Func[int, int]

func init() {
	fibF = NewFunc(func(w *Worker, n int) int {
		if n < 2 {
			return n
		}
		a, b := fibF.Join(w, n-1, n-2)
		return a + b
	})
}

func fibC(w *Worker, n int) int {
	if n < 2 {
		return n
	}
	a, b := Join(w, func(w *Worker) int { return fibC(w, n-1) }, func(w *Worker) int { return fibC(w, n-2) })
	return a + b
}

func TestSmoke(t *testing.T) {
	for _, m := range []Mode{WorkStealing, SharedQueue} {
		for _, n := range []int{1, 2, 4} {
			p := New(Workers(n), WithMode(m))
			if got := Invoke(p, func(w *Worker) int { return fibF.Call(w, 20) }); got != 6765 {
				t.Fatal(m, n, got)
			}
			if got := Invoke(p, func(w *Worker) int { return fibC(w, 20) }); got != 6765 {
				t.Fatal(m, n, got)
			}
			var sum [1000]int
			Run(p, func(w *Worker) { For(w, 0, 1000, func(w *Worker, i int) { sum[i] = i }) })
			for i := range sum {
				if sum[i] != i {
					t.Fatal("for", i)
				}
			}
			r := Invoke(p, func(w *Worker) int { return Reduce(w, 0, 10000, 0, func(i int) int { return i }, func(a, b int) int { return a + b }) })
			if r != 9999*10000/2 {
				t.Fatal("reduce", r)
			}
			t.Log(m, n, p.Stats())
			p.Close()
		}
	}
}
