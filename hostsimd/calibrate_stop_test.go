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
// "Soon" is judged against the whole calibration measured right after, on
// this machine at its load: the stop is polled more often than a quarter
// of it, and the calibration returns within a quarter of it once the stop
// has said so (in practice at once; ignoring the stop, it would run to its
// end). (HOSTSIMD_CALIBRATE=fresh measures whatever the cache holds:
// Windows ignores XDG_CACHE_HOME, so the user's cache file may be there.)
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

	// The stop says so at its third poll: inside the first class's
	// rounds, wherever the polls fall in time.
	const stopAt = 3
	polls := 0
	var stopped time.Time
	start := time.Now()
	c, err := CurrentCalibrationUntil(func() bool {
		if polls++; polls < stopAt {
			return false
		}
		if stopped.IsZero() {
			stopped = time.Now()
		}
		return true
	})
	returned := time.Now()
	if !errors.Is(err, ErrStopped) || c != nil {
		t.Fatalf("stopped at poll %d: calibration %v, err %v after %d polls; want ErrStopped", stopAt, c, err, polls)
	}
	if calibCur.Load() != nil {
		t.Error("a stopped calibration was installed")
	}
	if now, _ := os.ReadFile(file); !bytes.Equal(now, cached) {
		t.Error("a stopped calibration changed the cache file")
	}

	fullStart := time.Now()
	c, err = CurrentCalibrationUntil(func() bool { return false })
	full := time.Since(fullStart)
	if err != nil || c == nil || c.Source != "measured" || calibCur.Load() != c {
		t.Fatalf("unstopped: calibration %+v, err %v; want one measured and installed", c, err)
	}
	polled, after := stopped.Sub(start), returned.Sub(stopped)
	t.Logf("stop polled %d times in %v, returned %v after it said so; the whole calibration takes %v", stopAt, polled, after, full)
	if polled > full/4 {
		t.Errorf("the stop was polled %d times in %v: too rarely for a calibration of %v", stopAt, polled, full)
	}
	if after > full/4 {
		t.Errorf("returned %v after the stop said so, in a calibration of %v", after, full)
	}
	if now, err := os.ReadFile(file); err != nil || bytes.Equal(now, cached) {
		t.Errorf("the measured calibration was not cached (%v)", err)
	}
}
