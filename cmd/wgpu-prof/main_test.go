package main

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wgpu-prof/wgpu-prof/internal/report"
	"github.com/wgpu-prof/wgpu-prof/timing"
)

func runCmd(args ...string) (string, string, error) {
	var out, errb bytes.Buffer
	err := run(&out, &errb, args)
	return out.String(), errb.String(), err
}

// syntheticReport has rows with raw samples around the given medians.
func syntheticReport(t *testing.T, seed uint64, scale map[string]float64) *report.Report {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 9))
	rep := report.New("wgpu-prof test", time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC))
	for _, w := range []string{"cosine-single", "cosine-batch", "hnsw"} {
		for _, side := range []string{"gpu", "cpu"} {
			base := 1e-3 * scale[w+"/"+side]
			if base == 0 {
				base = 1e-3
			}
			var s []float64
			for i := 0; i < 30; i++ {
				s = append(s, base*(1+0.01*r.NormFloat64()))
			}
			rep.Measurements = append(rep.Measurements, report.Measurement{
				Workload: w, Side: side, Variant: "v", Params: []report.Param{{Key: "n", Value: "1000"}},
				EndToEnd: timing.Summarize(s), Samples: s, Bytes: 1e6, Flops: 1e6, Verified: true,
			})
		}
	}
	return rep
}

func writeReport(t *testing.T, dir, name string, rep *report.Report) string {
	t.Helper()
	path := filepath.Join(dir, name)
	var buf bytes.Buffer
	if err := report.WriteJSON(&buf, rep); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestCompareDetectsPlantedRegression(t *testing.T) {
	dir := t.TempDir()
	old := writeReport(t, dir, "old.json", syntheticReport(t, 1, nil))
	same := writeReport(t, dir, "same.json", syntheticReport(t, 2, nil))
	slow := writeReport(t, dir, "slow.json", syntheticReport(t, 3, map[string]float64{"cosine-batch/gpu": 1.2}))

	if out, _, err := runCmd("compare", old, same, "--threshold", "5%"); err != nil {
		t.Fatalf("rerun of the same data reported a regression: %v\n%s", err, out)
	}
	out, _, err := runCmd("compare", old, slow, "--threshold", "5%")
	var ee exitError
	if !errors.As(err, &ee) || ee.code != 1 {
		t.Fatalf("planted 20%% regression: got %v, want exit 1\n%s", err, out)
	}
	if !strings.Contains(out, "cosine-batch") {
		t.Fatalf("output does not name the regressed row:\n%s", out)
	}
}

func TestCompareRejectsCorruptJSON(t *testing.T) {
	dir := t.TempDir()
	good := writeReport(t, dir, "good.json", syntheticReport(t, 1, nil))
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"schema": "wgpu-prof/v1", "measurements": [`), 0o644)
	_, _, err := runCmd("compare", good, bad)
	if err == nil || !strings.Contains(err.Error(), "bad.json") {
		t.Fatalf("corrupt report: got %v, want an error naming the file", err)
	}
	var ee exitError
	if errors.As(err, &ee) && ee.code == 1 {
		t.Fatal("a corrupt file must not look like a regression (exit 1)")
	}
	if _, _, err := runCmd("compare", good); err == nil {
		t.Fatal("compare with one file accepted")
	}
	if _, _, err := runCmd("compare", good, good, "--threshold", "abc"); err == nil {
		t.Fatal("bad threshold accepted")
	}
}

func TestBadInputIsRefused(t *testing.T) {
	cases := [][]string{
		{"nosuchcommand"},
		{"breakeven", "--kernel", "nosuchkernel"},
		{"run", "--workloads", "cosine-single,bogus"},
		{"run", "--d", "766", "--workloads", "cosine-single"},
		{"run", "--n", "0", "--workloads", "cosine-single"},
		{"run", "--format", "yaml"},
		{"run", "--batches", "1,0,4"},
		{"run", "--plot"},
		{"host", "--cpu-levels", "sse9"},
		{"devices", "--backend", "glide"},
	}
	for _, c := range cases {
		if _, _, err := runCmd(c...); err == nil {
			t.Errorf("%v: accepted", c)
		}
	}
}

func TestUnwritableOutLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	blocker := filepath.Join(dir, "file")
	os.WriteFile(blocker, []byte("x"), 0o644)
	out := filepath.Join(blocker, "sub") // a path under a regular file can never be created
	_, _, err := runCmd("run", "--quick", "--workloads", "cosine-single", "--out", out)
	if err == nil || !strings.Contains(err.Error(), "--out") {
		t.Fatalf("got %v, want an error naming --out", err)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Fatalf("files were left behind: %v", ents)
	}
}
