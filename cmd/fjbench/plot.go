package main

import (
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// writePlotFile draws the report's charts into path, an .svg or a .png.
func writePlotFile(path string, rep *Report) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := writePlot(f, strings.ToLower(filepath.Ext(path)), rep); err != nil {
		f.Close()
		return fmt.Errorf("plot %s: %w", path, err)
	}
	return f.Close()
}

// writePlot draws one row per group that has a worker count to vary: on the
// left each scheduler's speed-up over its own fewest workers (does adding
// workers help?), on the right the throughput, with the baselines that have
// no worker count as flat lines.
func writePlot(w io.Writer, ext string, rep *Report) error {
	var rows [][]*plot.Plot
	for _, sec := range rep.Sections {
		rs := sec.Results
		sp := speedups(rs)
		for _, g := range groupsOf(rs) {
			if row := groupPlots(rs, sp, g); row != nil {
				rows = append(rows, row)
			}
		}
		if row := ratioPlots(rs, sec.Compare); row != nil {
			rows = append(rows, row)
		}
	}
	if len(rows) == 0 {
		return fmt.Errorf("nothing to plot: no scheduler was measured at more than one worker count")
	}
	width, height := 11*vg.Inch, vg.Length(len(rows))*3.6*vg.Inch
	var c vg.CanvasWriterTo
	switch ext {
	case ".svg":
		c = vgsvg.New(width, height)
	case ".png":
		c = vgimg.PngCanvas{Canvas: vgimg.New(width, height)}
	default:
		return fmt.Errorf("unknown image type %q (want .svg or .png)", ext)
	}
	tiles := draw.Tiles{Rows: len(rows), Cols: 2, PadX: vg.Inch / 4, PadY: vg.Inch / 4,
		PadTop: vg.Inch / 8, PadBottom: vg.Inch / 8, PadLeft: vg.Inch / 8, PadRight: vg.Inch / 8}
	canvases := plot.Align(rows, tiles, draw.New(c))
	for i := range rows {
		for j := range rows[i] {
			rows[i][j].Draw(canvases[i][j])
		}
	}
	_, err := c.WriteTo(w)
	return err
}

// chart is one chart of a row: its title, y label and named lines (x: the
// worker count).
type chart struct {
	title, y string
	log      bool // a logarithmic y axis; otherwise it starts at 0
	names    []string
	lines    []plotter.XYs
}

func (c *chart) add(name string, xy plotter.XYs) {
	c.names, c.lines = append(c.names, name), append(c.lines, xy)
}

// row draws two charts side by side over the worker counts, on a log scale
// with a tick at each count measured; the helpers pick colours, dashes and
// glyphs by position, so that a line looks the same in both charts.
func row(workers []int, charts ...*chart) []*plot.Plot {
	var ticks plot.ConstantTicks
	for _, w := range workers {
		ticks = append(ticks, plot.Tick{Value: float64(w), Label: strconv.Itoa(w)})
	}
	var out []*plot.Plot
	for _, c := range charts {
		p := plot.New()
		p.Title.Text, p.Y.Label.Text, p.X.Label.Text = c.title, c.y, "workers"
		p.X.Scale, p.X.Tick.Marker = plot.LogScale{}, ticks
		p.Legend.Top, p.Legend.Left = true, true
		p.Add(plotter.NewGrid())
		var args []any
		for i := range c.names {
			args = append(args, c.names[i], c.lines[i])
		}
		if plotutil.AddLinePoints(p, args...) != nil {
			return nil
		}
		if c.log {
			p.Y.Scale, p.Y.Tick.Marker = plot.LogScale{}, siLogTicks{}
		} else {
			p.Y.Min, p.Y.Max = 0, max(p.Y.Max*1.15, 1)
		}
		out = append(out, p)
	}
	return out
}

