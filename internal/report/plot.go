package report

import (
	"errors"
	"fmt"
	"image/color"
	"io"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
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
	// Roof is the Label of the RoofSeries the point is judged against
	// ("" when none), and Note its standing against it ("44% of its roof
	// (GPU read (llc) 15.6 GB/s)", "ABOVE its roof: …"), both shown in the
	// legend.
	Roof string
	Note string
}

// PlotRoofline draws the rooflines (log-log: arithmetic intensity in
// flop/byte against FLOP/s), both roofs (the measured bandwidth slope and
// FMA peak of each side) and each kernel at its achieved rate. Kernels are
// told apart by colour and marker and named in the legend below the chart,
// so labels never collide. format is "png" or "svg". Points with zero
// flops or invalid values cannot sit on a log axis and are left out; an
// error is returned when nothing remains.
func PlotRoofline(w io.Writer, roofs []RoofSeries, points []RoofPoint, format string) error {
	return plotRoofline(w, roofs, points, plotContext{}, format)
}

func plotRoofline(w io.Writer, roofs []RoofSeries, points []RoofPoint, ctx plotContext, format string) error {
	if err := checkFormat(format); err != nil {
		return err
	}
	pts, skipped, err := rooflineDots(points)
	if err != nil {
		return err
	}
	xmin, xmax := math.Inf(1), math.Inf(-1)
	ymin, ymax := math.Inf(1), math.Inf(-1)
	for _, p := range pts {
		xmin, xmax = math.Min(xmin, p.xy.X), math.Max(xmax, p.xy.X)
		ymin, ymax = math.Min(ymin, p.xy.Y), math.Max(ymax, p.xy.Y)
	}
	for _, r := range roofs {
		if !(r.Roof.PeakGFLOPs > 0 && r.Roof.BandwidthGBs > 0) || math.IsInf(r.Roof.Ridge(), 0) || math.IsNaN(r.Roof.Ridge()) {
			return fmt.Errorf("%w: roof %q: %+v", ErrPlot, r.Label, r.Roof)
		}
		xmin, xmax = math.Min(xmin, r.Roof.Ridge()), math.Max(xmax, r.Roof.Ridge())
		ymax = math.Max(ymax, r.Roof.PeakGFLOPs)
	}
	if len(roofs) == 0 && len(pts) == 0 {
		return fmt.Errorf("%w: roofline: no roofs and no points with flops", ErrPlot)
	}
	xmin, xmax = xmin/4, xmax*4
	for _, r := range roofs {
		ymin = math.Min(ymin, r.Roof.Attainable(xmin))
	}
	f := newFigure("Roofline", ctx, "arithmetic intensity (flop/byte, log)", "attained (FLOP/s, log)")
	f.logX(formatPlain)
	f.logY(func(v float64) string { return tickSI(v*1e9, "FLOP/s") })
	f.p.X.Min, f.p.X.Max = xmin, xmax
	f.p.Y.Min, f.p.Y.Max = ymin/3, ymax*3
	for i, r := range roofs {
		if err := f.roof(i, r, xmin, xmax); err != nil {
			return err
		}
	}
	if err := f.rooflineDots(pts); err != nil {
		return err
	}
	for _, sk := range skipped {
		f.legend(sk + ": no arithmetic, not on a log intensity axis")
	}
	return f.render(w, format)
}

// rooflineDot is a point of the roofline plot: intensity (flop or op per
// byte) and attained G(FL)OP/s.
type rooflineDot struct {
	label, note string
	xy          plotter.XY
}

// rooflineDots checks every point and places those with arithmetic; the
// labels of those without (a pure copy has no place on a log intensity
// axis) are returned apart.
func rooflineDots(points []RoofPoint) (pts []rooflineDot, skipped []string, err error) {
	for _, rp := range points {
		p := rp.Point
		if !(p.Flops >= 0 && p.Bytes > 0 && p.Seconds > 0) || math.IsInf(p.Flops+p.Bytes+p.Seconds, 0) {
			return nil, nil, fmt.Errorf("%w: roofline point %q: %+v", ErrPlot, rp.Label, p)
		}
		if p.Flops == 0 {
			skipped = append(skipped, rp.Label)
			continue
		}
		pts = append(pts, rooflineDot{rp.Label, rp.Note, plotter.XY{X: p.Flops / p.Bytes, Y: p.Flops / p.Seconds / 1e9}})
	}
	return pts, skipped, nil
}

