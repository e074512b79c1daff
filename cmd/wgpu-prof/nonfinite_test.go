package main

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A report holding +Inf (a rate over a 0 s reading) is refused by the
// JSON writer naming the field: exit status 1, nothing on stdout and no
// --out folder.
func TestNonFiniteReportRefused(t *testing.T) {
	rep := syntheticReport(t, 1, nil)
	rep.Measurements[2].GBs = math.Inf(1)
	out := filepath.Join(t.TempDir(), "d")
	o := outputFlags{format: "json", out: out}
	var stdout bytes.Buffer
	err := failed(o.emit(&stdout, rep))
	code, msg := exitStatus(err)
	if code != 1 || !strings.Contains(msg, "measurements[2].gbs = +Inf") {
		t.Fatalf("exit %d %q; want 1 naming measurements[2].gbs", code, msg)
	}
	if stdout.Len() != 0 {
		t.Errorf("%d bytes on stdout", stdout.Len())
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("--out folder: %v; want none", err)
	}
}
