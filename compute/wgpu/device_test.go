package wgpu_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/wgpu-prof/wgpu-prof/internal/gputest"

	"github.com/wgpu-prof/wgpu-prof/compute/wgpu"
)

// openDevice opens the default adapter's device (gputest.Open).
func openDevice(t testing.TB) *wgpu.Device { return gputest.Open(t) }

const vecAdd = `
override WG: u32 = 64;
// a, b, out: [N] f32
@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read> b: array<f32>;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
	let i = gid.x;
	if (i < arrayLength(&out)) {
		out[i] = a[i] + b[i];
	}
}
`

func randFloats(r *rand.Rand, n int) []float32 {
	s := make([]float32, n)
	for i := range s {
		s[i] = float32(r.NormFloat64())
	}
	return s
}

func upload(t testing.TB, d *wgpu.Device, label string, data []float32, extra wgpu.BufferUsage) *wgpu.Buffer {
	t.Helper()
	b, err := d.CreateBuffer(label, uint64(4*len(data)), wgpu.UsageStorage|wgpu.UsageCopyDst|wgpu.UsageCopySrc|extra)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Write(b, 0, wgpu.Bytes(data)); err != nil {
		t.Fatal(err)
	}
	return b
}

func TestVectorAdd(t *testing.T) {
	d := openDevice(t)
	r := rand.New(rand.NewPCG(1, uint64(time.Now().UnixNano())))
	for _, n := range []int{1, 63, 64, 1000, 1 << 16} {
		a, b := randFloats(r, n), randFloats(r, n)
		poison := make([]float32, n)
		for i := range poison {
			poison[i] = float32(math.NaN())
		}
		ba, bb, bo := upload(t, d, "a", a, 0), upload(t, d, "b", b, 0), upload(t, d, "out", poison, 0)
		p, err := d.Pipeline("vecadd", vecAdd, "main", wgpu.Constants{"WG": 64})
		if err != nil {
			t.Fatal(err)
		}
		bg, err := d.CreateBindGroup(p, 0, []wgpu.BufferBinding{{Binding: 0, Buffer: ba}, {Binding: 1, Buffer: bb}, {Binding: 2, Buffer: bo}})
		if err != nil {
			t.Fatal(err)
		}
		_, err = d.Submit([]wgpu.Pass{{Label: "add", Dispatches: []wgpu.Dispatch{{Pipeline: p, BindGroups: []*wgpu.BindGroup{bg}, X: uint32((n + 63) / 64), Y: 1, Z: 1}}}}, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		got := make([]float32, n)
		if err := d.Read(bo, 0, wgpu.Bytes(got)); err != nil {
			t.Fatal(err)
		}
		for i := range got {
			if want := a[i] + b[i]; got[i] != want || math.IsNaN(float64(got[i])) {
				t.Fatalf("n=%d: out[%d] = %v, want %v", n, i, got[i], want)
			}
		}
		for _, x := range []interface{ Release() }{bg, ba, bb, bo} {
			x.Release()
		}
		bo.Release() // idempotent
	}
}

// The workgroup size override must change what the kernel does: a shader
// that records local_invocation_index per workgroup shows the size used.
func TestOverrideChangesWorkgroupSize(t *testing.T) {
	d := openDevice(t)
	const src = `
override WG: u32 = 1;
// out: [groups] u32, out[g] = number of invocations in workgroup g
@group(0) @binding(0) var<storage, read_write> out: array<atomic<u32>>;
@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>) {
	atomicAdd(&out[wid.x], 1u);
}
`
	for _, wg := range []int{1, 32, 64, 256} {
		p, err := d.Pipeline("wgsize", src, "main", wgpu.Constants{"WG": float64(wg)})
		if err != nil {
			t.Fatal(err)
		}
		out, err := d.CreateBuffer("out", 4*4, wgpu.UsageStorage|wgpu.UsageCopySrc|wgpu.UsageCopyDst)
		if err != nil {
			t.Fatal(err)
		}
		if err := d.Write(out, 0, make([]byte, 16)); err != nil {
			t.Fatal(err)
		}
		bg, err := d.CreateBindGroup(p, 0, []wgpu.BufferBinding{{Binding: 0, Buffer: out}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := d.Submit([]wgpu.Pass{{Dispatches: []wgpu.Dispatch{{Pipeline: p, BindGroups: []*wgpu.BindGroup{bg}, X: 4, Y: 1, Z: 1}}}}, nil, nil); err != nil {
			t.Fatal(err)
		}
		got := make([]uint32, 4)
		if err := d.Read(out, 0, wgpu.Bytes(got)); err != nil {
			t.Fatal(err)
		}
		for g, c := range got {
			if int(c) != wg {
				t.Fatalf("WG=%d: workgroup %d ran %d invocations", wg, g, c)
			}
		}
		bg.Release()
		out.Release()
	}
}

func TestShaderSyntaxErrorNamesLineAndColumn(t *testing.T) {
	d := openDevice(t)
	src := "@compute @workgroup_size(1)\nfn main() {\n    let x = 1 +;\n}\n"
	_, err := d.CreateShaderModule("broken", src)
	if err == nil {
		t.Fatal("a syntax error compiled")
	}
	var se *wgpu.ShaderError
	if !errors.As(err, &se) {
		t.Fatalf("error %v is not a *ShaderError", err)
	}
	if se.Line != 3 || se.Column < 1 {
		t.Fatalf("error at %d:%d, want line 3: %v", se.Line, se.Column, err)
	}
	if !strings.Contains(err.Error(), ":3:") {
		t.Fatalf("error text does not name line 3: %v", err)
	}
	// The device stays usable after a failed compilation.
	if _, err := d.CreateShaderModule("ok", vecAdd); err != nil {
		t.Fatal(err)
	}
}

func TestBufferPastLimit(t *testing.T) {
	d := openDevice(t)
	_, err := d.CreateBuffer("huge", d.Limits.MaxBufferSize+4, wgpu.UsageStorage)
	if !errors.Is(err, wgpu.ErrLimit) {
		t.Fatalf("got %v, want ErrLimit", err)
	}
	if !strings.Contains(err.Error(), "maxBufferSize") {
		t.Fatalf("error does not name the limit: %v", err)
	}
	if _, err := d.CreateBuffer("zero", 0, wgpu.UsageStorage); err == nil {
		t.Fatal("zero-size buffer accepted")
	}
	// A binding past maxStorageBufferBindingSize is refused too.
	if d.Limits.MaxStorageBufferBindingSize < d.Limits.MaxBufferSize {
		size := d.Limits.MaxStorageBufferBindingSize + 256
		b, err := d.CreateBuffer("big", size, wgpu.UsageStorage)
		if err != nil {
			t.Fatal(err)
		}
		defer b.Release()
		p, err := d.Pipeline("vecadd", vecAdd, "main", nil)
		if err != nil {
			t.Fatal(err)
		}
		_, err = d.CreateBindGroup(p, 0, []wgpu.BufferBinding{{Binding: 0, Buffer: b}, {Binding: 1, Buffer: b}, {Binding: 2, Buffer: b}})
		if !errors.Is(err, wgpu.ErrLimit) {
			t.Fatalf("oversized binding: got %v, want ErrLimit", err)
		}
	}
}

func TestTimestampsAgreeWithHostClock(t *testing.T) {
	d := openDevice(t)
	if !d.HasTimestamps() {
		t.Fatalf("adapter %q offers no timestamp queries", d.Info.Name)
	}
	if d.TimestampPeriod() <= 0 {
		t.Fatalf("timestamp period %v", d.TimestampPeriod())
	}
	// A long dispatch: an FMA loop long enough that launch costs vanish.
	const src = `
override ITERS: u32 = 1;
// out: [N] f32
@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
	var x = f32(gid.x) * 1e-6;
	for (var i = 0u; i < ITERS; i++) { x = fma(x, 0.999999, 1e-7); }
	out[gid.x] = x;
}
`
	tm, err := d.NewTimer(4)
	if err != nil {
		t.Fatal(err)
	}
	defer tm.Release()
	out, err := d.CreateBuffer("out", 4*64*64, wgpu.UsageStorage)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Release()
	var last time.Duration
	for _, iters := range []int{1 << 12, 1 << 15} {
		p, err := d.Pipeline("fmaloop", src, "main", wgpu.Constants{"ITERS": float64(iters)})
		if err != nil {
			t.Fatal(err)
		}
		bg, err := d.CreateBindGroup(p, 0, []wgpu.BufferBinding{{Binding: 0, Buffer: out}})
		if err != nil {
			t.Fatal(err)
		}
		pass := []wgpu.Pass{{Dispatches: []wgpu.Dispatch{{Pipeline: p, BindGroups: []*wgpu.BindGroup{bg}, X: 64, Y: 1, Z: 1}}}}
		if _, err := d.Submit(pass, nil, tm); err != nil { // warm-up
			t.Fatal(err)
		}
		// The best of five runs: a shared machine can stall any one of them.
		var k wgpu.PassTime
		var host time.Duration
		for run := 0; run < 5; run++ {
			start := time.Now()
			times, err := d.Submit(pass, nil, tm)
			h := time.Since(start)
			if err != nil {
				t.Fatal(err)
			}
			if !times[0].Valid || times[0].Duration <= 0 {
				t.Fatalf("iters=%d: invalid timestamp %+v", iters, times[0])
			}
			if times[0].Duration > h {
				t.Fatalf("iters=%d: kernel %v longer than host-clock %v", iters, times[0].Duration, h)
			}
			if run == 0 || times[0].Duration < k.Duration {
				k, host = times[0], h
			}
		}
		t.Logf("iters=%d kernel %v host %v (period %.3f ns/tick)", iters, k.Duration, host, d.TimestampPeriod())
		if iters == 1<<15 {
			if k.Duration < host/4 {
				t.Fatalf("long dispatch: kernel %v is under a quarter of host %v", k.Duration, host)
			}
			if k.Duration < 4*last {
				t.Fatalf("8x the work took %v vs %v: timestamps do not scale with work", k.Duration, last)
			}
		}
		last = k.Duration
		bg.Release()
	}
}

// 10,000 create/dispatch/release cycles must not grow memory.
func TestNoLeakOverManyCycles(t *testing.T) {
	if testing.Short() {
		t.Skip("long")
	}
	d := openDevice(t)
	p, err := d.Pipeline("vecadd", vecAdd, "main", wgpu.Constants{"WG": 64})
	if err != nil {
		t.Fatal(err)
	}
	data := make([]float32, 256)
	cycle := func() {
		bufs := make([]*wgpu.Buffer, 3)
		for i := range bufs {
			bufs[i] = upload(t, d, "b", data, 0)
		}
		bg, err := d.CreateBindGroup(p, 0, []wgpu.BufferBinding{{Binding: 0, Buffer: bufs[0]}, {Binding: 1, Buffer: bufs[1]}, {Binding: 2, Buffer: bufs[2]}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := d.Submit([]wgpu.Pass{{Dispatches: []wgpu.Dispatch{{Pipeline: p, BindGroups: []*wgpu.BindGroup{bg}, X: 4, Y: 1, Z: 1}}}}, nil, nil); err != nil {
			t.Fatal(err)
		}
		bg.Release()
		for _, b := range bufs {
			b.Release()
		}
	}
	// Warm up (allocator pools, driver caches), then measure two windows
	// of 5,000 cycles: a leak grows RSS in both; warm-up effects only in
	// the first. The second window must stay under 4 MiB (< 840 bytes a
	// cycle, less than one of the cycle's three buffers).
	for i := 0; i < 2000; i++ {
		cycle()
	}
	r0 := rssKiB(t)
	for i := 0; i < 5000; i++ {
		cycle()
	}
	r1 := rssKiB(t)
	for i := 0; i < 5000; i++ {
		cycle()
	}
	r2 := rssKiB(t)
	t.Logf("RSS %d KiB -> %d KiB -> %d KiB over 2 x 5000 cycles", r0, r1, r2)
	if r2-r1 > 4*1024 {
		t.Fatalf("RSS grew by %d KiB over the last 5000 cycles (%d KiB over 10000)", r2-r1, r2-r0)
	}
}

func rssKiB(t testing.TB) int64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		t.Skip("no /proc/self/statm on this OS")
	}
	runtime.GC()
	debug.FreeOSMemory()
	var size, res int64
	if _, err := fmtSscan(string(b), &size, &res); err != nil {
		t.Fatal(err)
	}
	return res * int64(os.Getpagesize()) / 1024
}

// A nil or released module or pipeline is an error, never a nil
// dereference: both checks come before the first use of the handle.
func TestNilModuleAndPipelineAreErrors(t *testing.T) {
	d := openDevice(t)
	if _, err := d.CreatePipeline(nil, "main", nil); !errors.Is(err, wgpu.ErrReleased) {
		t.Fatalf("CreatePipeline(nil module): %v, want ErrReleased", err)
	}
	if _, err := d.CreateBindGroup(nil, 0, nil); !errors.Is(err, wgpu.ErrReleased) {
		t.Fatalf("CreateBindGroup(nil pipeline): %v, want ErrReleased", err)
	}
}