// roof draws roof i over intensities [xmin, xmax], bent at its ridge.
func (f *figure) roof(i int, r RoofSeries, xmin, xmax float64) error {
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
	l.LineStyle = lineStyle(roofColor(r.Label, i), i)
	l.Width = vg.Points(2.5)
	f.p.Add(l)
	peak := FormatFlopRate(r.Roof.PeakGFLOPs) + " FMA peak"
	if strings.HasSuffix(r.Label, " int8") {
		peak = FormatOpRate(r.Roof.PeakGFLOPs) + " int8 dot-product peak (int ops)"
	}
	f.legend(fmt.Sprintf("%s roof: %s read, %s (ridge at %s op/B)", r.Label,
		FormatRate(r.Roof.BandwidthGBs), peak, formatPlain(ridge)), l)
	return nil
}

// rooflineDots draws the points, coloured by side (as the roofs) with a
// marker per workload.
func (f *figure) rooflineDots(pts []rooflineDot) error {
	shapeOf := map[string]int{}
	for _, p := range pts {
		side, wl, _ := strings.Cut(p.label, " ")
		if _, ok := shapeOf[wl]; !ok {
			shapeOf[wl] = len(shapeOf)
		}
		s, err := plotter.NewScatter(plotter.XYs{p.xy})
		if err != nil {
			return fmt.Errorf("%w: roofline point %q: %w", ErrPlot, p.label, err)
		}
		s.GlyphStyle = glyph(shapeOf[wl])
		s.GlyphStyle.Color = sideColor(side)
		s.GlyphStyle.Radius = vg.Points(5)
		f.p.Add(s)
		entry := fmt.Sprintf("%s: %s at %s flop/B", p.label, FormatFlopRate(p.xy.Y), formatPlain(p.xy.X))
		if strings.HasSuffix(p.label, " int8") {
			entry = fmt.Sprintf("%s: %s at %s op/B", p.label, FormatOpRate(p.xy.Y), formatPlain(p.xy.X))
		}
		if p.note != "" {
			entry += ", " + p.note
		}
		f.legend(entry, s)
	}
	return nil
}

// PlotBreakEven draws CPU and GPU time against batch size (log-log) with
// the 95% CI of each median as error bars and each side's fit over the
// measured range; the measured crossover interval (between the last batch
// where the GPU was not faster and the first from which it is) is shaded;
// the fitted crossover (never one from a fit refused for its R²) is drawn
// with its CI only where it lies inside the
// measured range (otherwise the legend says where it falls). Batches or
// times ≤ 0 are left out.
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
	batch := be.Batch
	if batch == "" {
		batch = "batch"
	}
	title := fmt.Sprintf("Break-even: %s (%s time)", be.Workload, orDash(be.Clock))
	if len(be.Batches) > 0 && len(be.CPU) == len(be.Batches) {
		title += "\n" + Answer(be)
	}
	f := newFigure(title, ctx, fmt.Sprintf("batch size %s (log)", batch), "time per call (median, 95% CI; log)")
	f.logX(func(v float64) string { return tickSI(v, "") })
	f.logY(func(v float64) string { return tickSI(v, "s") })
	r := plotRange{nmin: math.Inf(1), nmax: math.Inf(-1), ymin: math.Inf(1), ymax: math.Inf(-1)}
	plotted := 0
	for i, side := range []struct {
		name string
		sums []timing.Summary
		fit  timing.LinearFit
	}{{"CPU", be.CPU, be.CPUFit}, {"GPU", be.GPU, be.GPUFit}} {
		ok, err := f.breakEvenSide(i, side.name, be.Batches, side.sums, side.fit, &r)
		if err != nil {
			return err
		}
		if ok {
			plotted++
		}
	}
	if plotted == 0 {
		return fmt.Errorf("%w: break-even %s: no positive times", ErrPlot, be.Workload)
	}
	r.ylo, r.yhi = r.ymin/2, r.ymax*2
	f.p.Y.Min, f.p.Y.Max = r.ylo, r.yhi
	f.p.X.Min, f.p.X.Max = r.nmin/1.5, r.nmax*1.5
	if err := f.measuredCrossover(be, batch, r); err != nil {
		return err
	}
	if err := f.fittedCrossover(be, r); err != nil {
		return err
	}
	return f.render(w, format)
}

