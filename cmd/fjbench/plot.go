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
// left each scheduler's speed-up over its own fewest workers (the seeds'
// measure: does adding workers help?), on the right the throughput, with the
// baselines that have no worker count as flat lines.
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
		if row := ratioPlots(rs); row != nil {
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

func groupPlots(rs []Result, sp []speedup, g []int) []*plot.Plot {
	first := &rs[g[0]]
	var scheds []string
	var workers []int
	for _, i := range g {
		r := &rs[i]
		if r.Workers > 0 {
			if !slices.Contains(scheds, r.Scheduler) {
				scheds = append(scheds, r.Scheduler)
			}
			if !slices.Contains(workers, r.Workers) {
				workers = append(workers, r.Workers)
			}
		}
	}
	if len(workers) < 2 {
		return nil
	}
	slices.Sort(workers)
	lo, hi := float64(workers[0]), float64(workers[len(workers)-1])

	speed, thru := plot.New(), plot.New()
	speed.Title.Text = first.group() + ": speed-up"
	speed.Y.Label.Text = fmt.Sprintf("speed-up over %d worker(s)", workers[0])
	thru.Title.Text = first.group() + ": throughput"
	thru.Y.Label.Text = first.Unit + "/s"
	var ticks plot.ConstantTicks
	for _, w := range workers {
		ticks = append(ticks, plot.Tick{Value: float64(w), Label: strconv.Itoa(w)})
	}
	workerAxes(ticks, speed, thru)

	var speedLines, thruLines []any
	for _, s := range scheds {
		var sxy, txy plotter.XYs
		for _, i := range g {
			r := &rs[i]
			if r.Scheduler != s {
				continue
			}
			sxy = append(sxy, plotter.XY{X: float64(r.Workers), Y: sp[i].Self})
			txy = append(txy, plotter.XY{X: float64(r.Workers), Y: r.rate()})
		}
		speedLines = append(speedLines, s, sxy)
		thruLines = append(thruLines, s, txy)
	}
	speedLines = append(speedLines, "no speed-up", plotter.XYs{{X: lo, Y: 1}, {X: hi, Y: 1}})
	for _, i := range g {
		if r := &rs[i]; r.Workers == 0 {
			y := r.rate()
			thruLines = append(thruLines, r.Scheduler, plotter.XYs{{X: lo, Y: y}, {X: hi, Y: y}})
		}
	}
	// The helpers pick colours, dashes and glyphs by position, so that the
	// same scheduler looks the same in both charts of a row.
	if plotutil.AddLinePoints(speed, speedLines...) != nil || plotutil.AddLinePoints(thru, thruLines...) != nil {
		return nil
	}
	speed.Y.Min = 0
	speed.Y.Max *= 1.15
	// Rates span orders of magnitude (serial code against one goroutine per
	// tiny task), so the throughput axis is logarithmic.
	thru.Y.Scale = plot.LogScale{}
	thru.Y.Tick.Marker = siLogTicks{}
	return []*plot.Plot{speed, thru}
}

// ratioPlots compares the two fjkit schedulers across the groups of a
// section (the seed's weights): ws throughput over shared throughput by
// worker count, and how often the shared queue's lock was found held. It
// draws nothing unless at least two groups have both schedulers at two or
// more worker counts.
func ratioPlots(rs []Result) []*plot.Plot {
	type point struct {
		w     int
		ratio float64
		waits float64
	}
	var names []string
	var lines [][]point
	for _, g := range groupsOf(rs) {
		shared := map[int]*Result{}
		for _, i := range g {
			if rs[i].Scheduler == "shared" && rs[i].Workers > 0 {
				shared[rs[i].Workers] = &rs[i]
			}
		}
		var pts []point
		for _, i := range g {
			ws := &rs[i]
			sh := shared[ws.Workers]
			if ws.Scheduler != "ws" || sh == nil || sh.rate() == 0 {
				continue
			}
			c, _ := medianCounters(sh.Counters)
			pts = append(pts, point{ws.Workers, ws.rate() / sh.rate(), 1000 * float64(c.LockWaits) / sh.Work})
		}
		if len(pts) >= 2 {
			slices.SortFunc(pts, func(a, b point) int { return a.w - b.w })
			var params []string
			for _, p := range rs[g[0]].Params {
				params = append(params, p.Key+"="+p.Value)
			}
			names = append(names, strings.Join(params, " "))
			lines = append(lines, pts)
		}
	}
	if len(lines) < 2 {
		return nil
	}
	ratio, waits := plot.New(), plot.New()
	ratio.Title.Text = rs[0].Scenario + ": work stealing over shared queue"
	ratio.Y.Label.Text = "ws tasks/s ÷ shared tasks/s"
	waits.Title.Text = rs[0].Scenario + ": shared queue contention"
	waits.Y.Label.Text = "lock waits per 1000 tasks"
	var ticks plot.ConstantTicks
	seen := map[int]bool{}
	var ratioLines, waitLines []any
	for i, pts := range lines {
		var rxy, wxy plotter.XYs
		for _, p := range pts {
			rxy = append(rxy, plotter.XY{X: float64(p.w), Y: p.ratio})
			wxy = append(wxy, plotter.XY{X: float64(p.w), Y: p.waits})
			if !seen[p.w] {
				seen[p.w] = true
				ticks = append(ticks, plot.Tick{Value: float64(p.w), Label: strconv.Itoa(p.w)})
			}
		}
		ratioLines = append(ratioLines, names[i], rxy)
		waitLines = append(waitLines, names[i], wxy)
	}
	workerAxes(ticks, ratio, waits)
	if plotutil.AddLinePoints(ratio, ratioLines...) != nil || plotutil.AddLinePoints(waits, waitLines...) != nil {
		return nil
	}
	// The line where both schedulers are equal.
	if eq, err := plotter.NewLine(plotter.XYs{{X: ratio.X.Min, Y: 1}, {X: ratio.X.Max, Y: 1}}); err == nil {
		eq.Dashes = []vg.Length{vg.Points(2), vg.Points(2)}
		ratio.Add(eq)
	}
	ratio.Y.Min, waits.Y.Min = 0, 0
	ratio.Y.Max *= 1.15
	waits.Y.Max = max(waits.Y.Max*1.15, 1)
	return []*plot.Plot{ratio, waits}
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

// workerAxes sets up plots whose x axis is the worker count, on a log scale
// with a tick at each count measured, legend top left, over a grid.
func workerAxes(ticks plot.ConstantTicks, ps ...*plot.Plot) {
	for _, p := range ps {
		p.X.Label.Text = "workers"
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = ticks
		p.Legend.Top = true
		p.Legend.Left = true
		p.Add(plotter.NewGrid())
	}
}
