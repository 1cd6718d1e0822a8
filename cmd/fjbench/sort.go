package main

import (
	"cmp"
	"slices"
	"strconv"
	"sync"

	"github.com/fjkit/fjkit/algos"
	"github.com/fjkit/fjkit/forkjoin"
	"github.com/fjkit/fjkit/internal/sorts/sortinput"
	"github.com/fjkit/fjkit/par"
)

// sortInput is n int64s of the given kind (see sortinput.Int64s; "" is
// random) from a fixed seed, the same every run.
func sortInput(kind string, n int) []int64 {
	if kind == "" {
		kind = "random"
	}
	return sortinput.Int64s(kind, n, 1)
}

// sortChecksum weighs every element by its position, so that only the one
// sorted order of the input gives the reference checksum.
func sortChecksum(s []int64) uint64 {
	var c uint64
	for i, v := range s {
		c += uint64(v) * uint64(i+1)
	}
	return c
}

// mergeSortFork is the baselines' parallel sort, the one a Go programmer
// writes first: sort the halves in parallel down to cutoff elements
// (slices.Sort below), then merge them serially through buf.
func mergeSortFork(f forker, s, buf []int64, cutoff int) {
	if len(s) <= cutoff {
		slices.Sort(s)
		return
	}
	mid := len(s) / 2
	var wg sync.WaitGroup
	f.fork(&wg, func() { mergeSortFork(f, s[:mid], buf[:mid], cutoff) })
	mergeSortFork(f, s[mid:], buf[mid:], cutoff)
	wg.Wait()
	copy(buf, s)
	a, b := buf[:mid], buf[mid:]
	i, j, k := 0, 0, 0
	for i < len(a) && j < len(b) {
		if b[j] < a[i] {
			s[k] = b[j]
			j++
		} else {
			s[k] = a[i]
			i++
		}
		k++
	}
	k += copy(s[k:], a[i:])
	copy(s[k:], b[j:])
}

// parSorts are package par's sorts, as an application calls them on int64s:
// Sort, the comparison sorts with cmp.Compare, and SortByKey with the
// element as its own key, so that every one gives slices.Sort's order.
var parSorts = []struct {
	name string
	sort func([]int64)
}{
	{"par.Sort", par.Sort[[]int64]},
	{"par.SortFunc", func(s []int64) { par.SortFunc(s, cmp.Compare[int64]) }},
	{"par.SortStableFunc", func(s []int64) { par.SortStableFunc(s, cmp.Compare[int64]) }},
	{"par.SortByKey", func(s []int64) { par.SortByKey(s, func(v int64) int64 { return v }) }},
}

// measurePar measures each of par's sorts at every worker count. A par call
// made from a task runs on that task's pool, so each count gets a pool of
// its own, work stealing, as the fjkit rows do.
func measurePar(b *bench, base Result, workers []int, fresh func(), work []int64) ([]Result, error) {
	var out []Result
	for _, s := range parSorts {
		for _, n := range workers {
			p := forkjoin.New(forkjoin.Workers(n))
			body := func(*forkjoin.Worker) uint64 {
				s.sort(work)
				return sortChecksum(work)
			}
			r, _ := b.measure(base, contender{scheduler: s.name, workers: n, prepare: fresh,
				work: func() uint64 { return forkjoin.Invoke(p, body) }})
			if b.workspan && b.err == nil {
				r.WorkSpan, b.err = measureWorkSpan(b, r, p, fresh, body)
			}
			p.Close()
			out = append(out, r)
		}
	}
	return out, b.err
}

func runSort(cfg *config, b *bench) (Section, error) {
	n, cutoff := cfg.n, cfg.cutoff
	if n == 0 {
		n = 1_000_000
	}
	if cutoff == 0 {
		cutoff = 8192
	}
	sec := Section{Name: "sort", Notes: []string{cappedNote,
		"The baselines are a merge sort that sorts halves in parallel down to -cutoff elements (default 8192, " +
			"slices.Sort below) and merges serially; fjkit's merge sort also merges in parallel."}}
	params := []Param{{"n", strconv.Itoa(n)}, {"cutoff", strconv.Itoa(cutoff)}}
	if cfg.input != "" && cfg.input != "random" { // checked by config.check
		params = append(params, Param{"input", cfg.input})
	}
	input := sortInput(cfg.input, n)
	work := make([]int64, n)
	buf := make([]int64, n)
	fresh := func() { copy(work, input) }
	base := Result{Scenario: "sort", Params: params, Work: float64(n), Unit: "elems"}
	// slices.Sort's checksum is the reference: checkGroups then holds every
	// other sort to the one sorted order.
	sec.add(b.measureOne(base, contender{scheduler: "slices.Sort", prepare: fresh, work: func() uint64 {
		slices.Sort(work)
		return sortChecksum(work)
	}}))
	for _, k := range []struct {
		suffix string
		sort   func(*forkjoin.Worker, []int64)
	}{{"-merge", algos.MergeSort[int64]}, {"-quick", algos.QuickSort[int64]}} {
		sec.add(measureOurs(b, base, cfg.modes, cfg.workers, k.suffix, fresh, func(w *forkjoin.Worker) uint64 {
			k.sort(w, work)
			return sortChecksum(work)
		}))
	}
	sec.add(measurePar(b, base, cfg.workers, fresh, work))
	sec.add(measureRecursive(b, base, cfg.workers, fresh, func(f forker) uint64 {
		mergeSortFork(f, work, buf, cutoff)
		return sortChecksum(work)
	}))
	addCopyTimes(b, &sec, n)
	return sec, b.err
}