// plotRange is the extent of a break-even plot's points (batch sizes n
// and times y) and the y range drawn.
type plotRange struct {
	nmin, nmax, ymin, ymax float64
	ylo, yhi               float64
}

// breakEvenSide adds one side's medians with their 95% CIs and its fit,
// growing r; false when the side has no positive time to draw.
func (f *figure) breakEvenSide(i int, name string, batches []int, sums []timing.Summary, lf timing.LinearFit, r *plotRange) (bool, error) {
	var data errXYs
	for j, s := range sums {
		n := float64(batches[j])
		if n <= 0 || !s.Valid() || s.Median <= 0 || s.Lo <= 0 {
			continue
		}
		data.XYs = append(data.XYs, plotter.XY{X: n, Y: s.Median})
		data.YErrors = append(data.YErrors, struct{ Low, High float64 }{s.Median - s.Lo, s.Hi - s.Median})
		r.nmin, r.nmax = math.Min(r.nmin, n), math.Max(r.nmax, n)
		r.ymin, r.ymax = math.Min(r.ymin, s.Lo), math.Max(r.ymax, s.Hi)
	}
	if len(data.XYs) == 0 {
		return false, nil
	}
	c := sideColor(name)
	s, err := plotter.NewScatter(data.XYs)
	if err != nil {
		return false, fmt.Errorf("%w: %s points: %w", ErrPlot, name, err)
	}
	s.GlyphStyle = glyph(i)
	s.GlyphStyle.Color = c
	s.GlyphStyle.Radius = vg.Points(4)
	eb, err := plotter.NewYErrorBars(data)
	if err != nil {
		return false, fmt.Errorf("%w: %s error bars: %w", ErrPlot, name, err)
	}
	eb.Color = c
	eb.Width = vg.Points(1.2)
	f.p.Add(eb, s)
	f.legend(name+" measured (median, 95% CI)", s)
	if fit := fitLine(lf, data.XYs); fit != nil {
		fit.LineStyle = lineStyle(c, i)
		f.p.Add(fit)
		f.legend(fmt.Sprintf("%s fit: %s", name, fitString(lf)), fit)
	}
	return true, nil
}

// band shades batch sizes [x0, x1] over the plot's height.
func (f *figure) band(x0, x1 float64, r plotRange, c color.Color, name string) error {
	poly, err := plotter.NewPolygon(plotter.XYs{{X: x0, Y: r.ylo}, {X: x1, Y: r.ylo}, {X: x1, Y: r.yhi}, {X: x0, Y: r.yhi}})
	if err != nil {
		return fmt.Errorf("%w: band: %w", ErrPlot, err)
	}
	poly.Color = c
	poly.LineStyle.Width = 0
	f.p.Add(poly)
	f.legend(name, poly)
	return nil
}

// measuredCrossover shades the measured crossover's bracket, or says the
// GPU was faster from the first batch.
func (f *figure) measuredCrossover(be BreakEven, batch string, r plotRange) error {
	if !be.MeasuredFound {
		return nil
	}
	i := 0
	for i < len(be.Batches) && be.Batches[i] != be.Measured {
		i++
	}
	if i > 0 && i < len(be.Batches) {
		lo := float64(be.Batches[i-1])
		return f.band(lo, float64(be.Measured), r, color.NRGBA{R: 0x00, G: 0x9E, B: 0x73, A: 0x40},
			fmt.Sprintf("measured crossover: between %s %s and %s", batch, formatCount(lo), formatCount(float64(be.Measured))))
	}
	f.legend(fmt.Sprintf("measured: GPU faster from the first batch (%s)", formatCount(float64(be.Measured))))
	return nil
}

