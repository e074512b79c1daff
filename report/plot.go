package report

import (
	"errors"
	"fmt"
	"image/color"
	"io"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/wgpu-prof/wgpu-prof/timing"
)

// ErrPlot is wrapped by the plotting functions for unplottable input.
var ErrPlot = errors.New("report: cannot plot")

// Plot size.
const (
	plotWidth  = 8 * vg.Inch
	plotHeight = 5 * vg.Inch
)

// RoofSeries is one device's roofline to draw.
type RoofSeries struct {
	Label string
	Roof  timing.Roof
}

// RoofPoint is one kernel to place on the roofline chart.
type RoofPoint struct {
	Label string
	Point timing.Point
}

// PlotRoofline draws the rooflines (log-log: arithmetic intensity in
// flop/byte against GFLOP/s) with each kernel at its achieved rate. format
// is "png" or "svg". Points with zero flops or invalid values cannot sit on
// a log axis and are left out; an error is returned when nothing remains.
func PlotRoofline(w io.Writer, roofs []RoofSeries, points []RoofPoint, format string) error {
	return plotRoofline(w, roofs, points, plotContext{}, format)
}

func plotRoofline(w io.Writer, roofs []RoofSeries, points []RoofPoint, ctx plotContext, format string) error {
	if err := checkFormat(format); err != nil {
		return err
	}
	var pts plotter.XYLabels
	for _, rp := range points {
		pt := rp.Point
		if !(pt.Flops >= 0 && pt.Bytes > 0 && pt.Seconds > 0) || math.IsInf(pt.Flops+pt.Bytes+pt.Seconds, 0) {
			return fmt.Errorf("%w: roofline point %q: %+v", ErrPlot, rp.Label, pt)
		}
		if pt.Flops == 0 {
			continue // a pure copy has no place on a log intensity axis
		}
		pts.XYs = append(pts.XYs, plotter.XY{X: rp.Point.Flops / rp.Point.Bytes, Y: rp.Point.Flops / rp.Point.Seconds / 1e9})
		pts.Labels = append(pts.Labels, rp.Label)
	}
	// X range: a decade around every point and ridge.
	xmin, xmax := math.Inf(1), math.Inf(-1)
	for _, p := range pts.XYs {
		xmin, xmax = math.Min(xmin, p.X), math.Max(xmax, p.X)
	}
	var valid []RoofSeries
	for _, r := range roofs {
		if r.Roof.PeakGFLOPs > 0 && r.Roof.BandwidthGBs > 0 && !math.IsInf(r.Roof.Ridge(), 0) && !math.IsNaN(r.Roof.Ridge()) {
			valid = append(valid, r)
			xmin, xmax = math.Min(xmin, r.Roof.Ridge()), math.Max(xmax, r.Roof.Ridge())
		} else {
			return fmt.Errorf("%w: roof %q: %+v", ErrPlot, r.Label, r.Roof)
		}
	}
	if len(valid) == 0 && len(pts.XYs) == 0 {
		return fmt.Errorf("%w: roofline: no roofs and no points with flops", ErrPlot)
	}
	xmin, xmax = xmin/10, xmax*10

	p := newPlot("Roofline", "arithmetic intensity (flop/byte)", "GFLOP/s", true, true)
	for i, r := range valid {
		ridge := r.Roof.Ridge()
		xys := plotter.XYs{{X: xmin, Y: r.Roof.Attainable(xmin)}}
		if ridge > xmin && ridge < xmax {
			xys = append(xys, plotter.XY{X: ridge, Y: r.Roof.PeakGFLOPs})
		}
		xys = append(xys, plotter.XY{X: xmax, Y: r.Roof.Attainable(xmax)})
		l, err := plotter.NewLine(xys)
		if err != nil {
			return fmt.Errorf("%w: roof %q: %w", ErrPlot, r.Label, err)
		}
		l.Color = plotutil.Color(i)
		l.Width = vg.Points(2)
		p.Add(l)
		p.Legend.Add(fmt.Sprintf("%s (%.0f GFLOP/s, %.0f GB/s)", r.Label, r.Roof.PeakGFLOPs, r.Roof.BandwidthGBs), l)
	}
	// Head room above the highest roof so it does not sit on the frame.
	for _, r := range valid {
		p.Y.Max = math.Max(p.Y.Max, 3*r.Roof.PeakGFLOPs)
	}
	if len(pts.XYs) > 0 {
		s, err := plotter.NewScatter(pts.XYs)
		if err != nil {
			return fmt.Errorf("%w: roofline points: %w", ErrPlot, err)
		}
		s.GlyphStyle.Shape = draw.CircleGlyph{}
		s.GlyphStyle.Radius = vg.Points(4)
		labels, err := plotter.NewLabels(pts)
		if err != nil {
			return fmt.Errorf("%w: roofline labels: %w", ErrPlot, err)
		}
		labels.Offset = vg.Point{X: vg.Points(5), Y: vg.Points(3)}
		p.Add(s, labels)
	}
	return render(w, p, format)
}

