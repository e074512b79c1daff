package report

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/wgpu-prof/wgpu-prof/timing"
)

// ImplCompare compares two runs of one suite on one adapter that differ
// only in WebGPU implementation (run --impl wgpu-native, run --impl dawn):
// per GPU row, which implementation is faster by end-to-end time, with the
// ratio's 95% CI, as the side-by-side table of run --impl
// wgpu-native,dawn does.
type ImplCompare struct {
	Old, New string // the implementations, as the reports name them
	Backend  string
	Adapter  string
	Rows     []ImplCompareRow
	// Faster counts the rows each implementation wins, and "tie".
	Faster  map[string]int
	OnlyOld []string // GPU rows (workload|side|params) missing from New
	OnlyNew []string // GPU rows missing from Old
}

// ImplCompareRow is one GPU row of both reports: each implementation's
// end-to-end median with its CI, kernel median (0 without timestamps) and
// fixed cost per call (the intercept of its end-to-end break-even fit; 0
// without one), and the ratios of New's to Old's.
type ImplCompareRow struct {
	Workload             string
	Params               []Param
	OldVariant           string
	NewVariant           string
	Old, New             timing.Summary // end-to-end
	OldKernel, NewKernel float64
	OldCall, NewCall     float64
	// Ratio is New's end-to-end median over Old's, Lo and Hi its 95% CI
	// (the ratio of the far ends of the two medians' CIs); 0 when a CI is
	// missing. KernelRatio is the kernel medians' ratio (0 when either
	// lacks one).
	Ratio, Lo, Hi float64
	KernelRatio   float64
	// Faster names the faster implementation, "tie" when the ratio's CI
	// holds 1, "" when it cannot be told (no CI).
	Faster string
}

// ErrNotImplPair: the reports differ in more than the implementation, or
// not in it.
var ErrNotImplPair = errors.New("report: the two reports do not differ only in WebGPU implementation")

// implOf is the implementation a report ran through ("wgpu-native" for
// reports written before it was recorded).
func implOf(r *Report) string {
	if r.Adapter.Implementation == "" {
		return "wgpu-native"
	}
	return r.Adapter.Implementation
}

// DiffersOnlyInImpl reports whether old and new ran through different
// WebGPU implementations on the same backend and adapter, each through
// one (not a side-by-side report of several).
func DiffersOnlyInImpl(old, new *Report) bool {
	if old == nil || new == nil {
		return false
	}
	for _, r := range []*Report{old, new} {
		if r.Backends != nil && len(r.Backends.Adapters) > 1 {
			return false
		}
	}
	return implOf(old) != implOf(new) && old.Adapter.Backend == new.Adapter.Backend && old.Adapter.Name == new.Adapter.Name
}

// CompareImpls compares old and new GPU row by GPU row, matched by
// workload and params (each implementation picks its own variant). It
// returns ErrNotImplPair unless DiffersOnlyInImpl.
func CompareImpls(old, new *Report) (ImplCompare, error) {
	if !DiffersOnlyInImpl(old, new) {
		return ImplCompare{}, ErrNotImplPair
	}
	c := ImplCompare{Old: implOf(old), New: implOf(new), Backend: old.Adapter.Backend, Adapter: old.Adapter.Name, Faster: map[string]int{}}
	key := func(m *Measurement) string {
		return strings.Join([]string{m.Workload, m.Side, paramString(m.Params, ",")}, "|")
	}
	byKey := map[string]*Measurement{}
	for i := range new.Measurements {
		if m := &new.Measurements[i]; m.Side == SideGPU {
			byKey[key(m)] = m
		}
	}
	matched := map[string]bool{}
	for i := range old.Measurements {
		o := &old.Measurements[i]
		if o.Side != SideGPU {
			continue
		}
		n, ok := byKey[key(o)]
		if !ok {
			c.OnlyOld = append(c.OnlyOld, key(o))
			continue
		}
		matched[key(o)] = true
		row := implRow(o, n, c.Old, c.New)
		row.OldCall, row.NewCall = callCost(old, o.Workload), callCost(new, n.Workload)
		if row.Faster != "" {
			c.Faster[row.Faster]++
		}
		c.Rows = append(c.Rows, row)
	}
	for i := range new.Measurements {
		if m := &new.Measurements[i]; m.Side == SideGPU && !matched[key(m)] {
			c.OnlyNew = append(c.OnlyNew, key(m))
		}
	}
	return c, nil
}

