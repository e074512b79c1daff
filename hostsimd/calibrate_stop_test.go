package hostsimd

import (
	"errors"
	"os"
	"testing"
	"time"
)

// A calibration being measured ends soon after its stop function says so,
// with ErrStopped, installing and caching nothing; with a stop that never
// fires it is measured, installed and cached as CurrentCalibration's is.
func TestCalibrationStops(t *testing.T) {
	if testing.Short() {
		t.Skip("measures a calibration")
	}
	dir := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", dir)
	t.Setenv("HOME", dir)
	t.Setenv("HOSTSIMD_CALIBRATE", "")
	prev := calibCur.Load()
	defer calibCur.Store(prev)
	calibCur.Store(nil)

	const after, bound = 300 * time.Millisecond, 1500 * time.Millisecond
	start := time.Now()
	c, err := CurrentCalibrationUntil(func() bool { return time.Since(start) > after })
	took := time.Since(start)
	if !errors.Is(err, ErrStopped) || c != nil {
		t.Fatalf("stopped after %v: calibration %v, err %v; want ErrStopped (took %v)", after, c, err, took)
	}
	if took > after+bound {
		t.Errorf("stopped after %v: returned after %v", after, took)
	}
	t.Logf("stopped after %v: returned after %v", after, took)
	if calibCur.Load() != nil {
		t.Error("a stopped calibration was installed")
	}
	file, err := calibFile()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(file); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a stopped calibration left a cache file (%v)", err)
	}

	c, err = CurrentCalibrationUntil(func() bool { return false })
	if err != nil || c == nil || c.Source != "measured" || calibCur.Load() != c {
		t.Fatalf("unstopped: calibration %+v, err %v; want one measured and installed", c, err)
	}
	if _, err := os.Stat(file); err != nil {
		t.Errorf("the measured calibration was not cached: %v", err)
	}
}