// PlotBreakEven draws CPU and GPU time against batch size (log-log) with
// the CI of each median as error bars, the fitted lines, and the fitted
// crossover marked by a vertical line. Batches or times ≤ 0 are left out.
func PlotBreakEven(w io.Writer, be BreakEven, format string) error {
	return plotBreakEven(w, be, plotContext{}, format)
}

func plotBreakEven(w io.Writer, be BreakEven, ctx plotContext, format string) error {
	if err := checkFormat(format); err != nil {
		return err
	}
	if len(be.Batches) != len(be.CPU) || len(be.Batches) != len(be.GPU) {
		return fmt.Errorf("%w: break-even %s: %d batches, %d CPU and %d GPU summaries",
			ErrPlot, be.Workload, len(be.Batches), len(be.CPU), len(be.GPU))
	}
	title := fmt.Sprintf("Break-even: %s (%s)", be.Workload, orDash(be.Clock))
	p := newPlot(title, "batch size", "time (s)", true, true)
	nmin, nmax := math.Inf(1), math.Inf(-1)
	plotted := 0
	for i, side := range []struct {
		name string
		sums []timing.Summary
		fit  timing.LinearFit
	}{{"CPU", be.CPU, be.CPUFit}, {"GPU", be.GPU, be.GPUFit}} {
		var data errXYs
		for j, s := range side.sums {
			n := float64(be.Batches[j])
			if n <= 0 || !s.Valid() || s.Median <= 0 || s.Lo <= 0 {
				continue
			}
			data.XYs = append(data.XYs, plotter.XY{X: n, Y: s.Median})
			data.YErrors = append(data.YErrors, struct{ Low, High float64 }{s.Median - s.Lo, s.Hi - s.Median})
			nmin, nmax = math.Min(nmin, n), math.Max(nmax, n)
		}
		if len(data.XYs) == 0 {
			continue
		}
		plotted++
		c := plotutil.Color(i)
		s, err := plotter.NewScatter(data.XYs)
		if err != nil {
			return fmt.Errorf("%w: %s points: %w", ErrPlot, side.name, err)
		}
		s.Color = c
		eb, err := plotter.NewYErrorBars(data)
		if err != nil {
			return fmt.Errorf("%w: %s error bars: %w", ErrPlot, side.name, err)
		}
		eb.Color = c
		p.Add(s, eb)
		p.Legend.Add(side.name+" measured", s)
		if fit := fitLine(side.fit, data.XYs); fit != nil {
			fit.Color = c
			fit.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
			p.Add(fit)
			p.Legend.Add(fmt.Sprintf("%s fit %s", side.name, fitString(side.fit)), fit)
		}
	}
	if plotted == 0 {
		return fmt.Errorf("%w: break-even %s: no positive times", ErrPlot, be.Workload)
	}
	if (be.Fitted.Kind == timing.CrossAt || be.Fitted.Kind == timing.CrossBelow) && be.Fitted.N > 0 {
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, s := range append(append([]timing.Summary(nil), be.CPU...), be.GPU...) {
			if s.Valid() && s.Lo > 0 {
				lo, hi = math.Min(lo, s.Lo), math.Max(hi, s.Hi)
			}
		}
		if lo < hi {
			v, err := plotter.NewLine(plotter.XYs{{X: be.Fitted.N, Y: lo}, {X: be.Fitted.N, Y: hi}})
			if err != nil {
				return fmt.Errorf("%w: crossover line: %w", ErrPlot, err)
			}
			v.Color = color.Gray{Y: 80}
			v.Width = vg.Points(1.5)
			p.Add(v)
			p.Legend.Add("crossover "+be.Fitted.String(), v)
		}
	}
	return render(w, p, format)
}

// fitLine evaluates a fit on a log-spaced grid over the data's batch range,
// keeping positive values only; nil when nothing is positive or the fit is
// empty.
func fitLine(f timing.LinearFit, data plotter.XYs) *plotter.Line {
	if f == (timing.LinearFit{}) || len(data) < 2 {
		return nil
	}
	lo, hi := data[0].X, data[0].X
	for _, d := range data {
		lo, hi = math.Min(lo, d.X), math.Max(hi, d.X)
	}
	var xys plotter.XYs
	const steps = 64
	for i := 0; i <= steps; i++ {
		n := lo * math.Pow(hi/lo, float64(i)/steps)
		if y := f.At(n); y > 0 && !math.IsInf(y, 0) && !math.IsNaN(y) {
			xys = append(xys, plotter.XY{X: n, Y: y})
		}
	}
	if len(xys) < 2 {
		return nil
	}
	l, err := plotter.NewLine(xys)
	if err != nil {
		return nil
	}
	return l
}

