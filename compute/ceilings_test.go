package compute

// Internal tests: they reach the verification of single runs, so the
// checker itself can be tested against a wrong expected value.

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/wgpu-prof/wgpu-prof/internal/gputest"

	"github.com/wgpu-prof/wgpu-prof/compute/wgpu"
)

// ceilingDevice opens the default adapter's device; it fails (never
// skips) when there is none, as the external tests' openDevice does.
func ceilingDevice(t *testing.T) *wgpu.Device {
	t.Helper()
	return ceilingDeviceWith(t, wgpu.DeviceOptions{WaitTimeout: time.Minute})
}

func ceilingDeviceWith(t *testing.T, opts wgpu.DeviceOptions) *wgpu.Device {
	return gputest.OpenWith(t, opts)
}

func finitePositive(x float64) bool { return x > 0 && !math.IsInf(x, 0) && !math.IsNaN(x) }

func TestMeasureCeilings(t *testing.T) {
	d := ceilingDevice(t)
	start := time.Now()
	c, err := MeasureCeilings(d, CeilingOptions{Bytes: 8 << 20, Runs: 3, Intensities: []float64{0.25, 4, 64}})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%.1fs: read %.2f GB/s, write %.2f GB/s, copy %.2f GB/s, peak %.2f GFLOP/s, timed by %s",
		time.Since(start).Seconds(), c.ReadGBs, c.WriteGBs, c.CopyGBs, c.PeakGFLOPs, c.Timed)
	for _, p := range c.FMA {
		t.Logf("  FMA intensity %6.2f flop/B: %8.2f GFLOP/s %8.2f GB/s", p.Intensity, p.GFLOPs, p.GBs)
	}
	for name, x := range map[string]float64{"read": c.ReadGBs, "write": c.WriteGBs, "copy": c.CopyGBs, "peak": c.PeakGFLOPs} {
		if !finitePositive(x) {
			t.Errorf("%s = %v, want positive and finite", name, x)
		}
	}
	// The read ceiling is the best of several verified designs, and says
	// which one won.
	if len(c.ReadTried) < 3 {
		t.Errorf("read ceiling tried %d designs, want several", len(c.ReadTried))
	}
	won := false
	for _, x := range c.ReadTried {
		t.Logf("  read design %-45s %6.2f GB/s", x.Name, x.GBs)
		if x.GBs > c.ReadGBs || !finitePositive(x.GBs) {
			t.Errorf("read design %s at %v GB/s; the ceiling %v must be the best of positive rates", x.Name, x.GBs, c.ReadGBs)
		}
		won = won || (x.Name == c.ReadDesign && x.GBs == c.ReadGBs)
	}
	if !won {
		t.Errorf("ReadDesign %q at %v GB/s is not among the designs tried", c.ReadDesign, c.ReadGBs)
	}
	for _, x := range []struct {
		what   string
		gbs    float64
		design string
		tried  []CeilingDesign
	}{{"write", c.WriteGBs, c.WriteDesign, c.WriteTried}, {"copy", c.CopyGBs, c.CopyDesign, c.CopyTried}} {
		if len(x.tried) < 2 {
			t.Errorf("%s ceiling tried %d designs, want several", x.what, len(x.tried))
		}
		found := false
		for _, y := range x.tried {
			t.Logf("  %s design %-40s %6.2f GB/s", x.what, y.Name, y.GBs)
			if y.GBs > x.gbs {
				t.Errorf("%s design %s at %v GB/s above the ceiling %v", x.what, y.Name, y.GBs, x.gbs)
			}
			found = found || (y.Name == x.design && y.GBs == x.gbs)
		}
		if !found {
			t.Errorf("%s design %q at %v GB/s is not among those tried", x.what, x.design, x.gbs)
		}
	}
	if c.Bytes != 8<<20 || c.Workgroup != 256 {
		t.Errorf("Bytes %d, Workgroup %d: want the options' 8 MiB and the default 256", c.Bytes, c.Workgroup)
	}
	wantTimed := timedHost
	if d.HasTimestamps() {
		wantTimed = timedTimestamps // lavapipe's timestamps work; a fallback here would be a bug
	}
	if c.Timed != wantTimed {
		t.Errorf("Timed = %q, want %q", c.Timed, wantTimed)
	}
	if len(c.FMA) != 3 {
		t.Fatalf("%d FMA points, want 3", len(c.FMA))
	}
	peak := 0.0
	for i, p := range c.FMA {
		if want := []float64{0.25, 4, 64}[i]; p.Intensity != want {
			t.Errorf("FMA point %d: intensity %v, want %v", i, p.Intensity, want)
		}
		if !finitePositive(p.GFLOPs) || !finitePositive(p.GBs) {
			t.Errorf("FMA point %d: %+v, want positive finite rates", i, p)
		}
		if r := p.GFLOPs / p.GBs; math.Abs(r-p.Intensity) > 1e-9*p.Intensity {
			t.Errorf("FMA point %d: GFLOP/s ÷ GB/s = %v, want the intensity %v", i, r, p.Intensity)
		}
		peak = max(peak, p.GFLOPs)
	}
	if c.PeakGFLOPs != peak {
		t.Errorf("PeakGFLOPs %v, want the maximum over points %v", c.PeakGFLOPs, peak)
	}
	// Roofline shape: at 0.25 flop/B the chain is starved by memory; at 64
	// flop/B it does 256× the flops per byte. Even on a noisy CPU adapter
	// the high-intensity rate cannot be below the low one.
	if lo, hi := c.FMA[0].GFLOPs, c.FMA[2].GFLOPs; !(hi >= lo) {
		t.Errorf("FMA at intensity 64: %.3g GFLOP/s < %.3g at intensity 0.25: not a roofline", hi, lo)
	}
}

