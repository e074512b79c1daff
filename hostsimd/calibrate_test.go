package hostsimd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestCalibrationShow prints the measured calibration (HOSTSIMD_TARGETS=1).
func TestCalibrationShow(t *testing.T) {
	skipIfEmulated(t)
	if os.Getenv("HOSTSIMD_TARGETS") != "1" {
		t.Skip("set HOSTSIMD_TARGETS=1 to measure the calibration")
	}
	c, err := Calibrate("fresh")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.MarshalIndent(c, "", "  ")
	t.Logf("%s", b)
	for _, sz := range []int64{6 << 20, 600 << 20} {
		l, p, why := Host{}.SingleChoice(sz)
		t.Logf("%d bytes: %v %s: %s", sz, l, p, why)
	}
}

// TestCalibrationCache checks that a calibration is written to and read
// back from the user cache dir, and that a file for another CPU or version
// is ignored.
func TestCalibrationCache(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", dir)
	t.Setenv("HOME", dir)
	prev := calibCur.Load()
	defer calibCur.Store(prev)
	c, err := Calibrate("fresh")
	if err != nil {
		t.Fatal(err)
	}
	if c.Source != "measured" || !c.valid() {
		t.Fatalf("fresh calibration: source %q valid %v", c.Source, c.valid())
	}
	// The DRAM class is past every L3 the threads may see.
	if b := c.Single[ClassDRAM].Bytes; b < DRAMWorkingSet(defaultThreads) {
		t.Errorf("calibration's dram class over %d bytes < DRAMWorkingSet %d", b, DRAMWorkingSet(defaultThreads))
	}
	file, err := calibFile()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(file); err != nil {
		t.Fatalf("cache file not written: %v", err)
	}
	c2, err := Calibrate("")
	if err != nil {
		t.Fatal(err)
	}
	if c2.Source != "cache "+file || c2.Single[ClassDRAM].Level != c.Single[ClassDRAM].Level {
		t.Fatalf("second calibration: source %q, dram %+v want %+v", c2.Source, c2.Single[ClassDRAM], c.Single[ClassDRAM])
	}
	// A file for another CPU model is measured again, not trusted.
	bad := *c
	bad.CPU = "some other cpu"
	b, _ := json.Marshal(bad)
	if err := os.WriteFile(file, b, 0o644); err != nil {
		t.Fatal(err)
	}
	c3, _ := Calibrate("")
	if c3.Source != "measured" {
		t.Fatalf("foreign cache file used: %q", c3.Source)
	}
	if _, err := Calibrate("bogus"); err == nil {
		t.Fatal("Calibrate(bogus) gave no error")
	}
	off, _ := Calibrate("off")
	if off.Source[:4] != "rule" {
		t.Fatalf("off: %q", off.Source)
	}
	_ = filepath.Base(file)
}

// TestReadCeilingShow prints the read ceilings at DRAM and cache sizes
// (HOSTSIMD_TARGETS=1).
func TestReadCeilingShow(t *testing.T) {
	skipIfEmulated(t)
	if os.Getenv("HOSTSIMD_TARGETS") != "1" {
		t.Skip("set HOSTSIMD_TARGETS=1 to measure the read ceilings")
	}
	for _, th := range []int{1, 0} {
		c, err := MeasureCeilings(CeilingOpts{Threads: th, CacheBytes: 6 << 20, Runs: 5})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%v\n  candidates %v", c, c.ReadCandidates)
	}
}

// TestMeasureRead checks MeasureRead's result shape and its errors.
func TestMeasureRead(t *testing.T) {
	r, err := MeasureRead(1<<20, 2, 2)
	if err != nil {
		t.Fatal(err)
	}
	if !(r.GBs > 0) || r.Kernel == "" || len(r.Candidates) < 1 || r.Threads != 2 || r.Bytes <= 0 || r.Bytes > 1<<20 {
		t.Fatalf("MeasureRead: %+v", r)
	}
	best := 0.0
	for _, c := range r.Candidates {
		best = max(best, c.GBs)
	}
	if best != r.GBs {
		t.Fatalf("GBs %v is not the best candidate %v", r.GBs, best)
	}
	for _, bad := range []struct {
		bytes    int64
		th, runs int
	}{{0, 1, 1}, {-5, 1, 1}, {1 << 20, 1, -1}, {16, 4, 1}} {
		if _, err := MeasureRead(bad.bytes, bad.th, bad.runs); err == nil {
			t.Errorf("MeasureRead(%d, %d, %d): no error", bad.bytes, bad.th, bad.runs)
		}
	}
}

// TestPrintDefaultCeilingBytes prints DefaultCeilingBytes for
// bench/compare.py (HOSTSIMD_PRINT=1).
func TestPrintDefaultCeilingBytes(t *testing.T) {
	if os.Getenv("HOSTSIMD_PRINT") != "1" {
		t.Skip("HOSTSIMD_PRINT=1 prints DefaultCeilingBytes for bench/compare.py")
	}
	t.Logf("DEFAULT_CEILING_BYTES=%d", DefaultCeilingBytes())
}