// fittedCrossover draws the fitted crossover and its 95% CI where they
// fall within the measured range, and otherwise says why not.
func (f *figure) fittedCrossover(be BreakEven, r plotRange) error {
	refused := be.Predicted != nil && be.Predicted.Refused != ""
	if refused {
		f.legend("no fitted crossover: " + be.Predicted.Refused)
	}
	if refused || (be.Fitted.Kind != timing.CrossAt && be.Fitted.Kind != timing.CrossBelow) {
		return nil
	}
	n := be.Fitted.N
	if !(n >= r.nmin && n <= r.nmax) {
		f.legend(fmt.Sprintf("fitted crossover %s: outside the measured range %s–%s, not drawn", be.Fitted, formatCount(r.nmin), formatCount(r.nmax)))
		return nil
	}
	hi := r.nmax
	if be.Fitted.Hi != nil {
		hi = math.Min(*be.Fitted.Hi, r.nmax)
	}
	lo := math.Max(be.Fitted.Lo, r.nmin)
	if hi > lo {
		if err := f.band(lo, hi, r, color.NRGBA{R: 0x80, G: 0x80, B: 0x80, A: 0x30}, "fitted crossover 95% CI (within the measured range)"); err != nil {
			return err
		}
	}
	v, err := plotter.NewLine(plotter.XYs{{X: n, Y: r.ylo}, {X: n, Y: r.yhi}})
	if err != nil {
		return fmt.Errorf("%w: crossover line: %w", ErrPlot, err)
	}
	v.Color = color.Black
	v.Width = vg.Points(1.5)
	v.Dashes = []vg.Length{vg.Points(2), vg.Points(2)}
	f.p.Add(v)
	f.legend("fitted crossover "+be.Fitted.String(), v)
	return nil
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
// the median as error bars; the fastest is drawn in a second colour.
// Invalid summaries are drawn as zero-height bars.
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
	f := newFigure(fmt.Sprintf("%s: %s sweep (%s)", s.Workload, s.Name, s.Side), ctx, s.Name, "time per call (median, 95% CI)")
	f.p.Y.Tick.Marker = humanTicks{format: func(v float64) string { return tickSI(v, "s") }}
	values := make(plotter.Values, len(s.Points))
	best := make(plotter.Values, len(s.Points))
	var errs errXYs
	labels := make([]string, len(s.Points))
	for i, pt := range s.Points {
		labels[i] = pt.Label
		if !pt.Time.Valid() {
			continue
		}
		if pt.Label == s.Best {
			best[i] = pt.Time.Median
		} else {
			values[i] = pt.Time.Median
		}
		errs.XYs = append(errs.XYs, plotter.XY{X: float64(i), Y: pt.Time.Median})
		errs.YErrors = append(errs.YErrors, struct{ Low, High float64 }{pt.Time.Median - pt.Time.Lo, pt.Time.Hi - pt.Time.Median})
	}
	bars, err := plotter.NewBarChart(values, vg.Points(24))
	if err != nil {
		return fmt.Errorf("%w: sweep %q: %w", ErrPlot, s.Name, err)
	}
	bars.Color = okabeIto[4]
	bars.LineStyle.Width = 0
	f.p.Add(bars)
	f.legend("median time (error bars: 95% CI)", bars)
	if s.Best != "" {
		bb, err := plotter.NewBarChart(best, vg.Points(24))
		if err != nil {
			return fmt.Errorf("%w: sweep %q: %w", ErrPlot, s.Name, err)
		}
		bb.Color = okabeIto[0]
		bb.LineStyle.Width = 0
		f.p.Add(bb)
		f.legend("fastest: "+s.Best, bb)
	}
	if len(errs.XYs) > 0 {
		eb, err := plotter.NewYErrorBars(errs)
		if err != nil {
			return fmt.Errorf("%w: sweep %q error bars: %w", ErrPlot, s.Name, err)
		}
		eb.Width = vg.Points(1.2)
		f.p.Add(eb)
	}
	for _, rj := range s.Rejected {
		f.legend("rejected " + rj.Label + ": " + rj.Reason)
	}
	f.p.NominalX(labels...)
	f.p.X.Min, f.p.X.Max = -0.5, float64(len(labels))-0.5
	f.p.Y.Min = 0
	for _, pt := range s.Points {
		if pt.Time.Valid() {
			f.p.Y.Max = math.Max(f.p.Y.Max, pt.Time.Hi*1.08)
		}
	}
	return f.render(w, format)
}

// errXYs pairs points with asymmetric vertical errors for YErrorBars.
type errXYs struct {
	plotter.XYs
	plotter.YErrors
}

// okabeIto is the Okabe–Ito colour-blind-safe palette (black last).
var okabeIto = []color.Color{
	color.RGBA{0xE6, 0x9F, 0x00, 0xFF}, // orange
	color.RGBA{0x56, 0xB4, 0xE9, 0xFF}, // sky blue
	color.RGBA{0x00, 0x9E, 0x73, 0xFF}, // bluish green
	color.RGBA{0xCC, 0x79, 0xA7, 0xFF}, // reddish purple
	color.RGBA{0x00, 0x72, 0xB2, 0xFF}, // blue
	color.RGBA{0xD5, 0x5E, 0x00, 0xFF}, // vermillion
	color.RGBA{0xF0, 0xE4, 0x42, 0xFF}, // yellow
	color.RGBA{0x00, 0x00, 0x00, 0xFF}, // black
}

