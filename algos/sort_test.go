package algos

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/fjkit/fjkit/forkjoin"
)

// The sorts themselves are tested in internal/sorts; these tests check that
// the public names reach them and check their arguments.

func TestSortWrappersSort(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	// Long enough that every sort forks.
	in := make([]int, 100_000)
	for i := range in {
		in[i] = r.IntN(1000)
	}
	want := slices.Clone(in)
	slices.Sort(want)
	for _, srt := range []struct {
		name string
		sort func(w *forkjoin.Worker, s []int)
	}{
		{"MergeSort", MergeSort[int]},
		{"MergeSortFunc", func(w *forkjoin.Worker, s []int) { MergeSortFunc(w, s, cmp.Compare[int]) }},
		{"QuickSort", QuickSort[int]},
		{"QuickSortFunc", func(w *forkjoin.Worker, s []int) { QuickSortFunc(w, s, cmp.Compare[int]) }},
	} {
		eachPool(t, func(t *testing.T, p *forkjoin.Pool) {
			got := slices.Clone(in)
			forkjoin.Run(p, func(w *forkjoin.Worker) { srt.sort(w, got) })
			if !slices.Equal(got, want) {
				t.Fatalf("%s did not sort", srt.name)
			}
		})
	}
}

func TestSortsPanicOnMisuse(t *testing.T) {
	p := forkjoin.New(forkjoin.Workers(1))
	defer p.Close()
	s := []int{3, 1, 2}
	for _, tc := range []struct {
		want string
		f    func(w *forkjoin.Worker)
	}{
		{"algos: MergeSort: nil worker", func(*forkjoin.Worker) { MergeSort(nil, s) }},
		{"algos: QuickSort: nil worker", func(*forkjoin.Worker) { QuickSort(nil, s) }},
		{"algos: MergeSortFunc: nil worker", func(*forkjoin.Worker) { MergeSortFunc(nil, s, cmp.Compare[int]) }},
		{"algos: QuickSortFunc: nil worker", func(*forkjoin.Worker) { QuickSortFunc(nil, s, cmp.Compare[int]) }},
		{"algos: MergeSortFunc: nil cmp", func(w *forkjoin.Worker) { MergeSortFunc(w, s, nil) }},
		{"algos: QuickSortFunc: nil cmp", func(w *forkjoin.Worker) { QuickSortFunc(w, s, nil) }},
	} {
		msg := panicMessage(func() { forkjoin.Run(p, tc.f) })
		if !strings.Contains(msg, tc.want) {
			t.Errorf("got panic %q, want one naming %q", msg, tc.want)
		}
	}
}
