package main

import (
	"strings"
	"testing"

	"github.com/wgpu-prof/wgpu-prof/internal/report"
)

// TestStreamCSV: both sides print exactly BabelStream's CSV header and the
// five kernels in its order, with the asked-for sizes.
func TestStreamCSV(t *testing.T) {
	for _, side := range []string{"cpu", "gpu"} {
		out, errOut, err := runCmd("stream", "--side", side, "--csv", "--arraysize", "100003", "--numtimes", "3")
		if err != nil {
			t.Fatalf("%s: %v (%s)", side, err, errOut)
		}
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if len(lines) != 6 || lines[0] != report.StreamCSVHeader {
			t.Fatalf("%s: CSV:\n%s", side, out)
		}
		for i, k := range []string{"Copy", "Mul", "Add", "Triad", "Dot"} {
			if !strings.HasPrefix(lines[i+1], k+",3,100003,4,") || len(strings.Split(lines[i+1], ",")) != 8 {
				t.Errorf("%s: row %d: %q", side, i, lines[i+1])
			}
		}
	}
	out, _, err := runCmd("stream", "--side", "gpu", "--arraysize", "5000", "--numtimes", "2")
	if err != nil || !strings.Contains(out, "verified") || !strings.Contains(out, "Function    MBytes/sec  Min (sec)   Max         Average") {
		t.Fatalf("table: %v\n%s", err, out)
	}
}

func TestStreamBadInput(t *testing.T) {
	for _, c := range []struct{ args, want string }{
		{"--arraysize 0", "--arraysize 0"},
		{"--numtimes 1", "--numtimes 1"},
		{"--side both", "--side"},
		{"--side cpu --double", "--double"},
		{"--side cpu --backend gl", "--backend"},
		{"--threads -1 --side cpu", "--threads -1"},
	} {
		_, _, err := runCmd(append([]string{"stream"}, strings.Fields(c.args)...)...)
		if code, msg := exitStatus(err); code != 2 || !strings.Contains(msg, c.want) {
			t.Errorf("%s: exit %d %q, want 2 naming %s", c.args, code, msg, c.want)
		}
	}
}
