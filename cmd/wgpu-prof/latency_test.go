package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/wgpu-prof/wgpu-prof/compute"
	"github.com/wgpu-prof/wgpu-prof/internal/report"
)

// latency --format json carries every point of the anatomy with its CI;
// the text leads with the one-line verdict.
func TestLatencyCommand(t *testing.T) {
	out, _, err := runCmd("latency", "--format", "json", "--rounds", "3", "--max-bytes", "65536")
	if err != nil {
		t.Fatal(err)
	}
	var got report.LatencyFile
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	a := got.Latency
	if a == nil || !a.Tiny.Valid() || !a.Empty.Valid() || a.Tiny.Hi < a.Tiny.Lo {
		t.Fatalf("no round trip with its CI: %+v", a)
	}
	if len(a.Dispatches) != len(compute.DefaultLatencyDispatches) || a.Dispatches[len(a.Dispatches)-1].K != 64 {
		t.Errorf("dispatch points %+v, want K = 1 … 64", a.Dispatches)
	}
	if n := len(compute.LatencySizes(65536)); len(a.Readback) != n || len(a.Upload) != n {
		t.Errorf("%d readback and %d upload points, want %d", len(a.Readback), len(a.Upload), n)
	}
	out, _, err = runCmd("latency", "--rounds", "3", "--max-bytes", "4096")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out, "latency on ") || !strings.Contains(out, "tiny call") {
		t.Errorf("text output does not lead with the round trip:\n%s", out)
	}
}

// Bad flags are refused naming the flag and value.
func TestLatencyBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"--rounds", "2"}, {"--rounds", "0"}, {"--max-bytes", "2"}, {"--format", "csv"}, {"--adapter", "-2"}, {"extra"},
	} {
		_, _, err := runCmd(append([]string{"latency"}, args...)...)
		if err == nil || !strings.Contains(err.Error(), strings.TrimPrefix(args[0], "--")) {
			t.Errorf("latency %v: err = %v, want one naming %s", args, err, args[0])
		}
	}
}
