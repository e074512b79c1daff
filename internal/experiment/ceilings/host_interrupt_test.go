package ceilings

import (
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wgpu-prof/wgpu-prof/internal/experiment"
	"github.com/wgpu-prof/wgpu-prof/internal/experiment/env"

	"github.com/wgpu-prof/wgpu-prof/hostsimd"
	"github.com/wgpu-prof/wgpu-prof/internal/report"
	"github.com/wgpu-prof/wgpu-prof/timing"
)

// An interrupt ends every phase of the CPU-only suite (the ceilings and
// BabelStream's kernels, the cache-level read ceilings, the data, the
// rows, the rechecks) promptly: RunHost returns an error wrapping
// ErrInterrupted within interruptLatency of the stop, wherever it lands,
// and the report keeps the rows finished before it.
func TestInterruptEndsHostPromptly(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the CPU-only suite several times")
	}
	// A bound on the latency, with room for a loaded test machine: the
	// phases poll between timed calls of at most a few hundred ms.
	const interruptLatency = 2 * time.Second
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
			var last atomic.Value
			last.Store("")
			rep := report.New("test", time.Now())
			done := make(chan error, 1)
			go func() { done <- RunHost(c, rep, func(s string) { last.Store(s) }) }()
			select {
			case err := <-done:
				t.Skipf("the suite finished in under %v (%v)", after, err)
			case <-time.After(after):
			}
			at := time.Now()
			stop.Store(true)
			err := <-done
			took := time.Since(at)
			phase := last.Load().(string)
			if took > interruptLatency {
				if point := onePoint(t); took > interruptLatency+point {
					t.Errorf("interrupted during %q: returned %v later (one %s point takes %v here now)", phase, took, experiment.FmtBytes(onePointBytes), point)
				} else {
					t.Logf("interrupted during %q: returned %v later, within one %s point (%v) on this loaded machine", phase, took, experiment.FmtBytes(onePointBytes), point)
				}
			}
			if !errors.Is(err, env.ErrInterrupted) {
				t.Errorf("interrupted during %q: err = %v, want ErrInterrupted", phase, err)
			}
			for _, m := range rep.Measurements {
				if m.Side != report.SideCPU || !m.Verified {
					t.Errorf("interrupted during %q: a row kept %s %s verified=%v", phase, m.Side, m.Workload, m.Verified)
				}
			}
			t.Logf("interrupted during %q: returned %v later, %d rows kept", phase, took.Round(time.Millisecond), len(rep.Measurements))
		})
	}
}
