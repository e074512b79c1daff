package hostsimd

import (
	"fmt"
	"math"
	"runtime"
	"sync"
	"time"
	"unsafe"

	"github.com/klauspost/cpuid/v2"
)

// CeilingOpts configures MeasureCeilings. Zero values pick defaults.
type CeilingOpts struct {
	// Threads is the number of goroutines streaming at once; 0 means
	// GOMAXPROCS (all cores), 1 gives the one-core ceiling.
	Threads int
	// Bytes is the size of each array. The default is 4× the last-level
	// cache reported by cpuid (cpuid.CPU.Cache.L3), at least 256 MiB, so
	// the kernels stream from memory. The triad needs three arrays.
	Bytes int64
	// Runs is how often each kernel runs; the first run is a warm-up and
	// excluded, the best of the others is reported. Default 7, minimum 2.
	Runs int
	// Budget bounds the total time: once it is spent, each remaining
	// kernel runs only twice (warm-up + one timed run). 0 means no bound.
	Budget time.Duration
}

// Ceilings are measured CPU limits, in 10^9 bytes or flops per second.
type Ceilings struct {
	// ReadGBs is the bandwidth of a SIMD sum reduction (several
	// accumulators) over one array. On levels with a prefetching sum
	// (AVX2, AVX512) it is the faster of the plain sum (hardware
	// prefetcher only) and the sum with software prefetch (PREFETCHT0)
	// singlePrefetch bytes ahead, the distance CosineSingle uses, so the
	// ceiling is the best known read streamer; ReadPrefetch says which.
	ReadGBs float64
	// ReadPrefetch is the software prefetch distance in bytes of the read
	// kernel that set ReadGBs, 0 for the plain sum.
	ReadPrefetch int
	// WriteGBs is the bandwidth of filling one array. On the AVX2 and
	// AVX512 levels the fill, copy and triad kernels use non-temporal
	// (streaming) stores, so written lines are not read first; the
	// bytes counted match the bytes moved. NEON stores with STNP, a
	// non-temporal hint the core may ignore. Generic uses plain stores.
	WriteGBs float64
	// CopyGBs counts bytes read plus bytes written (2 streams).
	CopyGBs float64
	// TriadGBs is a[i] = b[i] + s*c[i], counting 3 streams.
	TriadGBs float64
	// FMAGFLOPs is the peak rate of independent vector FMA chains held in
	// registers, 2 flops per lane per FMA, summed over Threads.
	FMAGFLOPs float64
	Threads   int
	Bytes     int64 // bytes per array actually used
	Level     Level // kernel level measured
}

func (c Ceilings) String() string {
	return fmt.Sprintf("level=%v threads=%d bytes=%d read=%.2f GB/s (prefetch %d B) write=%.2f GB/s copy=%.2f GB/s triad=%.2f GB/s fma=%.1f GFLOP/s",
		c.Level, c.Threads, c.Bytes, c.ReadGBs, c.ReadPrefetch, c.WriteGBs, c.CopyGBs, c.TriadGBs, c.FMAGFLOPs)
}

// DefaultCeilingBytes is the default CeilingOpts.Bytes for this machine.
func DefaultCeilingBytes() int64 {
	b := 4 * int64(cpuid.CPU.Cache.L3)
	return max(b, 256<<20)
}

// alignedFloats returns n float32s starting on a 64-byte boundary.
func alignedFloats(n int) []float32 {
	buf := make([]float32, n+16)
	off := 0
	for uintptr(unsafe.Pointer(&buf[off]))%64 != 0 {
		off++
	}
	return buf[off : off+n : off+n]
}

var ceilingSink float32