// sideColor keeps GPU orange and CPU blue in every plot.
func sideColor(side string) color.Color {
	if strings.EqualFold(side, "GPU") {
		return okabeIto[0]
	}
	return okabeIto[4]
}

func roofColor(label string, i int) color.Color {
	switch {
	case strings.HasPrefix(label, "GPU"):
		return okabeIto[0]
	case strings.HasPrefix(label, "CPU"):
		return okabeIto[4]
	}
	return okabeIto[i%len(okabeIto)]
}

// glyph gives series i its own colour and marker shape.
func glyph(i int) draw.GlyphStyle {
	shapes := []draw.GlyphDrawer{draw.CircleGlyph{}, draw.TriangleGlyph{}, draw.BoxGlyph{}, draw.PyramidGlyph{}, draw.RingGlyph{}, draw.CrossGlyph{}, draw.PlusGlyph{}, draw.SquareGlyph{}}
	return draw.GlyphStyle{Color: okabeIto[i%len(okabeIto)], Shape: shapes[i%len(shapes)], Radius: vg.Points(4)}
}

// lineStyle gives series i a dash pattern: solid, dashed, dotted, dash-dot.
func lineStyle(c color.Color, i int) draw.LineStyle {
	dashes := [][]vg.Length{nil, {vg.Points(6), vg.Points(3)}, {vg.Points(2), vg.Points(2)}, {vg.Points(6), vg.Points(2), vg.Points(2), vg.Points(2)}}
	return draw.LineStyle{Color: c, Width: vg.Points(1.8), Dashes: dashes[i%len(dashes)]}
}

// legendPadding is the space between two legend entries.
const legendPadding = vg.Length(3)

// fitScale is how much wider than gonum measures it (in Liberation
// Serif, the font the SVG names) a plot's text may render: a browser
// without Liberation Serif or a metric twin of it (html.go names Times
// New Roman, Tinos and Nimbus Roman after it) draws a wider serif, such
// as DejaVu Serif, about a quarter wider. Titles and legend entries wrap
// so that they fit even then (TestHTMLFitsTheWindow renders both).
const fitScale = 1.3

// plotInset keeps the text at the canvas's left edge (the rotated y-axis
// label) off the very edge, where a browser's rounding would cut it;
// plotInsetRight leaves room on the right for what a wider font adds to
// text gonum placed flush with the data area (the last tick label, a
// label at the right end): SVG text grows to the right of where gonum
// put its start.
const (
	plotInset      = vg.Length(4)
	plotInsetRight = vg.Length(12)
)

// titleRoom is the widest a title line may measure: centred on the
// canvas, a line drawn fitScale times wider than measured grows to the
// right only, so it must fit half the canvas at fitScale − ½.
const titleRoom = (plotWidth - plotInset - plotInsetRight) / 2 / (fitScale - 0.5)

// wrapToWidth wraps each line of s at spaces so that no line measures
// more than width in sty (a longer word stays whole on its own line).
func wrapToWidth(sty text.Style, s string, width vg.Length) []string {
	var out []string
	for _, line := range strings.Split(s, "\n") {
		cur := ""
		for _, w := range strings.Fields(line) {
			switch {
			case cur == "":
				cur = w
			case sty.Width(cur+" "+w) > width:
				out = append(out, cur)
				cur = w
			default:
				cur += " " + w
			}
		}
		out = append(out, cur)
	}
	return out
}

// figure is a plot with its legend drawn below the data area, so the
// legend never covers data.
type figure struct {
	p       *plot.Plot
	leg     plot.Legend
	entries int
}

func newFigure(title string, ctx plotContext, x, y string) *figure {
	p := plot.New()
	if sub := ctx.subtitle(); sub != "" {
		title += "\n" + sub
	}
	p.Title.Text = strings.Join(wrapToWidth(p.Title.TextStyle, title, titleRoom), "\n")
	p.X.Label.Text = x
	p.Y.Label.Text = y
	p.Add(plotter.NewGrid())
	f := &figure{p: p, leg: plot.NewLegend()}
	f.leg.Top, f.leg.Left = true, true
	// Padding between entries keeps one entry's marker off the next
	// entry's text (render reserves the room).
	f.leg.Padding = legendPadding
	return f
}

