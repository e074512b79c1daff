package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wgpu-prof/wgpu-prof/internal/experiment"
	"github.com/wgpu-prof/wgpu-prof/internal/experiment/sweeps"
	"github.com/wgpu-prof/wgpu-prof/internal/report"
	"github.com/wgpu-prof/wgpu-prof/timing"
)

// TestEverySweepWritesJSONAndOut runs every sweep and experiment the CLI
// offers, at small sizes, with --format json and --out, and checks both
// reports parse and every point has at least timing.DefaultMinRuns
// samples.
func TestEverySweepWritesJSONAndOut(t *testing.T) {
	if testing.Short() {
		t.Skip("opens the GPU")
	}
	small := []string{"--d", "64", "--n", "1024", "--q", "8", "--c", "8", "--k", "4", "--nodes", "2000", "--degree", "4", "--steps", "3", "--budget", "20ms"}
	var cmds [][]string
	for _, w := range experiment.AllWorkloads() {
		cmds = append(cmds, append([]string{"sweep", "workgroup", "--kernel", w, "--sizes", "32,64"}, small...))
		cmds = append(cmds, append([]string{"sweep", "tile", "--kernel", w, "--tiles", "8,16"}, small...))
	}
	for _, w := range sweeps.MemComputeWorkloads() {
		cmds = append(cmds, append([]string{"experiment", "memory-compute", "--kernel", w}, small...))
	}
	ran := 0
	for _, args := range cmds {
		dir := t.TempDir()
		stdout, stderr, err := runCmd(append(args, "--format", "json", "--out", dir)...)
		if err != nil {
			if strings.Contains(err.Error(), "no wg knob") || strings.Contains(err.Error(), "no tile knob") {
				continue
			}
			t.Errorf("%v: %v\n%s", args, err, stderr)
			continue
		}
		ran++
		var rep report.Report
		if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
			t.Errorf("%v: stdout is not JSON: %v", args, err)
			continue
		}
		file, err := report.Read(filepath.Join(dir, "report.json"))
		if err != nil {
			t.Errorf("%v: --out: %v", args, err)
			continue
		}
		if _, err := os.Stat(filepath.Join(dir, "report.txt")); err != nil {
			t.Errorf("%v: --out wrote no report.txt: %v", args, err)
		}
		if len(file.Sweeps)+len(file.Experiments) == 0 {
			t.Errorf("%v: report has neither sweeps nor experiments", args)
		}
		for _, s := range file.Sweeps {
			if s.Verdict == "" {
				t.Errorf("%v: sweep without a verdict", args)
			}
			for _, p := range s.Points {
				if p.Time.N < timing.DefaultMinRuns {
					t.Errorf("%v: point %s has %d samples", args, p.Label, p.Time.N)
				}
			}
		}
	}
	if ran < 4 {
		t.Fatalf("only %d sweep/experiment commands ran", ran)
	}
}
