package compute

import (
	"fmt"

	"github.com/wgpu-prof/wgpu-prof/compute/wgpu"
)

// ReadPoint is the read bandwidth of one working set (MeasureReadAt).
type ReadPoint struct {
	Bytes  uint64
	GBs    float64
	Design string
	Timed  string // "timestamps" or "host clock"
}

// MeasureReadAt measures only the read ceiling over a buffer of bytes
// (rounded down to a multiple of 16, at least 4096): every read design of
// MeasureCeilings, each verified, the best kept. runs as in
// CeilingOptions (0: 7). It is the point of a working-set sweep (the
// staircase), without the write, copy and FMA kernels.
func MeasureReadAt(d *wgpu.Device, bytes uint64, runs int) (ReadPoint, error) {
	return MeasureReadAtUntil(d, bytes, runs, nil)
}

// MeasureReadAtUntil is MeasureReadAt polling stop (when not nil) before
// each design is built and each run: once it returns true the
// measurement ends with an error wrapping ErrStopped.
func MeasureReadAtUntil(d *wgpu.Device, bytes uint64, runs int, stop func() bool) (ReadPoint, error) {
	const op = "compute: MeasureReadAt"
	if err := checkDevice(op, d); err != nil {
		return ReadPoint{}, err
	}
	bytes &^= 15
	if bytes < 4096 {
		return ReadPoint{}, fmt.Errorf("%s: bytes %d: need at least 4096", op, bytes)
	}
	if bytes > d.Limits.MaxStorageBufferBindingSize {
		return ReadPoint{}, fmt.Errorf("%s: bytes %d > maxStorageBufferBindingSize %d: %w", op, bytes, d.Limits.MaxStorageBufferBindingSize, wgpu.ErrLimit)
	}
	if runs == 0 {
		runs = 7
	}
	runs = max(runs, 2)
	wg, err := validWorkgroup(d, 256)
	if err != nil {
		return ReadPoint{}, fmt.Errorf("%s: %w", op, err)
	}
	b, err := newCeilingBench(d, bytes, wg)
	if err != nil {
		return ReadPoint{}, fmt.Errorf("%s: %w", op, err)
	}
	defer b.release()
	b.stop = stop
	var timer *wgpu.Timer
	if d.HasTimestamps() {
		if timer, err = d.NewTimer(1); err != nil {
			return ReadPoint{}, fmt.Errorf("%s: %w", op, err)
		}
		defer timer.Release()
	}
	first, err := b.readKernel()
	if err != nil {
		return ReadPoint{}, fmt.Errorf("%s: %w", op, err)
	}
	others, err := b.readDesigns()
	if err != nil {
		return ReadPoint{}, fmt.Errorf("%s: %w", op, err)
	}
	kernels := append([]*microKernel{first}, others...)
	times := make([]runTimes, len(kernels))
	allKernel := timer != nil
	for i, k := range kernels {
		if times[i], err = b.measure(k, runs, timer); err != nil {
			return ReadPoint{}, fmt.Errorf("%s: %w", op, err)
		}
		allKernel = allKernel && times[i].kernelValid
	}
	pt := ReadPoint{Bytes: bytes, Timed: timedHost}
	if allKernel {
		pt.Timed = timedTimestamps
	}
	for i, k := range kernels {
		t := times[i].host
		if allKernel {
			t = times[i].kernel
		}
		if r := k.bytes / t.Seconds() / 1e9; r > pt.GBs {
			pt.GBs, pt.Design = r, k.name
		}
	}
	return pt, nil
}