// MeasureCeilings measures STREAM-style memory bandwidth (read, write,
// copy, triad) and the peak FMA rate with the kernels of the current
// level, using opts.Threads goroutines that each own a contiguous part of
// the arrays. It allocates three arrays of opts.Bytes each.
func MeasureCeilings(opts CeilingOpts) (Ceilings, error) {
	t := opts.Threads
	if t <= 0 {
		t = runtime.GOMAXPROCS(0)
	}
	if opts.Bytes < 0 || opts.Runs < 0 || opts.Budget < 0 {
		return Ceilings{}, fmt.Errorf("hostsimd.MeasureCeilings: negative option in %+v", opts)
	}
	bytes := opts.Bytes
	if bytes == 0 {
		bytes = DefaultCeilingBytes()
	}
	runs := opts.Runs
	if runs == 0 {
		runs = 7
	}
	runs = max(runs, 2)
	k := cur()
	part := int(bytes/4) / t / k.ntBlock * k.ntBlock // floats per thread
	if part == 0 {
		return Ceilings{}, fmt.Errorf("hostsimd.MeasureCeilings: Bytes=%d too small for %d threads", bytes, t)
	}
	n := part * t
	res := Ceilings{Threads: t, Bytes: int64(n) * 4, Level: k.level}
	start := time.Now()
	a, b, c := alignedFloats(n), alignedFloats(n), alignedFloats(n)
	var sinkMu sync.Mutex

	// par runs fn on every thread's part and returns the wall time.
	par := func(fn func(th, lo, hi int)) time.Duration {
		var wg sync.WaitGroup
		t0 := time.Now()
		for th := 0; th < t; th++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
				fn(th, th*part, (th+1)*part)
			}()
		}
		wg.Wait()
		return time.Since(t0)
	}
	// First touch by the owning thread.
	par(func(_, lo, hi int) {
		fillGeneric(a[lo:hi], 1)
		fillGeneric(b[lo:hi], 2)
		fillGeneric(c[lo:hi], 0.5)
	})
	best := func(fn func(th, lo, hi int)) float64 {
		bt := time.Duration(math.MaxInt64)
		for r := 0; r < runs; r++ {
			d := par(fn)
			if r > 0 {
				bt = min(bt, d)
				if opts.Budget > 0 && time.Since(start) > opts.Budget {
					break
				}
			}
		}
		return bt.Seconds()
	}
	gb := func(nbytes int64, sec float64) float64 { return float64(nbytes) / sec / 1e9 }
	nb := int64(n) * 4

	res.ReadGBs = gb(nb, best(func(_, lo, hi int) {
		s := k.sum(a[lo:hi])
		sinkMu.Lock()
		ceilingSink += s
		sinkMu.Unlock()
	}))
	if k.sumPF != nil {
		pf := gb(nb, best(func(_, lo, hi int) {
			s := k.sumPF(a[lo:hi], singlePrefetch)
			sinkMu.Lock()
			ceilingSink += s
			sinkMu.Unlock()
		}))
		if pf > res.ReadGBs {
			res.ReadGBs, res.ReadPrefetch = pf, singlePrefetch
		}
	}
	res.WriteGBs = gb(nb, best(func(_, lo, hi int) { k.fillNT(c[lo:hi], 0.5) }))
	res.CopyGBs = gb(2*nb, best(func(_, lo, hi int) { k.copyNT(c[lo:hi], a[lo:hi]) }))
	res.TriadGBs = gb(3*nb, best(func(_, lo, hi int) { k.triadNT(a[lo:hi], b[lo:hi], c[lo:hi], 0.5) }))

	// FMA peak: calibrate iterations to ~20 ms on one thread.
	const m, add = 0.99999994, 1e-3
	iters := 1 << 12
	for {
		t0 := time.Now()
		ceilingSink += k.fmaPeak(iters, m, add)
		if time.Since(t0) > 20*time.Millisecond || iters > 1<<30 {
			break
		}
		iters *= 2
	}
	sec := best(func(_, _, _ int) {
		s := k.fmaPeak(iters, m, add)
		sinkMu.Lock()
		ceilingSink += s
		sinkMu.Unlock()
	})
	res.FMAGFLOPs = float64(t) * float64(iters) * float64(k.fmaLanes) * 2 / sec / 1e9
	runtime.KeepAlive(a)
	return res, nil
}
