package main

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/wgpu-prof/wgpu-prof/internal/report"
)

func runCompare(stdout, stderr io.Writer, args []string) error {
	fs := newFlags("compare", stdout, stderr, "usage: wgpu-prof compare OLD.json NEW.json [--threshold 5%]\n"+
		"Per-row deltas with significance and a geomean; exit status 1 when a row\n"+
		"regresses significantly past the threshold or a row of OLD is missing from\n"+
		"NEW (for CI use). A report of an interrupted run is refused (exit 2) unless\n"+
		"--allow-incomplete. For Go's benchstat, compare the report.bench files\n"+
		"instead: benchstat old/report.bench new/report.bench\n"+
		"Two reports that differ only in WebGPU implementation (run --impl\n"+
		"wgpu-native, run --impl dawn, same adapter) are compared as run --impl\n"+
		"wgpu-native,dawn does: per GPU row which is faster, the ratio and its\n"+
		"95% CI, tie inside the noise; exit status 0 unless no row matches.",
		`  wgpu-prof compare base/report.json new/report.json
  wgpu-prof compare base/report.json new/report.json --threshold 2%
  wgpu-prof compare vulkan.json gl.json --across-backends
  wgpu-prof compare wgpu-native/report.json dawn/report.json`)
	if done, err := fs.parse(args); done || err != nil {
		return err
	}
	if fs.NArg() != 2 {
		return fmt.Errorf("compare needs two report files, got %d argument(s)", fs.NArg())
	}
	th, err := parsePercent(fs.str("threshold"))
	if err != nil {
		return fmt.Errorf("--threshold: %w", err)
	}
	old, err := report.Read(fs.Arg(0))
	if err != nil {
		return err
	}
	cur, err := report.Read(fs.Arg(1))
	if err != nil {
		return err
	}
	for i, r := range []*report.Report{old, cur} {
		if why, ok := r.IncompleteReason(); ok && !fs.on("allow-incomplete") {
			return fmt.Errorf("%s is the report of an interrupted run (%s: %s): refusing to compare it (--allow-incomplete to compare anyway)",
				fs.Arg(i), report.IncompleteMark, why)
		}
	}
	if report.DiffersOnlyInImpl(old, cur) && !fs.on("across-backends") {
		return compareImpls(stdout, old, cur, fs.Arg(0), fs.Arg(1))
	}
	res := report.Compare(old, cur, th)
	if fs.on("across-backends") {
		if res, err = report.CompareAcrossBackends(old, cur, th); err != nil {
			return fmt.Errorf("--across-backends: %w", err)
		}
	}
	if w := report.StateDiff(old, cur); w != "" {
		fmt.Fprintln(stdout, strings.Join(report.WrapBullet("warning: ", w, report.MaxLine), "\n"))
	}
	if err := report.WriteCompare(stdout, res); err != nil {
		return err
	}
	switch {
	case res.Regressed:
		return exitError{code: 1, msg: fmt.Sprintf("regression past %s", fs.str("threshold"))}
	case len(res.OnlyOld) > 0:
		return exitError{code: 1, msg: fmt.Sprintf("%d row(s) of %s missing from %s (first: %s)", len(res.OnlyOld), fs.Arg(0), fs.Arg(1), res.OnlyOld[0])}
	}
	return nil
}

// compareImpls compares two reports that differ only in implementation
// (report.CompareImpls).
func compareImpls(stdout io.Writer, old, cur *report.Report, oldName, curName string) error {
	c, err := report.CompareImpls(old, cur)
	if err != nil {
		return err
	}
	if w := report.StateDiff(old, cur); w != "" {
		fmt.Fprintln(stdout, strings.Join(report.WrapBullet("warning: ", w, report.MaxLine), "\n"))
	}
	if err := report.WriteImplCompare(stdout, c); err != nil {
		return err
	}
	if len(c.Rows) == 0 {
		return exitError{code: 1, msg: fmt.Sprintf("no GPU row of %s (%s) matches one of %s (%s)", oldName, c.Old, curName, c.New)}
	}
	return nil
}

// parsePercent accepts "5%" or "0.05".
func parsePercent(s string) (float64, error) {
	t := strings.TrimSpace(s)
	scale := 1.0
	if strings.HasSuffix(t, "%") {
		t, scale = strings.TrimSuffix(t, "%"), 0.01
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(t), 64)
	// !(v >= 0) refuses NaN too: a NaN threshold would disable the check.
	if err != nil || !(v >= 0) || math.IsInf(v, 0) || v*scale >= 10 {
		return 0, fmt.Errorf("%q is not a finite fraction in [0, 10) like 5%% or 0.05", s)
	}
	return v * scale, nil
}