// legend adds an entry; a name too long for the canvas (at fitScale)
// goes on as many lines as it needs, each an entry of its own under the
// first, which carries the thumbnails.
func (f *figure) legend(name string, thumbs ...plot.Thumbnailer) {
	em := f.leg.TextStyle.Width(" ")
	room := (plotWidth - legendX - plotInsetRight - f.leg.ThumbnailWidth - em) / fitScale
	for i, l := range wrapToWidth(f.leg.TextStyle, name, room) {
		if i == 0 {
			f.leg.Add(l, thumbs...)
		} else {
			f.leg.Add("  " + l)
		}
		f.entries++
	}
}

// legendX is where the legend starts, from the canvas's left edge.
const legendX = vg.Length(40)

func (f *figure) logX(format func(float64) string) {
	f.p.X.Scale = plot.LogScale{}
	f.p.X.Tick.Marker = humanTicks{log: true, format: format}
}

func (f *figure) logY(format func(float64) string) {
	f.p.Y.Scale = plot.LogScale{}
	f.p.Y.Tick.Marker = humanTicks{log: true, format: format}
}

// render draws the plot above and the legend below. gonum/plot panics on
// some degenerate inputs (for example a log axis whose range collapses);
// that is turned into an error so bad data never crashes the caller.
func (f *figure) render(w io.Writer, format string) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%w: %v", ErrPlot, r)
		}
	}()
	lineH := f.leg.TextStyle.Font.Size*1.2 + legendPadding
	legH := vg.Length(f.entries)*lineH + vg.Points(8)
	c, err := draw.NewFormattedCanvas(plotWidth, plotHeight+legH, format)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrPlot, err)
	}
	dc := draw.New(c)
	f.p.Draw(draw.Crop(dc, plotInset, -plotInsetRight, legH, -plotInset))
	legC := draw.Crop(dc, legendX, 0, 0, -(plotHeight))
	legC.Max.Y -= vg.Points(4)
	f.leg.Draw(legC)
	if _, err := c.WriteTo(w); err != nil {
		return fmt.Errorf("report: write plot: %w", err)
	}
	return nil
}

// humanTicks puts ticks at 1, 2, 5 × 10^k on a log axis (at 1 × 10^k
// only, with unlabelled minor ticks, when the range spans more than three
// decades), or at gonum's default places on a linear one, and labels them
// with format (units with SI prefixes, never 9.999999999999999e-05).
type humanTicks struct {
	log    bool
	format func(float64) string
}

func (h humanTicks) Ticks(min, max float64) []plot.Tick {
	if !h.log || min <= 0 {
		ts := plot.DefaultTicks{}.Ticks(min, max)
		for i := range ts {
			if ts[i].Label != "" {
				ts[i].Label = h.format(ts[i].Value)
			}
		}
		return ts
	}
	var out []plot.Tick
	sparse := math.Log10(max/min) > 3
	for e := math.Floor(math.Log10(min)); e <= math.Ceil(math.Log10(max)); e++ {
		base := math.Pow(10, e)
		for _, m := range []float64{1, 2, 3, 4, 5, 6, 7, 8, 9} {
			v := m * base
			if v < min*(1-1e-9) || v > max*(1+1e-9) {
				continue
			}
			t := plot.Tick{Value: v}
			if m == 1 || (!sparse && (m == 2 || m == 5)) {
				t.Label = h.format(v)
			}
			out = append(out, t)
		}
	}
	if labelled(out) < 2 { // a narrow range: label its ends
		ts := plot.DefaultTicks{}.Ticks(min, max)
		for i := range ts {
			if ts[i].Label != "" {
				ts[i].Label = h.format(ts[i].Value)
			}
		}
		return ts
	}
	return out
}

func labelled(ts []plot.Tick) int {
	n := 0
	for _, t := range ts {
		if t.Label != "" {
			n++
		}
	}
	return n
}