// Without timestamp queries every number comes from the host clock, and
// says so.
func TestMeasureCeilingsHostClock(t *testing.T) {
	d := ceilingDeviceWith(t, wgpu.DeviceOptions{NoTimestamps: true, WaitTimeout: time.Minute})
	c, err := MeasureCeilings(d, CeilingOptions{Bytes: 1 << 20, Runs: 2, Intensities: []float64{1}})
	if err != nil {
		t.Fatal(err)
	}
	if c.Timed != timedHost || !finitePositive(c.ReadGBs) || !finitePositive(c.WriteGBs) || !finitePositive(c.CopyGBs) || !finitePositive(c.PeakGFLOPs) {
		t.Errorf("%+v: want positive rates timed by %q", c, timedHost)
	}
}

func TestMeasureCeilingsRejectsBadOptions(t *testing.T) {
	d := ceilingDevice(t)
	for _, o := range []CeilingOptions{
		{Bytes: 100},
		{Bytes: d.Limits.MaxStorageBufferBindingSize + 16},
		{Bytes: 1 << 20, Workgroup: 48},
		{Bytes: 1 << 20, Intensities: []float64{0.1}},
		{Bytes: 1 << 20, Intensities: []float64{math.NaN()}},
	} {
		if _, err := MeasureCeilings(d, o); err == nil {
			t.Errorf("options %+v accepted", o)
		}
	}
}

