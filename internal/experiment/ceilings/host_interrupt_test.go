package ceilings

import (
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wgpu-prof/wgpu-prof/hostsimd"
	"github.com/wgpu-prof/wgpu-prof/internal/report"
	"github.com/wgpu-prof/wgpu-prof/timing"
)

// An interrupt ends every phase of the CPU-only suite (the ceilings and
// BabelStream's kernels, the cache-level read ceilings, the data, the
// rows, the rechecks) promptly: RunHost returns an error wrapping
// ErrInterrupted within interruptLatency of the stop, wherever it lands
// (interruptAfter), and the report keeps the rows finished before it.
func TestInterruptEndsHostPromptly(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the CPU-only suite several times")
	}
	cfg := HostConfig{
		Levels: []hostsimd.Level{hostsimd.Generic}, Dim: 256, N: 100_000, NCached: 500, Q: 8,
		Ceiling: hostsimd.CeilingOpts{Bytes: 128 << 20},
		Measure: timing.MeasureOpts{Budget: 300 * time.Millisecond},
	}
	for _, after := range []time.Duration{200 * time.Millisecond, 800 * time.Millisecond, 1500 * time.Millisecond, 2500 * time.Millisecond, 3500 * time.Millisecond} {
		t.Run(fmt.Sprint(after), func(t *testing.T) {
			var stop atomic.Bool
			c := cfg
			c.Stop = stop.Load
			rep := report.New("test", time.Now())
			phase, took := interruptAfter(t, after, func(progress func(string)) error {
				return RunHost(c, rep, progress)
			}, func() { stop.Store(true) })
			for _, m := range rep.Measurements {
				if m.Side != report.SideCPU || !m.Verified {
					t.Errorf("interrupted during %q: a row kept %s %s verified=%v", phase, m.Side, m.Workload, m.Verified)
				}
			}
			t.Logf("interrupted during %q: returned %v later, %d rows kept", phase, took.Round(time.Millisecond), len(rep.Measurements))
		})
	}
}
