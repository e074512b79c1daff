package main

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/wgpu-prof/wgpu-prof/internal/report"
)

func runCompare(stdout, stderr io.Writer, args []string) error {
	fs := pflag.NewFlagSet("compare", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	threshold := fs.String("threshold", "5%", "a significant slowdown past this fraction is a regression (e.g. 5% or 0.05)")
	across := fs.Bool("across-backends", false, "the two reports ran on different backends or adapters: match rows by workload, side and params (each adapter picks its own GPU variant)")
	setHelp(fs, stdout, "usage: wgpu-prof compare OLD.json NEW.json [--threshold 5%]\n"+
		"Per-row deltas with significance and a geomean; exit status 1 when a row\n"+
		"regresses significantly past the threshold (for CI use). For Go's benchstat,\n"+
		"compare the report.bench files instead: benchstat old/report.bench new/report.bench",
		`  wgpu-prof compare base/report.json new/report.json
  wgpu-prof compare base/report.json new/report.json --threshold 2%
  wgpu-prof compare vulkan.json gl.json --across-backends`)
	if done, err := parseFlags(fs, args); done || err != nil {
		return err
	}
	if fs.NArg() != 2 {
		return fmt.Errorf("compare needs two report files, got %d argument(s)", fs.NArg())
	}
	th, err := parsePercent(*threshold)
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
	res := report.Compare(old, cur, th)
	if *across {
		if res, err = report.CompareAcrossBackends(old, cur, th); err != nil {
			return fmt.Errorf("--across-backends: %w", err)
		}
	}
	if w := report.StateDiff(old, cur); w != "" {
		fmt.Fprintln(stdout, "warning: "+w)
	}
	if err := report.WriteCompare(stdout, res); err != nil {
		return err
	}
	if res.Regressed {
		return exitError{code: 1, msg: fmt.Sprintf("regression past %s", *threshold)}
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