// Each kernel's checker accepts its real output and rejects it against a
// wrong expectation, so a passing measurement means verified numbers.
func TestCeilingVerifiers(t *testing.T) {
	d := ceilingDevice(t)
	b, err := newCeilingBench(d, 1<<20, 64)
	if err != nil {
		t.Fatal(err)
	}
	defer b.release()
	run := func(k *microKernel, r int) {
		t.Helper()
		if err := k.prepare(r); err != nil {
			t.Fatal(err)
		}
		if _, err := d.Submit([]wgpu.Pass{k.pass}, nil, nil); err != nil {
			t.Fatal(err)
		}
	}

	rk, err := b.readKernel()
	if err != nil {
		t.Fatal(err)
	}
	run(rk, 0)
	if err := rk.verify(0); err != nil {
		t.Fatalf("read: real output rejected: %v", err)
	}
	sum := b.sum
	b.sum += 1e-3 * b.absSum // far outside the rounding bound
	if err := rk.verify(0); !errors.Is(err, ErrVerify) {
		t.Errorf("read: wrong expected sum accepted (err %v)", err)
	}
	b.sum = sum
	// Poisoned but never run: the NaN partials must fail.
	if err := rk.prepare(1); err != nil {
		t.Fatal(err)
	}
	if err := rk.verify(1); !errors.Is(err, ErrVerify) {
		t.Errorf("read: poisoned partial sums accepted (err %v)", err)
	}
	if err := checkSum("t", []float32{1, 2}, 3, 3, 1); err != nil {
		t.Errorf("checkSum exact: %v", err)
	}
	if err := checkSum("t", []float32{1, 2}, 3.001, 3, 1); !errors.Is(err, ErrVerify) {
		t.Errorf("checkSum off by 1e-3: %v", err)
	}

	// Every other read design, the repeated passes over this 1 MiB buffer
	// among them: real output accepted (a rep design that read the buffer
	// once would miss copies×Σsrc), poisoned output refused.
	designs, err := b.readDesigns()
	if err != nil {
		t.Fatal(err)
	}
	reps := 0
	for _, k := range designs {
		run(k, 0)
		if err := k.verify(0); err != nil {
			t.Errorf("%s: real output rejected: %v", k.name, err)
		}
		if err := k.prepare(1); err != nil {
			t.Fatal(err)
		}
		if err := k.verify(1); !errors.Is(err, ErrVerify) {
			t.Errorf("%s: poisoned partial sums accepted (err %v)", k.name, err)
		}
		if strings.Contains(k.name, "passes over the buffer") {
			reps++
			if want := float64(repReadBytes); k.bytes != want {
				t.Errorf("%s: %v bytes per run, want %v (64 passes over 1 MiB)", k.name, k.bytes, want)
			}
		}
	}
	if reps == 0 {
		t.Errorf("no repeated-pass read design for a 1 MiB buffer (designs: %d)", len(designs))
	}

	fk, err := b.fillKernel()
	if err != nil {
		t.Fatal(err)
	}
	run(fk, 2)
	if err := fk.verify(2); err != nil {
		t.Fatalf("fill: real output rejected: %v", err)
	}
	if err := fk.verify(3); !errors.Is(err, ErrVerify) { // another run's seed
		t.Errorf("fill: output checked against the wrong seed accepted (err %v)", err)
	}

	ck, err := b.copyKernel()
	if err != nil {
		t.Fatal(err)
	}
	run(ck, 0)
	if err := ck.verify(0); err != nil {
		t.Fatalf("copy: real output rejected: %v", err)
	}
	if err := ck.prepare(1); err != nil { // poisoned, not run
		t.Fatal(err)
	}
	if err := ck.verify(1); !errors.Is(err, ErrVerify) {
		t.Errorf("copy: poisoned destination accepted (err %v)", err)
	}
	b.srcHost[4*(b.n4-1)] += 0.5 // the last sampled element
	run(ck, 2)
	if err := ck.verify(2); !errors.Is(err, ErrVerify) {
		t.Errorf("copy: wrong expected element accepted (err %v)", err)
	}
	b.srcHost[4*(b.n4-1)] -= 0.5

	for _, d := range fmaDesigns {
		for _, fmas := range []int{1, 1024} {
			k, err := b.fmaKernel(fmas, d)
			if err != nil {
				t.Fatal(err)
			}
			run(k, 0)
			if err := k.verify(0); err != nil {
				t.Fatalf("fma %d %v: real output rejected: %v", fmas, d, err)
			}
			b.srcHost[0] += 0.25
			if err := k.verify(0); !errors.Is(err, ErrVerify) {
				t.Errorf("fma %d %v: wrong expected element accepted (err %v)", fmas, d, err)
			}
			b.srcHost[0] -= 0.25
		}
	}
}

func TestFMARefTolerance(t *testing.T) {
	// The chain stays bounded and the bound grows with its length.
	for _, x0 := range []float32{-1, -0.3, 0, 0.999} {
		prev := 0.0
		for _, n := range []int{1, 4, 64, 1024} {
			want, tol := fmaRef(x0, n)
			if math.Abs(want) > 1 || !(tol > prev) {
				t.Errorf("fmaRef(%v, %d) = %v ± %v", x0, n, want, tol)
			}
			prev = tol
		}
	}
}

