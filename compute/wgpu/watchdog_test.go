package wgpu_test

import (
	"errors"
	"testing"
	"time"

	"github.com/wgpu-prof/wgpu-prof/compute/wgpu"
)

// A dispatch that runs far past the device's wait timeout (a shader that
// loops; lavapipe ends each invocation's loops after 65,536 iterations, so
// the dispatch is made long by its size, sized on the adapter) is reported
// as ErrTimeout when the timeout passes, not waited on until it ends, and
// the device is then lost for every later call. A wait in the caller
// (WaitBlockCaller) returns when the driver does, and then with ErrTimeout
// too.
//
// Nothing here depends on the host's speed or load: the timeout is set
// from a probe timed under a generous one (hungWork), and whether the
// report came at the timeout or at the dispatch's end is judged against
// when the dispatch ended, in the same run.
func TestWatchdogReportsAHungDispatch(t *testing.T) {
	if testing.Short() {
		t.Skip("keeps a core busy for seconds")
	}
	t.Run("helper", func(t *testing.T) { hungDispatch(t, wgpu.WaitAuto) })
	t.Run("caller", func(t *testing.T) { hungDispatch(t, wgpu.WaitBlockCaller) })
}

func hungDispatch(t *testing.T, mode wgpu.WaitMode) {
	inst, err := wgpu.NewInstance(wgpu.BackendUndefined)
	if err != nil {
		t.Fatal(err)
	}
	adapters, err := inst.Adapters()
	if err != nil {
		t.Fatal(err)
	}
	a, err := wgpu.SelectAdapter(adapters, wgpu.AdapterQuery{Index: -1})
	if err != nil {
		t.Fatal(err)
	}
	// The default wait timeout (minutes) while the probe is timed.
	d, err := a.RequestDevice(wgpu.DeviceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	const spin = `override N: u32 = 1u;
@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) g: vec3<u32>) {
	var acc = 0.0;
	for (var i = 0u; i < N; i++) { acc = sqrt(acc + out[i & 63u] + f32(i)); }
	out[g.x & 63u] = acc;
}`
	p, err := d.Pipeline("spin", spin, "main", wgpu.Constants{"N": 60_000})
	if err != nil {
		t.Fatal(err)
	}
	buf, err := d.CreateBuffer("out", 256, wgpu.UsageStorage|wgpu.UsageCopySrc)
	if err != nil {
		t.Fatal(err)
	}
	bg, err := d.CreateBindGroup(p, 0, []wgpu.BufferBinding{{Binding: 0, Buffer: buf}})
	if err != nil {
		t.Fatal(err)
	}
	dispatch := func(groups int) error {
		x, y := grid(groups, d.Limits.MaxComputeWorkgroupsPerDimension)
		_, err := d.Submit([]wgpu.Pass{{Dispatches: []wgpu.Dispatch{{Pipeline: p, BindGroups: []*wgpu.BindGroup{bg}, X: x, Y: y, Z: 1}}}}, nil, nil)
		return err
	}
	probe, probeTook := hungWork(t, dispatch)
	// The timeout the test is about: three probes' time, so ordinary work
	// is never near it (and WaitAuto's first wait after the probe blocks
	// on the helper: the last wait is over 1/64 of the timeout). The hung
	// dispatch is twelve probes: four timeouts by the probe's measure.
	timeout := 3 * probeTook
	wgpu.SetWaitTimeout(d, timeout)
	d.SetWaitMode(mode)
	start := time.Now()
	err = dispatch(12 * probe)
	took := time.Since(start)
	if !errors.Is(err, wgpu.ErrTimeout) {
		t.Fatalf("a dispatch of 4 timeouts by the probe (%d workgroups in %v, timeout %v): err = %v after %v, want ErrTimeout",
			probe, probeTook, timeout, err, took)
	}
	if took < timeout {
		t.Errorf("reported after %v, before the timeout of %v", took, timeout)
	}
	if err := d.Write(buf, 0, make([]byte, 4)); !errors.Is(err, wgpu.ErrDeviceLost) {
		t.Errorf("a call after the timeout: err = %v, want ErrDeviceLost", err)
	}
	// Release waits for the driver to finish the dispatch: ran is how long
	// the dispatch took, on this host at this moment.
	bg.Release()
	buf.Release()
	d.Release()
	ran := time.Since(start)
	t.Logf("probe %d workgroups in %v; timeout %v; reported after %v: %v; the dispatch ran %v", probe, probeTook, timeout, took, err, ran)
	// Reported at the timeout, not at the dispatch's end: nearer the one
	// than the other (a wait in the caller returns at the end).
	if mode != wgpu.WaitBlockCaller && took-timeout > ran-took {
		t.Errorf("reported after %v, nearer the dispatch's end (%v) than the timeout (%v): the wait did not stop at the timeout", took, ran, timeout)
	}
	for _, x := range adapters {
		x.Release()
	}
	inst.Release()
}

// minProbe is how long the probe dispatch must run, so its time is
// measured well above the clock's and the driver's fixed costs.
const minProbe = 100 * time.Millisecond

// hungWork times the spin dispatch under the device's generous default
// timeout: it starts with a few workgroups (one spin workgroup takes tens
// of milliseconds on lavapipe) and grows them until one dispatch takes at
// least minProbe. It returns the workgroups of that dispatch and its time.
// A probe too small to fill every core only makes the hung dispatch
// shorter than twelve probes, and a dispatch of 24 workgroups or more
// fills 24 cores; the hung one is at least 96.
func hungWork(t *testing.T, dispatch func(groups int) error) (groups int, took time.Duration) {
	t.Helper()
	if err := dispatch(1); err != nil { // a first dispatch: the driver's set-up is not timed
		t.Fatalf("a first dispatch of 1 workgroup: %v", err)
	}
	groups = 8
	for {
		start := time.Now()
		if err := dispatch(groups); err != nil {
			t.Fatalf("a probe of %d workgroups: %v", groups, err)
		}
		took = time.Since(start)
		if took >= minProbe {
			return groups, took
		}
		if groups >= 1<<26 {
			t.Fatalf("%d workgroups of the spin shader ran in %v: too fast to make a hung dispatch", groups, took)
		}
		// Aim at twice minProbe, at most 16 times as many workgroups.
		groups *= int(min(16, max(2, 2*minProbe/max(took, time.Microsecond))))
	}
}

// grid lays groups workgroups out as x*y >= groups with x and y at most
// perDim.
func grid(groups int, perDim uint32) (x, y uint32) {
	if perDim == 0 {
		perDim = 65535
	}
	y = uint32((groups + int(perDim) - 1) / int(perDim))
	x = uint32((groups + int(y) - 1) / int(y))
	return x, y
}
