package report

import (
	"io"
	"strings"
)

// plotContext is what every plot's title says about where it was
// measured: adapter, CPU and date.
type plotContext struct {
	adapter, cpu, date string
}

func contextOf(r *Report) plotContext {
	return plotContext{adapter: r.Adapter.Name, cpu: r.Host.CPU, date: r.Created.UTC().Format("2006-01-02")}
}

// subtitle is the context line under a plot's title.
func (c plotContext) subtitle() string {
	var parts []string
	if c.adapter != "" {
		parts = append(parts, "GPU: "+c.adapter)
	}
	if c.cpu != "" {
		parts = append(parts, "CPU: "+c.cpu)
	}
	if c.date != "" {
		parts = append(parts, c.date)
	}
	return strings.Join(parts, " · ")
}

// Figure is one plot of a report: Name is a file-name stem
// ("breakeven-hnsw-end-to-end"), Title what the HTML page shows above it,
// and Draw renders it as "png" or "svg".
type Figure struct {
	Name, Title string
	Draw        func(w io.Writer, format string) error
}

// Figures returns every plot r supports: the roofline (when both roofs
// and at least one point exist), each break-even and each sweep.
func Figures(r *Report) []Figure {
	var out []Figure
	ctx := contextOf(r)
	roofs, points := RooflineOf(r)
	if len(roofs) > 0 && len(points) > 0 {
		out = append(out, Figure{Name: "roofline", Title: "Roofline",
			Draw: func(w io.Writer, f string) error { return plotRoofline(w, roofs, points, ctx, f) }})
	}
	if r.Staircase != nil && len(r.Staircase.Points) > 0 {
		out = append(out, Figure{Name: "staircase", Title: "Cache staircase",
			Draw: func(w io.Writer, f string) error { return plotStaircase(w, r.Staircase, ctx, f) }})
	}
	for _, be := range r.BreakEvens {
		be := be
		name, title := be.Workload+"-"+be.Clock, "Break-even: "+be.Workload+" ("+be.Clock+")"
		if be.Regime != "" && be.Regime != "resident" {
			// The data regimes of one clock: one figure each, the
			// resident one keeping the plain name.
			name, title = name+"-"+be.Regime, "Break-even: "+be.Workload+" ("+be.Clock+", data "+be.Regime+")"
		}
		if r.Backends != nil && be.Backend != "" {
			// Several backends: one figure each, named by its backend.
			name, title = be.Backend+"-"+name, title+" on "+be.Backend+" ("+be.Adapter+")"
		}
		if be.Implementation != "" {
			// Several implementations on one backend: named by each.
			name, title = be.Implementation+"-"+name, title+" through "+be.Implementation
		}
		out = append(out, Figure{Name: "breakeven-" + Slug(name), Title: title,
			Draw: func(w io.Writer, f string) error { return plotBreakEven(w, be, ctx, f) }})
	}
	for _, s := range r.Sweeps {
		s := s
		out = append(out, Figure{Name: "sweep-" + Slug(s.Workload+"-"+s.Name), Title: "Sweep: " + s.Workload + " " + s.Name,
			Draw: func(w io.Writer, f string) error { return plotSweep(w, s, ctx, f) }})
	}
	return out
}

// Slug makes a file-name-safe stem: lower case, [a-z0-9-].
func Slug(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '-':
			return r
		case r >= 'A' && r <= 'Z':
			return r + 'a' - 'A'
		}
		return '-'
	}, s)
}
