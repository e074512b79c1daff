package main

import (
	"encoding/csv"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/wgpu-prof/wgpu-prof/internal/report"
	"github.com/wgpu-prof/wgpu-prof/timing"
)

// hybrid --out DIR --requests-csv writes every request of every replay and
// strategy; each strategy's seconds summed per replay give the totals the
// report summarizes (their median is its total), and the sides, probes
// and shares agree with the report's.
func TestHybridRequestsCSV(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a hybrid replay")
	}
	dir := filepath.Join(t.TempDir(), "out")
	const requests = 120
	if _, stderr, err := runCmd("hybrid", "--kernel", "cosine-single", "--sides", "cpu:threads=1,cpu:threads=2", "--quick",
		"--min", "1", "--max", "64", "--requests", strconv.Itoa(requests), "--search-budget", "5s", "--quiet",
		"--out", dir, "--requests-csv"); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	rep, err := report.Read(filepath.Join(dir, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	h := rep.Hybrid
	if h == nil || len(h.Strategies) != 5 || h.Repeats < 10 {
		t.Fatalf("report's hybrid: %+v", h)
	}
	f, err := os.Open(filepath.Join(dir, "requests.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"strategy", "replay", "request", "n", "side", "seconds", "routing_seconds", "probe", "recovered"}
	if len(rows) == 0 || len(rows[0]) != len(want) {
		t.Fatalf("header %v, want %v", rows[:min(len(rows), 1)], want)
	}
	for i, c := range want {
		if rows[0][i] != c {
			t.Fatalf("header %v, want %v", rows[0], want)
		}
	}
	if got := len(rows) - 1; got != 5*h.Repeats*requests {
		t.Fatalf("%d rows, want 5 strategies × %d replays × %d requests", got, h.Repeats, requests)
	}
	totals := make([][]float64, 5)
	for k := range totals {
		totals[k] = make([]float64, h.Repeats)
	}
	var share [5][2]int
	var probes [5]int
	for j, r := range rows[1:] {
		v := make([]float64, len(r))
		for i, x := range r {
			if v[i], err = strconv.ParseFloat(x, 64); err != nil {
				t.Fatalf("row %d: %v", j+1, r)
			}
		}
		k, rp, i, n, side := int(v[0]), int(v[1]), int(v[2]), int(v[3]), int(v[4])
		// In order: strategy, replay, request.
		if k != j/(h.Repeats*requests) || rp != j/requests%h.Repeats || i != j%requests {
			t.Fatalf("row %d out of order: %v", j+1, r)
		}
		if n < 1 || n > 64 || side < 0 || side > 1 || !(v[5] > 0) || v[6] < 0 || v[6] > v[5] {
			t.Fatalf("row %d: %v", j+1, r)
		}
		if k < 2 && side != k {
			t.Fatalf("row %d: %s answered by side %d", j+1, h.Strategies[k].Name, side)
		}
		totals[k][rp] += v[5]
		share[k][side]++
		probes[k] += int(v[7])
	}
	for k, s := range h.Strategies {
		if got := timing.Summarize(totals[k]).Median; math.Abs(got-s.Total) > 1e-4*s.Total {
			t.Errorf("%s: median of the rows' replay totals %.6g s, report's total %.6g s", s.Name, got, s.Total)
		}
		if share[k][0] != s.Share[0] || share[k][1] != s.Share[1] || probes[k] != s.Probes {
			t.Errorf("%s: rows' shares %v and probes %d, report's %v and %d", s.Name, share[k], probes[k], s.Share, s.Probes)
		}
	}
}