// groupPlots charts group g: each scheduler's speed-up over its fewest
// workers (and the range its work and span predict, if measured), and its
// throughput, the baselines without a worker count as flat lines; nil
// unless some scheduler was measured at two worker counts.
func groupPlots(rs []Result, sp []speedup, g []int) []*plot.Plot {
	first := &rs[g[0]]
	var workers []int
	for _, i := range g {
		if w := rs[i].Workers; w > 0 && !slices.Contains(workers, w) {
			workers = append(workers, w)
		}
	}
	if len(workers) < 2 {
		return nil
	}
	slices.Sort(workers)
	lo, hi := float64(workers[0]), float64(workers[len(workers)-1])
	speed := &chart{title: first.group() + ": speed-up", y: fmt.Sprintf("speed-up over %d worker(s)", workers[0])}
	// Rates span orders of magnitude (serial code against one goroutine per
	// tiny task), so the throughput axis is logarithmic.
	thru := &chart{title: first.group() + ": throughput", y: first.Unit + "/s", log: true}
	line := map[string]int{} // a scheduler's line
	for _, i := range g {
		r := &rs[i]
		if r.Workers == 0 {
			continue
		}
		k, ok := line[r.Scheduler]
		if !ok {
			k, line[r.Scheduler] = len(speed.names), len(speed.names)
			speed.add(r.Scheduler, nil)
			thru.add(r.Scheduler, nil)
		}
		speed.lines[k] = append(speed.lines[k], plotter.XY{X: float64(r.Workers), Y: sp[i].Self})
		thru.lines[k] = append(thru.lines[k], plotter.XY{X: float64(r.Workers), Y: r.rate()})
	}
	speed.add("no speed-up", plotter.XYs{{X: lo, Y: 1}, {X: hi, Y: 1}})
	// With -workspan, a scheduler measured at one worker gets its
	// predicted range beside what it measured: at most min(P, work/span),
	// at least Brent's bound with the burdened span.
	for _, i := range g {
		r := &rs[i]
		if r.WorkSpan == nil || r.Workers != 1 || workers[0] != 1 {
			continue
		}
		var most, least plotter.XYs
		for _, w := range workers {
			b := r.WorkSpan.Bound(w)
			most = append(most, plotter.XY{X: float64(w), Y: b.MaxSpeedup})
			least = append(least, plotter.XY{X: float64(w), Y: b.BurdenedMinSpeedup})
		}
		speed.add(r.Scheduler+" predicted, at most", most)
		speed.add(r.Scheduler+" predicted, at least (burdened)", least)
	}
	for _, i := range g {
		if r := &rs[i]; r.Workers == 0 {
			thru.add(r.Scheduler, plotter.XYs{{X: lo, Y: r.rate()}, {X: hi, Y: r.rate()}})
		}
	}
	return row(workers, speed, thru)
}

// ratioPlots compares the section's two schedulers across its groups
// (tiny's weights): the first's throughput over the second's by worker
// count, and how often the second's lock was found held. It draws nothing
// unless at least two groups have both at two or more worker counts.
func ratioPlots(rs []Result, pair [2]string) []*plot.Plot {
	ratio := &chart{title: rs[0].Scenario + ": work stealing over shared queue", y: pair[0] + " ÷ " + pair[1] + " throughput"}
	waits := &chart{title: rs[0].Scenario + ": shared queue contention", y: "lock waits per 1000 tasks"}
	var workers []int
	for _, g := range groupsOf(rs) {
		var rxy, wxy plotter.XYs
		for _, i := range g {
			ws := &rs[i]
			var sh *Result
			for _, j := range g {
				if rs[j].Scheduler == pair[1] && rs[j].Workers == ws.Workers {
					sh = &rs[j]
				}
			}
			if ws.Scheduler != pair[0] || ws.Workers == 0 || sh.rate() == 0 {
				continue
			}
			n, _ := sh.counter(lockWaits)
			rxy = append(rxy, plotter.XY{X: float64(ws.Workers), Y: ws.rate() / sh.rate()})
			wxy = append(wxy, plotter.XY{X: float64(ws.Workers), Y: 1000 * float64(n) / sh.Work})
			if !slices.Contains(workers, ws.Workers) {
				workers = append(workers, ws.Workers)
			}
		}
		if len(rxy) >= 2 {
			name := strings.TrimPrefix(rs[g[0]].group(), rs[g[0]].Scenario+" ")
			ratio.add(name, rxy)
			waits.add(name, wxy)
		}
	}
	if len(ratio.names) < 2 {
		return nil
	}
	slices.Sort(workers)
	out := row(workers, ratio, waits)
	// The line where both schedulers are equal.
	if eq, err := plotter.NewLine(plotter.XYs{{X: float64(workers[0]), Y: 1}, {X: float64(workers[len(workers)-1]), Y: 1}}); err == nil && out != nil {
		eq.Dashes = []vg.Length{vg.Points(2), vg.Points(2)}
		out[0].Add(eq)
	}
	return out
}

// siLogTicks marks a logarithmic axis at 1, 2 and 5 times the powers of ten
// in range, labelled with SI prefixes as in the tables. (plot.LogTicks labels
// only powers of ten, so a range inside one decade gets no labels at all.)
type siLogTicks struct{}

func (siLogTicks) Ticks(lo, hi float64) []plot.Tick {
	if lo <= 0 || hi <= lo {
		return nil
	}
	at := func(ms ...float64) []plot.Tick {
		var ticks []plot.Tick
		for k := math.Floor(math.Log10(lo)); k <= math.Ceil(math.Log10(hi)); k++ {
			for _, m := range ms {
				if v := m * math.Pow(10, k); v >= lo && v <= hi {
					ticks = append(ticks, plot.Tick{Value: v, Label: fmtSI(v)})
				}
			}
		}
		return ticks
	}
	if ticks := at(1, 2, 5); len(ticks) >= 3 {
		return ticks
	}
	// A narrow range: every multiple of the power of ten, else the ends.
	if ticks := at(1, 2, 3, 4, 5, 6, 7, 8, 9); len(ticks) >= 2 {
		return ticks
	}
	return []plot.Tick{{Value: lo, Label: fmtSI(lo)}, {Value: hi, Label: fmtSI(hi)}}
}
