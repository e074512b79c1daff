package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/wgpu-prof/wgpu-prof/internal/experiment"
	"github.com/wgpu-prof/wgpu-prof/internal/report"
)

// Names of what `workloads --has` filters on.
const (
	hasWorkgroup  = "sweep-workgroup"
	hasTile       = "sweep-tile"
	hasMemCompute = "memory-compute"
)

// runWorkloads lists the workloads and which sweeps and experiments apply
// to each, so scripts (the bundle's run.sh) need no list of their own.
func runWorkloads(stdout, stderr io.Writer, args []string) error {
	fs := newFlags("workloads", stdout, stderr, "usage: wgpu-prof workloads [--has sweep-workgroup|sweep-tile|memory-compute|all]\n"+
		"Lists every workload with its batch meaning and the sweeps and experiments that apply to it.",
		"  wgpu-prof workloads\n  wgpu-prof workloads --has memory-compute")
	if done, err := fs.parse(args); done || err != nil {
		return err
	}
	has := fs.str("has")
	if fs.NArg() > 0 {
		return fmt.Errorf("workloads takes no arguments (got %q)", fs.Args())
	}
	list := experiment.Workloads()
	if has != "" {
		var pick func(experiment.WorkloadInfo) bool
		switch has {
		case "all":
			pick = func(experiment.WorkloadInfo) bool { return true }
		case hasWorkgroup:
			pick = func(w experiment.WorkloadInfo) bool { return w.Workgroup }
		case hasTile:
			pick = func(w experiment.WorkloadInfo) bool { return w.Tile }
		case hasMemCompute:
			pick = func(w experiment.WorkloadInfo) bool { return w.MemCompute }
		default:
			return fmt.Errorf("--has %q: must be %s, %s, %s or all", has, hasWorkgroup, hasTile, hasMemCompute)
		}
		for _, w := range list {
			if pick(w) {
				fmt.Fprintln(stdout, w.Name)
			}
		}
		return nil
	}
	// The batch column says what a batch size counts (rows, queries,
	// nodes); the applies column is as wide as its widest entry, and a
	// long description wraps under its column within report.MaxLine.
	type row struct{ name, batch, applies, doc string }
	var rows []row
	width := len("applies")
	for _, w := range list {
		var applies []string
		if w.Workgroup {
			applies = append(applies, hasWorkgroup)
		}
		if w.Tile {
			applies = append(applies, hasTile)
		}
		if w.MemCompute {
			applies = append(applies, hasMemCompute)
		}
		a := strings.Join(applies, ",")
		if a == "" {
			a = "-"
		}
		batch := w.Batch
		if u := report.BatchUnit(w.Batch); u != "" {
			batch += " (" + u + ")"
		}
		rows = append(rows, row{w.Name, batch, a, w.Doc})
		width = max(width, len(a))
	}
	pad := 16 + 1 + 13 + 1 + width + 2
	fmt.Fprintf(stdout, "%-16s %-13s %-*s  %s\n", "workload", "batch counts", width, "applies", "computes")
	for _, r := range rows {
		doc := report.WrapBullet("", r.doc, report.MaxLine-pad)
		fmt.Fprintf(stdout, "%-16s %-13s %-*s  %s\n", r.name, r.batch, width, r.applies, doc[0])
		for _, l := range doc[1:] {
			fmt.Fprintf(stdout, "%s%s\n", strings.Repeat(" ", pad), l)
		}
	}
	return nil
}