func implRow(o, n *Measurement, oldImpl, newImpl string) ImplCompareRow {
	row := ImplCompareRow{Workload: o.Workload, Params: o.Params, OldVariant: o.Variant, NewVariant: n.Variant, Old: o.EndToEnd, New: n.EndToEnd}
	if o.Kernel != nil && n.Kernel != nil {
		row.OldKernel, row.NewKernel = o.Kernel.Median, n.Kernel.Median
		if row.OldKernel > 0 && row.NewKernel > 0 {
			row.KernelRatio = row.NewKernel / row.OldKernel
		}
	}
	if row.Old.Median > 0 && row.New.Median > 0 {
		row.Ratio = row.New.Median / row.Old.Median
	}
	if row.Old.Lo > 0 && row.Old.Hi > 0 && row.New.Lo > 0 && row.New.Hi > 0 {
		row.Lo, row.Hi = row.New.Lo/row.Old.Hi, row.New.Hi/row.Old.Lo
		switch {
		case row.Hi < 1:
			row.Faster = newImpl
		case row.Lo > 1:
			row.Faster = oldImpl
		default:
			row.Faster = "tie"
		}
	}
	return row
}

// callCost is the intercept of r's end-to-end GPU-vs-CPU break-even fit
// of workload, the fixed cost of one GPU call; 0 without one.
func callCost(r *Report, workload string) float64 {
	var c float64
	for _, be := range r.BreakEvens {
		if be.Workload == workload && be.Clock == "end-to-end" && (len(be.Sides) < 2 || strings.HasPrefix(be.Sides[1], SideGPU)) {
			c = be.GPUFit.Overhead
		}
	}
	return max(c, 0)
}

// WriteImplCompare prints c: the verdict first (how many rows each
// implementation wins), then per row both implementations' end-to-end and
// kernel medians and fixed cost per call, the ratio with its CI, and the
// faster one; unmatched rows last.
func WriteImplCompare(w io.Writer, c ImplCompare) error {
	if w == nil {
		return errors.New("report: WriteImplCompare: nil writer")
	}
	var b strings.Builder
	for _, l := range WrapBullet("", fmt.Sprintf("%s vs %s on %s: %s faster in %d GPU row(s), %s in %d, tie in %d (end-to-end; tie when the ratio's 95%% CI holds 1×)",
		c.New, c.Old, adapterLabel(c.Backend, c.Adapter), c.New, c.Faster[c.New], c.Old, c.Faster[c.Old], c.Faster["tie"]), MaxLine) {
		b.WriteString(l + "\n")
	}
	// Folded within MaxLine as the side-by-side table of a run: a line
	// per implementation under each workload, the params in sizes.
	o, n := c.Old, c.New
	sec := func(v float64) string {
		if v <= 0 {
			return "-"
		}
		return timing.FormatSeconds(v)
	}
	var sizes []string
	rows := [][]string{{"workload", "through", "end to end", "kernel", "fixed/call", "vs " + o, "kernel ratio", "faster"}}
	for _, r := range c.Rows {
		if p := DisplayParams(r.Params); p != "" {
			sizes = append(sizes, r.Workload+" "+p)
		}
		ratio, kr := "-", "-"
		if r.Ratio > 0 {
			ratio = shortRatio(r.Ratio) + "×"
			if r.Lo > 0 {
				ratio += " [" + shortRatio(r.Lo) + ", " + shortRatio(r.Hi) + "]"
			}
		}
		if r.KernelRatio > 0 {
			kr = fmt.Sprintf("%.2f×", r.KernelRatio)
		}
		rows = append(rows,
			[]string{r.Workload, o, sec(r.Old.Median), sec(r.OldKernel), sec(r.OldCall), "", "", ""},
			[]string{"", n, sec(r.New.Median), sec(r.NewKernel), sec(r.NewCall), ratio, kr, orDash(r.Faster)})
	}
	if len(sizes) > 0 {
		for _, l := range WrapBullet("sizes: ", strings.Join(sizes, "; "), MaxLine) {
			b.WriteString(l + "\n")
		}
	}
	tw := &textWriter{w: &b}
	tw.table(rows)
	if tw.err != nil {
		return fmt.Errorf("report: WriteImplCompare: %w", tw.err)
	}
	for _, k := range c.OnlyOld {
		fmt.Fprintf(&b, "only through %s: %s\n", c.Old, k)
	}
	for _, k := range c.OnlyNew {
		fmt.Fprintf(&b, "only through %s: %s\n", c.New, k)
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("report: WriteImplCompare: %w", err)
	}
	return nil
}
