package report

import (
	"fmt"
	"io"
	"math"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Staircase is the measured read bandwidth over a sweep of working sets
// (powers of two) on each side and the memory levels found in the curve:
// the plateaus between its knees.
type Staircase struct {
	Points []StairPoint `json:"points"`
	Levels []StairLevel `json:"levels"`
	// Notes say how the levels compare with the cache sizes the CPU
	// reports and, when the level ceilings are not ordered
	// l2 ≥ llc ≥ dram, why.
	Notes []string `json:"notes,omitempty"`
}

// StairPoint is one working set's read bandwidth.
type StairPoint struct {
	Side  string  `json:"side"`
	Bytes float64 `json:"bytes"`
	GBs   float64 `json:"gbs"`
}

// StairLevel is one plateau of a side's curve: the working sets from
// FromBytes to ToBytes read at about GBs (the plateau's median). Name is
// "l1", "l2", "llc" or "dram", counted from the largest plateau down.
// CeilingBytes is the working set inside the plateau its read ceiling is
// measured at; a row is judged against this level when its working set is
// below the next level's FromBytes (ReachBytes; 0 for dram: no bound).
type StairLevel struct {
	Side         string  `json:"side"`
	Name         string  `json:"name"`
	FromBytes    float64 `json:"from_bytes"`
	ToBytes      float64 `json:"to_bytes"`
	ReachBytes   float64 `json:"reach_bytes,omitempty"`
	CeilingBytes float64 `json:"ceiling_bytes"`
	GBs          float64 `json:"gbs"`
}

// plotStaircase draws each side's bandwidth against working set (log-log)
// with the levels' plateaus marked as horizontal segments.
func plotStaircase(w io.Writer, s *Staircase, ctx plotContext, format string) error {
	if err := checkFormat(format); err != nil {
		return err
	}
	if s == nil || len(s.Points) == 0 {
		return fmt.Errorf("%w: staircase: no points", ErrPlot)
	}
	f := newFigure("Cache staircase: read bandwidth vs working set", ctx, "working set", "read bandwidth")
	f.logX(func(v float64) string { return tickBytes(v) })
	f.logY(func(v float64) string { return tickSI(v*1e9, "B/s") })
	// A level's label starts at the level, or, in the right half of the
	// axis, ends where the level ends, so that it stays on the plot.
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, p := range s.Points {
		if p.Bytes > 0 {
			lo, hi = math.Min(lo, p.Bytes), math.Max(hi, p.Bytes)
		}
	}
	mid := math.Sqrt(lo * hi)
	for _, side := range []string{SideGPU, SideCPU} {
		var xy plotter.XYs
		for _, p := range s.Points {
			if p.Side == side && p.GBs > 0 && p.Bytes > 0 {
				xy = append(xy, plotter.XY{X: p.Bytes, Y: p.GBs})
			}
		}
		if len(xy) == 0 {
			continue
		}
		l, pts, err := plotter.NewLinePoints(xy)
		if err != nil {
			return fmt.Errorf("%w: staircase: %w", ErrPlot, err)
		}
		l.LineStyle = lineStyle(sideColor(side), 0)
		pts.GlyphStyle = draw.GlyphStyle{Color: sideColor(side), Shape: draw.CircleGlyph{}, Radius: vg.Points(3)}
		f.p.Add(l, pts)
		f.legend(side+" read bandwidth", l, pts)
		for _, lv := range s.Levels {
			if lv.Side != side || !(lv.GBs > 0) {
				continue
			}
			seg := plotter.XYs{{X: lv.FromBytes, Y: lv.GBs}, {X: math.Max(lv.ToBytes, lv.FromBytes*1.05), Y: lv.GBs}}
			sl, err := plotter.NewLine(seg)
			if err != nil {
				return fmt.Errorf("%w: staircase: %w", ErrPlot, err)
			}
			sl.LineStyle = draw.LineStyle{Color: sideColor(side), Width: vg.Points(5)}
			f.p.Add(sl)
			at := lv.FromBytes
			right := lv.FromBytes > mid
			if right {
				at = math.Min(math.Max(lv.ToBytes, lv.FromBytes*1.05), hi)
			}
			lab, err := plotter.NewLabels(plotter.XYLabels{XYs: plotter.XYs{{X: at, Y: lv.GBs * 1.08}}, Labels: []string{side + " " + lv.Name}})
			if err == nil {
				if right {
					lab.TextStyle[0].XAlign = draw.XRight
				}
				f.p.Add(lab)
			}
		}
	}
	return f.render(w, format)
}

// tickBytes formats a byte count for an axis: 16K, 1M, 256M (binary).
func tickBytes(v float64) string {
	switch {
	case v >= 1<<30:
		return fmt.Sprintf("%gG", math.Round(v/(1<<30)*10)/10)
	case v >= 1<<20:
		return fmt.Sprintf("%gM", math.Round(v/(1<<20)*10)/10)
	case v >= 1<<10:
		return fmt.Sprintf("%gK", math.Round(v/(1<<10)*10)/10)
	}
	return fmt.Sprintf("%g", v)
}
