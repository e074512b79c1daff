package wgpu

import (
	"fmt"
	"time"

	"github.com/wgpu-prof/wgpu-prof/timing/clock"
)

const probeWGSL = `
// out: [64*WG] f32; a short FMA loop per invocation
@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
	var x = f32(gid.x);
	for (var i = 0u; i < 256u; i++) { x = fma(x, 0.5, 1.0); }
	out[gid.x] = x;
}
`

// TimestampProbe is the outcome of a tiny timed dispatch.
type TimestampProbe struct {
	OK     bool          `json:"ok"`
	Kernel time.Duration `json:"kernel_ns"`
	Host   time.Duration `json:"host_ns"`
	Reason string        `json:"reason,omitempty"`
}

// ProbeTimestamps runs a tiny dispatch with timestamp writes and reports
// the period-converted duration, or why timestamps cannot be trusted here.
// It returns an error only when the dispatch itself fails.
func (d *Device) ProbeTimestamps() (TimestampProbe, error) {
	if err := d.check("ProbeTimestamps"); err != nil {
		return TimestampProbe{}, err
	}
	if !d.timestamps {
		return TimestampProbe{Reason: "adapter does not offer timestamp-query; kernel timing falls back to the host clock"}, nil
	}
	p, err := d.Pipeline("probe", probeWGSL, "main", nil)
	if err != nil {
		return TimestampProbe{}, err
	}
	out, err := d.CreateBuffer("probe-out", 4*64*16, UsageStorage)
	if err != nil {
		return TimestampProbe{}, err
	}
	defer out.Release()
	bg, err := d.CreateBindGroup(p, 0, []BufferBinding{{Binding: 0, Buffer: out}})
	if err != nil {
		return TimestampProbe{}, err
	}
	defer bg.Release()
	t, err := d.NewTimer(1)
	if err != nil {
		return TimestampProbe{}, err
	}
	defer t.Release()
	pass := []Pass{{Label: "probe", Dispatches: []Dispatch{{Pipeline: p, BindGroups: []*BindGroup{bg}, X: 16, Y: 1, Z: 1}}}}
	var res TimestampProbe
	for i := 0; i < 3; i++ { // the first run pays pipeline and driver costs
		start := clock.Now()
		times, err := d.Submit(pass, nil, t)
		host := clock.Since(start)
		if err != nil {
			return TimestampProbe{}, err
		}
		res = TimestampProbe{Kernel: times[0].Duration, Host: host}
		switch {
		case !times[0].Valid:
			res.Reason = fmt.Sprintf("timestamps returned begin=%d end=%d ticks", times[0].Begin, times[0].End)
		case times[0].Duration > host:
			res.Reason = fmt.Sprintf("timestamp delta %v exceeds the host clock's %v", times[0].Duration, host)
		default:
			res.OK = true
		}
	}
	return res, nil
}