func TestSampleStarts(t *testing.T) {
	if got := sampleStarts(1000, 10, 3); len(got) != 3 || got[0] != 0 || got[2] != 990 {
		t.Errorf("sampleStarts(1000, 10, 3) = %v", got)
	}
	if got := sampleStarts(25, 10, 8); len(got) != 3 || got[2] != 20 {
		t.Errorf("sampleStarts(25, 10, 8) = %v", got)
	}
}

// The memory-vs-compute checks reject outputs against a wrong reference
// (kept here, with the other internal tests of verifiers).
func TestMemComputeVerifierRejects(t *testing.T) {
	d := ceilingDevice(t)
	v := make([]float32, 100*64)
	for i := range v {
		v[i] = float32(i%13) - 6
	}
	m, err := NewMemCompute(d, "cosine_single", v, 64, 32)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Release()
	for _, c := range []struct {
		variant string
		want    *float64
	}{{VariantMemory, &m.wantA[99]}, {VariantCompute, &m.wantB[3]}, {VariantFull, &m.wantC[0]}} {
		if _, err := m.Run(c.variant, nil); err != nil {
			t.Fatalf("%s: %v", c.variant, err)
		}
		*c.want += 1e-2
		if _, err := m.Run(c.variant, nil); !errors.Is(err, ErrVerify) {
			t.Errorf("%s: wrong reference accepted (err %v)", c.variant, err)
		}
		*c.want -= 1e-2
	}
}

// TestCeilingsLeaveOutFailedDesigns: a design whose output failed
// verification sets no ceiling, even when its time is the fastest; it is
// named in Failed; and a kind whose every design failed is an error, not
// a ceiling from nothing.
func TestCeilingsLeaveOutFailedDesigns(t *testing.T) {
	mk := func(name string, bytes, flops float64) *microKernel {
		return &microKernel{name: name, bytes: bytes, flops: flops}
	}
	// read, fill, copy, fma@1, then one more design of each kind.
	s := ceilingSet{all: []*microKernel{
		mk("read-a", 1e9, 0), mk("fill-a", 1e9, 0), mk("copy-a", 2e9, 0), mk("fma-a", 1e9, 1e9),
		mk("read-b", 1e9, 0), mk("fill-b", 1e9, 0), mk("copy-b", 2e9, 0), mk("fma-b", 1e9, 1e9),
	}, nbase: 4, nreads: 5, nwrites: 6, ncopies: 7}
	bad := fmt.Errorf("micro_fill: element 0 lane 0 = NaN, want 0: %w", ErrVerify)
	times := make([]runTimes, len(s.all))
	for i := range times {
		times[i] = runTimes{host: time.Second, kernel: time.Second, kernelValid: true}
	}
	times[1] = runTimes{host: time.Millisecond, kernel: time.Millisecond, failed: bad} // fastest, but wrong
	c, err := s.ceilings(times, true, 1e9, 64)
	if err != nil {
		t.Fatal(err)
	}
	if c.WriteDesign != "fill-b" || c.WriteGBs != 1 {
		t.Errorf("write ceiling %v GB/s by %q, want 1 by fill-b (fill-a failed)", c.WriteGBs, c.WriteDesign)
	}
	if len(c.WriteTried) != 1 || len(c.Failed) != 1 || c.Failed[0].Name != "fill-a" || c.Failed[0].Kind != "write" || !errors.Is(c.Failed[0].Err, ErrVerify) {
		t.Errorf("tried %v, failed %v", c.WriteTried, c.Failed)
	}
	if l := c.FailedLines(); len(l) != 1 || !strings.HasPrefix(l[0], "gpu write ceiling: design fill-a failed verification and was left out: micro_fill: element 0") {
		t.Errorf("FailedLines %q", l)
	}
	times[5].failed = bad
	if _, err := s.ceilings(times, true, 1e9, 64); !errors.Is(err, ErrVerify) || !strings.Contains(err.Error(), "no write design") {
		t.Errorf("every write design failed: err = %v", err)
	}
	times[1].failed, times[5].failed = nil, nil
	times[3].failed, times[7].failed = bad, bad
	if _, err := s.ceilings(times, true, 1e9, 64); !errors.Is(err, ErrVerify) || !strings.Contains(err.Error(), "no fma design") {
		t.Errorf("every fma design failed: err = %v", err)
	}
}
