package hostsimd

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/wgpu-prof/wgpu-prof/timing/clock"
)

// Int8Peak is the integer dot-product ceiling of a host: the rate of the
// int8 kernels' level's own instructions (VPDPBUSD on AVX-512 VNNI,
// VPMADDUBSW + VPMADDWD on AVX2, SDOT on NEON, a scalar int32
// multiply-add in Go) on independent chains held in registers, summed
// over the threads. A byte product and its accumulation count as 2 ops,
// as an FMA counts as 2 flops, so an int8 kernel's ops (2 per product of
// a dot) are judged against it as float kernels are against the FMA
// peak.
type Int8Peak struct {
	GOPs    float64 // 1e9 integer ops per second
	Kernel  string  // the instructions, e.g. "avx512-vpdpbusd"
	Threads int
}

// MeasureInt8Peak measures h's Int8Peak on threads goroutines, each
// locked to its OS thread (threads ≤ 0: h's thread count).
func (h Host) MeasureInt8Peak(threads int) (Int8Peak, error) {
	if err := h.Validate(); err != nil {
		return Int8Peak{}, err
	}
	if threads <= 0 {
		threads = h.ThreadCount()
	}
	k := quantFor(h.table().level)
	// Calibrate to about 20 ms a run on one thread.
	iters := 1 << 10
	for {
		t0 := clock.Now()
		int8Sink.Add(int64(k.peak(iters)))
		if clock.Since(t0) > 20*time.Millisecond || iters > 1<<30 {
			break
		}
		iters *= 2
	}
	if got, want := k.peak(16), int8PeakWant(k, 16); got != want {
		return Int8Peak{}, fmt.Errorf("hostsimd: MeasureInt8Peak: %s returned %d after 16 rounds, want %d: %w", k.peakName, got, want, ErrVerify)
	}
	best := time.Duration(1<<63 - 1)
	for run := 0; run < 6; run++ {
		var wg sync.WaitGroup
		t0 := clock.Now()
		for range threads {
			wg.Add(1)
			go func() {
				defer wg.Done()
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
				int8Sink.Add(int64(k.peak(iters)))
			}()
		}
		wg.Wait()
		if d := clock.Since(t0); run > 0 {
			best = min(best, d)
		}
	}
	ops := 2 * float64(threads) * float64(iters) * float64(k.peakProducts)
	return Int8Peak{GOPs: ops / best.Seconds() / 1e9, Kernel: k.peakName, Threads: threads}, nil
}

// int8Sink keeps the peak kernels' results alive.
var int8Sink atomic.Int64

// int8PeakWant is what k.peak(iters) returns: each chain's lanes gain 1
// a round (the byte patterns of the assembly kernels: 1·(−2) + 3·1 +
// 2·(−1) + 1·2), and lane 0 of the sum of the chains is returned.
func int8PeakWant(k quantKernels, iters int) int32 {
	switch k.peakName {
	case "avx512-vpdpbusd":
		return int32(12 * iters)
	case "avx2-vpmaddubsw":
		return int32(6 * iters)
	case "neon-sdot":
		return int32(8 * iters)
	}
	return int32(8 * iters)
}

// int8PeakGeneric runs 8 independent scalar int32 multiply-add chains
// x ← x·m + c from 0 (m = 1, c = 1 from package variables, so the
// compiler cannot fold them) and returns their sum: 8·iters.
func int8PeakGeneric(iters int) int32 { return madd8(iters, 0, int8PeakM, int8PeakC) }

var int8PeakM, int8PeakC int32 = 1, 1
