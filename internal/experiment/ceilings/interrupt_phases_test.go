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
	"github.com/wgpu-prof/wgpu-prof/internal/workload"
)

// An interrupt ends every phase before the first row (the staircase, the
// GPU and CPU ceilings, the cache-level ceilings) promptly: the ceilings
// return an error wrapping ErrInterrupted within interruptLatency of the
// call, wherever it lands.
func TestInterruptEndsCeilingsPromptly(t *testing.T) {
	if testing.Short() {
		t.Skip("measures the ceilings several times")
	}
	var cfg experiment.RunConfig
	for _, p := range workload.Params() {
		if p.Kind == experiment.IntParam {
			*p.Int(&cfg.Config) = p.QuickDefault()
		}
	}
	cfg.QuickStaircase = true
	cfg.Defaults()
	for _, after := range []time.Duration{300 * time.Millisecond, 1500 * time.Millisecond, 3 * time.Second, 5 * time.Second} {
		t.Run(fmt.Sprint(after), func(t *testing.T) {
			e := openEnv(t)
			interruptAfter(t, after, func(progress func(string)) error {
				e.Progress = progressFunc(progress)
				_, err := Ceilings(e, cfg, e.NewReport("test"))
				return err
			}, e.Interrupt)
		})
	}
}

// interruptLatency bounds how long after an interrupt a phase returns,
// with room for a loaded test machine: the phases poll between timed
// runs of at most a few hundred ms.
const interruptLatency = 2 * time.Second

// interruptAfter runs run on a goroutine of its own (skipping t when it
// finishes within after), calls stop after it, and checks that run then
// returns an error wrapping ErrInterrupted within interruptLatency. A
// loaded machine stretches the step an interrupt waits for (a working
// set filled and read through): past the bound, the return must still
// have come within one staircase point of a large working set measured
// here now, far less than the phases left to run. It returns the phase
// run's progress named last and how long the return took.
func interruptAfter(t *testing.T, after time.Duration, run func(progress func(string)) error, stop func()) (phase string, took time.Duration) {
	t.Helper()
	var last atomic.Value
	last.Store("")
	done := make(chan error, 1)
	go func() { done <- run(func(s string) { last.Store(s) }) }()
	select {
	case err := <-done:
		t.Skipf("the run finished in under %v (%v)", after, err)
	case <-time.After(after):
	}
	at := time.Now()
	stop()
	err := <-done
	took = time.Since(at)
	phase = last.Load().(string)
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
	return phase, took
}

// progressFunc is an io.Writer calling f with each line written.
type progressFunc func(string)

func (f progressFunc) Write(p []byte) (int, error) {
	f(string(p))
	return len(p), nil
}

// onePointBytes is the working set of onePoint: past the caches, as the
// staircase's last points and the DRAM-level ceilings are.
const onePointBytes = 256 << 20

// onePoint is how long one staircase point of onePointBytes (its array
// filled, then read through as the staircase reads it) takes on this
// machine now.
func onePoint(t *testing.T) time.Duration {
	t.Helper()
	start := time.Now()
	if _, err := hostsimd.MeasureReadUntil(onePointBytes, 0, 3, nil); err != nil {
		t.Fatal(err)
	}
	return time.Since(start)
}
