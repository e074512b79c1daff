package main

import (
	"errors"
	"strings"
	"testing"
)

// compare refuses a report of an interrupted run unless --allow-incomplete,
// and exits 1 when rows of the old report are missing from the new one.
func TestCompareIncompleteAndMissingRows(t *testing.T) {
	dir := t.TempDir()
	full := writeReport(t, dir, "full.json", syntheticReport(t, 1, nil))
	part := syntheticReport(t, 2, nil)
	part.Measurements = part.Measurements[:2]
	part.Incomplete = "interrupted"
	partPath := writeReport(t, dir, "part.json", part)
	_, _, err := runCmd("compare", full, partPath)
	var ee exitError
	if err == nil || errors.As(err, &ee) || !strings.Contains(err.Error(), "interrupted run") || !strings.Contains(err.Error(), "--allow-incomplete") {
		t.Fatalf("an incomplete report was not refused as a usage error (exit 2): %v", err)
	}
	if _, _, err := runCmd("compare", partPath, full); err == nil {
		t.Fatal("an incomplete old report was not refused")
	}
	// Asked to compare it anyway: the rows missing from the new run fail
	// the comparison.
	out, _, err := runCmd("compare", full, partPath, "--allow-incomplete")
	if !errors.As(err, &ee) || ee.code != 1 || !strings.Contains(ee.msg, "missing") {
		t.Fatalf("rows missing from the new run: got %v, want exit 1 naming them\n%s", err, out)
	}
	// The same rows missing from a complete report fail too.
	part.Incomplete = ""
	short := writeReport(t, dir, "short.json", part)
	if _, _, err := runCmd("compare", full, short); !errors.As(err, &ee) || ee.code != 1 {
		t.Fatalf("a complete report missing rows: got %v, want exit 1", err)
	}
	// Rows only in the new report are fine.
	if _, _, err := runCmd("compare", short, full); err != nil {
		t.Fatalf("new rows only: %v", err)
	}
}
