package sorts

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fjkit/fjkit/forkjoin"
	"github.com/fjkit/fjkit/internal/sorts/sortinput"
)

// benchRecord is a struct ordered by several fields, as applications sort
// rows: by group, then by id.
type benchRecord struct {
	Group int32
	ID    int64
	Name  string
}

func compareBenchRecords(a, b benchRecord) int {
	return cmp.Or(cmp.Compare(a.Group, b.Group), cmp.Compare(a.ID, b.ID))
}

// BenchmarkSortInputs sorts 10^6 elements of every input kind
// (sortinput.Kinds) and three element types (int64, strings with
// strings.Compare, structs ordered by two fields) with the Func sorts on
// two workers, beside slices.SortFunc and slices.SortStableFunc:
//
//	go test -run '^$' -bench 'BenchmarkSortInputs' -benchtime 3x -count 3 ./internal/sorts/
//
// Besides the wall time it reports cpu-ns/op, the CPU time of the process
// per sort: the work, which a loaded machine does not distort as it does
// the wall time of two workers.
//
// The element is derived from the int64 key so that every type has the
// same order: strings are the key in 20 zero-padded digits, structs split
// it into a group and an id.
func BenchmarkSortInputs(b *testing.B) {
	const n = 1e6
	p := forkjoin.New(forkjoin.Workers(2))
	defer p.Close()
	for _, kind := range sortinput.Kinds {
		keys := sortinput.Int64s(kind, n, 5)
		benchInputKind(b, "int64/"+kind, p, keys, cmp.Compare[int64])
		strs := make([]string, n)
		for i, k := range keys {
			strs[i] = fmt.Sprintf("%020d", uint64(k)+1<<63)
		}
		benchInputKind(b, "string/"+kind, p, strs, strings.Compare)
		recs := make([]benchRecord, n)
		for i, k := range keys {
			recs[i] = benchRecord{Group: int32(k >> 40), ID: k, Name: strs[i]}
		}
		benchInputKind(b, "struct/"+kind, p, recs, compareBenchRecords)
	}
}

// benchInputKind times the four sorts of src under name, each on a fresh
// copy, and checks that each sorted.
func benchInputKind[E any](b *testing.B, name string, p *forkjoin.Pool, src []E, cmp func(a, b E) int) {
	s := make([]E, len(src))
	for _, alg := range []struct {
		name string
		sort func(s []E)
	}{
		{"slices.SortFunc", func(s []E) { slices.SortFunc(s, cmp) }},
		{"slices.SortStableFunc", func(s []E) { slices.SortStableFunc(s, cmp) }},
		{"QuickSortFunc", func(s []E) { forkjoin.Run(p, func(w *forkjoin.Worker) { QuickSortFunc(w, s, cmp) }) }},
		{"MergeSortFunc", func(s []E) { forkjoin.Run(p, func(w *forkjoin.Worker) { MergeSortFunc(w, s, cmp) }) }},
	} {
		b.Run(name+"/"+alg.name, func(b *testing.B) {
			b.ReportAllocs()
			var cpu time.Duration
			for b.Loop() {
				b.StopTimer()
				copy(s, src)
				c0, ok0 := processCPU()
				b.StartTimer()
				alg.sort(s)
				b.StopTimer()
				if c1, ok1 := processCPU(); ok0 && ok1 {
					cpu += c1 - c0
				}
				b.StartTimer()
			}
			b.StopTimer()
			if cpu > 0 {
				b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
			}
			if !slices.IsSortedFunc(s, cmp) {
				b.Fatalf("%s did not sort", alg.name)
			}
		})
	}
}
