package hostsimd

import (
	"bytes"
	"errors"
	"os"
	"testing"
	"time"
)

// A calibration being measured ends soon after its stop function says so,
// with ErrStopped, installing and caching nothing; with a stop that never
// fires it is measured, installed and cached as CurrentCalibration's is.
// (HOSTSIMD_CALIBRATE=fresh measures whatever the cache holds: Windows
// ignores XDG_CACHE_HOME, so the user's cache file may be there.)
func TestCalibrationStops(t *testing.T) {
	if testing.Short() {
		t.Skip("measures a calibration")
	}
	// Not t.TempDir: under Wine its removal fails after the checks pass,
	// and a test that also logs could not be told from a failing one.
	dir, err := os.MkdirTemp("", "calibration-stops")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	t.Setenv("XDG_CACHE_HOME", dir)
	t.Setenv("HOME", dir)
	t.Setenv("HOSTSIMD_CALIBRATE", "fresh")
	prev := calibCur.Load()
	defer calibCur.Store(prev)
	calibCur.Store(nil)
	file, err := calibFile()
	if err != nil {
		t.Fatal(err)
	}
	cached, _ := os.ReadFile(file)

	const after, bound = 300 * time.Millisecond, 1500 * time.Millisecond
	start := time.Now()
	c, err := CurrentCalibrationUntil(func() bool { return time.Since(start) > after })
	took := time.Since(start)
	if !errors.Is(err, ErrStopped) || c != nil {
		t.Fatalf("stopped after %v: calibration %v, err %v; want ErrStopped (took %v)", after, c, err, took)
	}
	// An emulator stretches the step a stop waits for by the emulation's
	// factor: there the bound says nothing, the rest of the test holds.
	if why := emulated(); took > after+bound && why == "" {
		t.Errorf("stopped after %v: returned after %v", after, took)
	} else if took > after+bound {
		t.Logf("stopped after %v: returned after %v, past the bound under %s", after, took, why)
	}
	t.Logf("stopped after %v: returned after %v", after, took)
	if calibCur.Load() != nil {
		t.Error("a stopped calibration was installed")
	}
	if now, _ := os.ReadFile(file); !bytes.Equal(now, cached) {
		t.Error("a stopped calibration changed the cache file")
	}

	c, err = CurrentCalibrationUntil(func() bool { return false })
	if err != nil || c == nil || c.Source != "measured" || calibCur.Load() != c {
		t.Fatalf("unstopped: calibration %+v, err %v; want one measured and installed", c, err)
	}
	if now, err := os.ReadFile(file); err != nil || bytes.Equal(now, cached) {
		t.Errorf("the measured calibration was not cached (%v)", err)
	}
}
