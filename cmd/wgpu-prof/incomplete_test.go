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

// compare of two reports that differ only in implementation says per GPU
// row which is faster, with the ratio's CI, and exits 0 though each
// implementation picked its own variant.
func TestCompareImplementations(t *testing.T) {
	dir := t.TempDir()
	a := syntheticReport(t, 1, nil)
	b := syntheticReport(t, 2, nil)
	a.Adapter.Implementation, b.Adapter.Implementation = "wgpu-native", "dawn"
	for i := range b.Measurements {
		b.Measurements[i].Variant += "-dawn"
	}
	out, _, err := runCmd("compare", writeReport(t, dir, "native.json", a), writeReport(t, dir, "dawn.json", b))
	if err != nil {
		t.Fatalf("compare of two implementations: %v\n%s", err, out)
	}
	if !strings.HasPrefix(out, "dawn vs wgpu-native on ") || !strings.Contains(out, "vs wgpu-native") || !strings.Contains(out, "95% CI") {
		t.Errorf("compare of two implementations:\n%s", out)
	}
}
