package main

import (
	"strings"
	"testing"

	"github.com/wgpu-prof/wgpu-prof/internal/report"
)

// sweep variant times every GPU design of a kernel side by side, each
// verified, and names the best; an unknown kernel is refused early.
func TestSweepVariant(t *testing.T) {
	out, _, err := runCmd("sweep", "variant", "--kernel", "hnsw", "--quick", "--n", "2048", "--d", "64", "--q", "4", "--c", "8", "--format", "json")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"variant"`, "l2sq-lanes-wg64", "l2sq-per-pair-wg64", "variant sweep: best"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out[:min(len(out), 2000)])
		}
	}
	if _, _, err := runCmd("sweep", "variant", "--kernel", "bogus"); err == nil || !strings.Contains(err.Error(), "bogus") {
		t.Fatalf("unknown kernel: %v", err)
	}
}

// breakeven's GPU side runs the variant the autotune selects on this
// adapter (named in the summary), as run does, not the workload's default
// design; --retune makes the selection measure here rather than read a
// cache another test left.
func TestBreakevenUsesSelectedVariant(t *testing.T) {
	out, _, err := runCmd("breakeven", "--kernel", "hnsw", "--quick", "--n", "2048", "--d", "64", "--c", "8",
		"--batches", "1,4,16", "--sides", "cpu,gpu", "--search-budget", "5s", "--retune", "--format", "json")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := report.Decode([]byte(out), "stdout")
	if err != nil {
		t.Fatal(err)
	}
	chosen := ""
	for _, s := range rep.Summary {
		if _, rest, ok := strings.Cut(s, "GPU variant "); ok {
			chosen, _, _ = strings.Cut(rest, " chosen by measurement")
		}
	}
	if chosen == "" {
		t.Fatalf("no variant choice in the summary: %q", rep.Summary)
	}
	gpuRows := 0
	for _, m := range rep.Measurements {
		if m.Side != report.SideGPU {
			continue
		}
		gpuRows++
		if !strings.HasPrefix(m.Variant, chosen+" ") {
			t.Errorf("GPU row %q %v does not run the chosen variant %q", m.Variant, m.Params, chosen)
		}
	}
	if gpuRows == 0 {
		t.Fatal("no GPU rows")
	}
}
