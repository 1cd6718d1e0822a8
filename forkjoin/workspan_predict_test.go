package forkjoin_test

import (
	"bytes"
	"encoding/csv"
	"strings"
	"testing"
	"time"

	"github.com/fjkit/fjkit/forkjoin"
)

// Brent's bounds from known figures: work 1 s, span 10 ms (parallelism
// 100), burdened span 20 ms.
func TestWorkSpanPredict(t *testing.T) {
	ws := forkjoin.WorkSpan{Work: time.Second, Span: 10 * time.Millisecond, BurdenedSpan: 20 * time.Millisecond, Forks: 5,
		Regions: []forkjoin.RegionWorkSpan{{Name: `a "b", c`, Count: 2, Work: time.Millisecond, Span: time.Millisecond, BurdenedSpan: time.Millisecond}}}
	if ws.Parallelism() != 100 || ws.BurdenedParallelism() != 50 {
		t.Errorf("parallelism %v, burdened %v; want 100, 50", ws.Parallelism(), ws.BurdenedParallelism())
	}
	bs := ws.Predict(256)
	if len(bs) != 9 || bs[0].P != 1 || bs[8].P != 256 {
		t.Fatalf("Predict(256) has P %v", bs)
	}
	for _, c := range []struct {
		p                    int
		lower, upper, bupper time.Duration
		maxS, minS, burdMinS float64
	}{
		{1, time.Second, 1010 * time.Millisecond, 1020 * time.Millisecond, 1, 1 / 1.01, 1 / 1.02},
		{4, 250 * time.Millisecond, 260 * time.Millisecond, 270 * time.Millisecond, 4, 1 / 0.26, 1 / 0.27},
		{256, 10 * time.Millisecond, 10*time.Millisecond + 3906250*time.Nanosecond, 20*time.Millisecond + 3906250*time.Nanosecond, 100, 1 / 0.01390625, 1 / 0.02390625},
	} {
		b := ws.Bound(c.p)
		if b.Lower != c.lower || b.Upper != c.upper || b.BurdenedUpper != c.bupper {
			t.Errorf("Bound(%d) = %v, %v, %v; want %v, %v, %v", c.p, b.Lower, b.Upper, b.BurdenedUpper, c.lower, c.upper, c.bupper)
		}
		for _, f := range [][2]float64{{b.MaxSpeedup, c.maxS}, {b.MinSpeedup, c.minS}, {b.BurdenedMinSpeedup, c.burdMinS}} {
			if d := f[0] - f[1]; d > 1e-9 || d < -1e-9 {
				t.Errorf("Bound(%d): speed-up %v, want %v", c.p, f[0], f[1])
			}
		}
	}
	if got := ws.Predict(3); len(got) != 3 || got[2].P != 3 {
		t.Errorf("Predict(3) = %v", got)
	}
	var out bytes.Buffer
	if err := ws.WritePrediction(&out, 8); err != nil || strings.Count(out.String(), "\n") != 5 {
		t.Errorf("WritePrediction:\n%s%v", out.String(), err)
	}
	out.Reset()
	if err := ws.WriteCSV(&out); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&out).ReadAll()
	if err != nil || len(rows) != 3 || rows[2][0] != `a "b", c` || rows[1][2] != "1000000000" || rows[1][4] != "100" {
		t.Errorf("CSV %q, %v", rows, err)
	}
	for _, bad := range []func(){func() { ws.Predict(0) }, func() { ws.Bound(0) }, func() { forkjoin.Region(nil, "r", nil) }} {
		func() {
			defer func() {
				if v, _ := recover().(string); !strings.Contains(v, "must be at least 1") && v != "forkjoin.Region: fn is nil" {
					t.Errorf("panic %v", v)
				}
			}()
			bad()
		}()
	}
}