// PlotSweep draws one bar per configuration (median time) with the CI of
// the median as error bars. Invalid summaries are drawn as zero-height bars.
func PlotSweep(w io.Writer, s Sweep, format string) error {
	return plotSweep(w, s, plotContext{}, format)
}

func plotSweep(w io.Writer, s Sweep, ctx plotContext, format string) error {
	if err := checkFormat(format); err != nil {
		return err
	}
	if len(s.Points) == 0 {
		return fmt.Errorf("%w: sweep %q: no points", ErrPlot, s.Name)
	}
	p := newPlot(fmt.Sprintf("%s: %s (%s)", s.Workload, s.Name, s.Side), "configuration", "time (s)", false, false)
	values := make(plotter.Values, len(s.Points))
	var errs errXYs
	labels := make([]string, len(s.Points))
	for i, pt := range s.Points {
		labels[i] = pt.Label
		if !pt.Time.Valid() {
			continue
		}
		values[i] = pt.Time.Median
		errs.XYs = append(errs.XYs, plotter.XY{X: float64(i), Y: pt.Time.Median})
		errs.YErrors = append(errs.YErrors, struct{ Low, High float64 }{pt.Time.Median - pt.Time.Lo, pt.Time.Hi - pt.Time.Median})
	}
	bars, err := plotter.NewBarChart(values, vg.Points(24))
	if err != nil {
		return fmt.Errorf("%w: sweep %q: %w", ErrPlot, s.Name, err)
	}
	bars.Color = plotutil.Color(0)
	p.Add(bars)
	if len(errs.XYs) > 0 {
		eb, err := plotter.NewYErrorBars(errs)
		if err != nil {
			return fmt.Errorf("%w: sweep %q error bars: %w", ErrPlot, s.Name, err)
		}
		p.Add(eb)
	}
	p.NominalX(labels...)
	p.X.Min, p.X.Max = -0.5, float64(len(labels))-0.5
	p.Y.Min = 0
	return render(w, p, format)
}

// errXYs pairs points with asymmetric vertical errors for YErrorBars.
type errXYs struct {
	plotter.XYs
	plotter.YErrors
}

func newPlot(title, x, y string, logX, logY bool) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = x
	p.Y.Label.Text = y
	p.Add(plotter.NewGrid())
	if logX {
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	}
	if logY {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	}
	p.Legend.Top = true
	p.Legend.Left = true
	return p
}

func checkFormat(format string) error {
	if format != "png" && format != "svg" {
		return fmt.Errorf("%w: format %q, want \"png\" or \"svg\"", ErrPlot, format)
	}
	return nil
}

// render draws p. gonum/plot panics on some degenerate inputs (for example
// a log axis whose range collapses); that is turned into an error so bad
// data never crashes the caller.
func render(w io.Writer, p *plot.Plot, format string) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%w: %v", ErrPlot, r)
		}
	}()
	wt, err := p.WriterTo(plotWidth, plotHeight, format)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrPlot, err)
	}
	if _, err := wt.WriteTo(w); err != nil {
		return fmt.Errorf("report: write plot: %w", err)
	}
	return nil
}

// RooflineOf returns the roofs of both sides measured in r (where both
// their bandwidth and FMA ceilings exist) and one point per workload and
// side: what the roofline plot draws.
func RooflineOf(r *Report) ([]RoofSeries, []RoofPoint) {
	var roofs []RoofSeries
	if g := r.Ceilings.GPU; g["read_gbs"] > 0 && g["fma_gflops"] > 0 {
		roofs = append(roofs, RoofSeries{Label: "GPU (" + r.Adapter.Name + ")", Roof: timing.Roof{PeakGFLOPs: g["fma_gflops"], BandwidthGBs: g["read_gbs"]}})
	}
	if c := r.Ceilings.CPU; c["read_gbs"] > 0 && c["fma_gflops"] > 0 {
		roofs = append(roofs, RoofSeries{Label: "CPU (" + r.Host.SIMDLevel + ")", Roof: timing.Roof{PeakGFLOPs: c["fma_gflops"], BandwidthGBs: c["read_gbs"]}})
	}
	var points []RoofPoint
	seen := map[string]bool{}
	for _, m := range r.Measurements {
		key := m.Workload + "/" + m.Side
		if seen[key] || m.Flops <= 0 || m.Bytes <= 0 {
			continue
		}
		seen[key] = true
		points = append(points, RoofPoint{Label: m.Side + " " + m.Workload, Point: timing.Point{Flops: m.Flops, Bytes: m.Bytes, Seconds: m.Time().Median}})
	}
	return roofs, points
}
