package experiment

import (
	"fmt"
	"math"
	"time"

	"github.com/wgpu-prof/wgpu-prof/compute"
	"github.com/wgpu-prof/wgpu-prof/hostsimd"
	"github.com/wgpu-prof/wgpu-prof/report"
	"github.com/wgpu-prof/wgpu-prof/timing"
)

// impl is one side of a workload at one configuration, ready to run.
type impl struct {
	// poison fills the outputs with NaN so a kernel that writes nothing
	// cannot pass verification.
	poison func()
	// run performs one call and reports its times.
	run func() (timing.Sample, error)
	// verify checks the outputs of the last run against the reference.
	verify func() error
	// release frees what the side allocated (GPU buffers); may be nil.
	release func()
}

func (s impl) close() {
	if s.release != nil {
		s.release()
	}
}

// ErrWrongResult marks a result that failed verification: its timings are
// never reported.
var ErrWrongResult = fmt.Errorf("result failed verification")

// measureImpl verifies a poisoned run, measures, then verifies the last
// measured run's output again.
func measureImpl(what string, s impl, opts timing.MeasureOpts) (timing.Result, error) {
	s.poison()
	if _, err := s.run(); err != nil {
		return timing.Result{}, fmt.Errorf("%s: %w", what, err)
	}
	if err := s.verify(); err != nil {
		return timing.Result{}, fmt.Errorf("%s: %w: %v", what, ErrWrongResult, err)
	}
	res, err := timing.Measure(opts, s.run)
	if err != nil {
		return timing.Result{}, fmt.Errorf("%s: %w", what, err)
	}
	if err := s.verify(); err != nil {
		return timing.Result{}, fmt.Errorf("%s (after timing): %w: %v", what, ErrWrongResult, err)
	}
	return res, nil
}

// gpuSample converts a runner's Timing into a timing.Sample and, when
// tracing, records the call (host clock) and its passes (GPU clock).
func (e *Env) gpuSample(name string, start time.Time, t compute.Timing, err error) (timing.Sample, error) {
	if e.tracing && err == nil && len(e.trace) < maxTraceEvents {
		at := start.Sub(e.traceStart)
		e.trace = append(e.trace, report.TraceEvent{Name: name, Cat: "end-to-end", Start: at, Dur: t.EndToEnd, Tid: 1})
		for i, p := range t.Passes {
			if p.Valid {
				e.trace = append(e.trace, report.TraceEvent{Name: fmt.Sprintf("%s pass %d", name, i), Cat: "gpu",
					Start: at, Dur: p.Duration, Tid: 2, Args: map[string]any{"begin_tick": p.Begin, "end_tick": p.End}})
			}
		}
	}
	return timing.Sample{Host: t.EndToEnd, Kernel: t.Kernel, HasKernel: t.KernelValid}, err
}

const maxTraceEvents = 20000

// EnableTrace starts recording a Chrome trace of every GPU call.
func (e *Env) EnableTrace() { e.tracing, e.traceStart = true, time.Now() }

// Trace returns the recorded events.
func (e *Env) Trace() []report.TraceEvent { return e.trace }

// cpuSample times fn on the host clock.
func cpuSample(fn func() error) (timing.Sample, error) {
	start := time.Now()
	err := fn()
	return timing.Sample{Host: time.Since(start)}, err
}

func poisonF32(s []float32) {
	nan := float32(math.NaN())
	for i := range s {
		s[i] = nan
	}
}

// checkClose compares got[i] with want(i) within tol(i); NaN never passes.
func checkClose(what string, got []float32, want func(i int) (value, tol float64)) error {
	for i, g := range got {
		w, tol := want(i)
		if math.IsNaN(float64(g)) || math.IsInf(float64(g), 0) || math.Abs(float64(g)-w) > tol {
			return fmt.Errorf("%s[%d] = %v, want %v (tolerance %.3g)", what, i, g, w, tol)
		}
	}
	return nil
}

// Ceilings of both sides, as roofs.
type Roofs struct {
	GPU, CPU timing.Roof
}

func (r Roofs) of(side string) timing.Roof {
	if side == report.SideGPU {
		return r.GPU
	}
	return r.CPU
}

// measurement fills a report.Measurement from a timing.Result.
func measurement(workload, side, variant string, params []report.Param, res timing.Result, bytes, flops float64, roofs Roofs) report.Measurement {
	m := report.Measurement{
		Workload: workload, Side: side, Variant: variant, Params: params,
		Kernel: res.Kernel, EndToEnd: res.Host, Bytes: bytes, Flops: flops, Verified: true,
		Warnings: append([]string(nil), res.Warnings...),
	}
	for _, s := range res.Samples {
		m.Samples = append(m.Samples, s.Host.Seconds())
		if s.HasKernel && m.Kernel != nil {
			m.KernelSamples = append(m.KernelSamples, s.Kernel.Seconds())
		}
	}
	t := m.Time().Median
	if t > 0 {
		m.GBs = bytes / t / 1e9
		m.GFLOPs = flops / t / 1e9
		if pl, err := timing.Place(roofs.of(side), timing.Point{Flops: flops, Bytes: bytes, Seconds: t}); err == nil {
			m.CeilingFrac = pl.Efficiency
			m.Bound = pl.Bound
		}
	}
	return m
}

func p(key string, v any) report.Param { return report.Param{Key: key, Value: fmt.Sprint(v)} }

func paramLabel(ps []report.Param) string {
	s := ""
	for i, x := range ps {
		if i > 0 {
			s += " "
		}
		s += x.Key + "=" + x.Value
	}
	return s
}

// cpuVariant names the host kernels in use: SIMD level and threads.
func cpuVariant() string {
	return fmt.Sprintf("%s-t%d", hostsimd.CurrentLevel(), hostsimd.Threads())
}