// tickSI is siUnit for tick labels: no trailing zeros (1 ms, 20 µs, 1k).
func tickSI(v float64, unit string) string {
	if v == 0 {
		return "0"
	}
	a := math.Abs(v)
	scale, prefix := 1.0, ""
	for _, p := range []struct {
		s float64
		p string
	}{{1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}, {1, ""}, {1e-3, "m"}, {1e-6, "µ"}, {1e-9, "n"}} {
		if a >= p.s*(1-1e-9) {
			scale, prefix = p.s, p.p
			break
		}
		scale, prefix = p.s, p.p
	}
	m := strconv.FormatFloat(v/scale, 'g', 3, 64)
	if unit == "" {
		return m + prefix
	}
	return m + " " + prefix + unit
}

// formatPlain prints 0.25, 1, 16, 1k.
func formatPlain(v float64) string {
	if math.Abs(v) >= 1000 {
		return tickSI(v, "")
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}

func checkFormat(format string) error {
	if format != "png" && format != "svg" {
		return fmt.Errorf("%w: format %q, want \"png\" or \"svg\"", ErrPlot, format)
	}
	return nil
}

// RooflineOf returns what the roofline plot draws: one point per workload
// and side, and for each point the roof it is judged against in the
// tables (the read ceiling of its own working set, Measurement.
// ReadCeilingKey, under the side's FMA peak), each roof drawn once. A
// point's legend entry names its roof and its fraction of it, and says
// so when the point is above it. Without measurements the DRAM roofs of
// both sides are drawn.
func RooflineOf(r *Report) ([]RoofSeries, []RoofPoint) {
	var roofs []RoofSeries
	have := map[string]bool{}
	roofOf := func(side, key, peak string) (string, bool) {
		cs, name := r.Ceilings.CPU, "CPU"
		if side == SideGPU {
			cs, name = r.Ceilings.GPU, "GPU"
		}
		if !(cs[key] > 0) {
			key = "read_gbs"
		}
		if !(cs[peak] > 0) {
			peak = "fma_gflops"
		}
		if !(cs[key] > 0 && cs[peak] > 0) {
			return "", false
		}
		label := name + " " + roofLevel(key)
		if peak == Int8PeakKey {
			label += " int8"
		}
		if !have[label] {
			have[label] = true
			roofs = append(roofs, RoofSeries{Label: label, Roof: timing.Roof{PeakGFLOPs: cs[peak], BandwidthGBs: cs[key]}})
		}
		return label, true
	}
	var points []RoofPoint
	seen := map[string]bool{}
	for i := range r.Measurements {
		m := &r.Measurements[i]
		key := m.Workload + "/" + m.Side + "/" + m.Precision()
		if seen[key] || m.Flops <= 0 || m.Bytes <= 0 {
			continue
		}
		seen[key] = true
		if roof, ok := roofOf(m.Side, m.ReadCeilingKey(), m.PeakKey()); ok {
			points = append(points, roofPoint(r, m, roof))
		} else {
			points = append(points, roofPoint(r, m, ""))
		}
	}
	if len(points) == 0 {
		roofOf(SideGPU, "read_gbs", "fma_gflops")
		roofOf(SideCPU, "read_gbs", "fma_gflops")
	}
	return roofs, points
}

// roofPoint is m on the roofline, judged against the roof labelled roof
// ("": none). A row in another precision than f32 sits at its own
// intensity (its stored bytes) and is named by it.
func roofPoint(r *Report, m *Measurement, roof string) RoofPoint {
	label := m.Side + " " + m.Workload
	if p := m.Precision(); p != "f32" {
		label += " " + p
	}
	rp := RoofPoint{Label: label, Roof: roof, Point: timing.Point{Flops: m.Flops, Bytes: m.Bytes, Seconds: m.Time().Median}}
	if roof != "" && m.CeilingFrac > 0 {
		rp.Note = fmt.Sprintf("%.0f%% of its roof (%s)", 100*m.CeilingFrac, CeilingOf(r, m))
		if m.CeilingFrac > 1 {
			rp.Note = fmt.Sprintf("ABOVE its roof: %.0f%% of %s", 100*m.CeilingFrac, CeilingOf(r, m))
		}
	}
	return rp
}

// roofLevel names the memory level of a read ceiling key: "DRAM", "llc",
// "l2", "cache-resident".
func roofLevel(key string) string {
	switch {
	case key == "read_gbs":
		return "DRAM"
	case key == "cache_read_gbs":
		return "cache-resident"
	case strings.HasPrefix(key, "read_gbs_"):
		return strings.TrimPrefix(key, "read_gbs_")
	}
	return key
}
