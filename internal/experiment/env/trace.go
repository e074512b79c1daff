package env

import (
	"fmt"
	"math"
	"time"

	"github.com/wgpu-prof/wgpu-prof/compute"
	"github.com/wgpu-prof/wgpu-prof/internal/report"
	"github.com/wgpu-prof/wgpu-prof/internal/workload"
	"github.com/wgpu-prof/wgpu-prof/timing"
	"github.com/wgpu-prof/wgpu-prof/timing/clock"
)

// maxTraceEvents caps the trace (host calls plus GPU passes); past it calls
// are counted, not recorded, and the trace ends with a marker saying how
// many were dropped.
const maxTraceEvents = 20000

// traceCtx is what the GPU calls being made belong to: the workload case
// and the phase of its measurement.
type traceCtx struct {
	workload string
	params   string
	bytes    float64
	calls    int // calls made so far in this measurement
	warmup   int // calls after the verification run that are warm-ups
}

// tracedCall is one GPU call as recorded: the host interval and the raw
// GPU ticks of its passes.
type tracedCall struct {
	name     string
	start    time.Duration // host clock, since traceStart
	dur      time.Duration
	passes   []kernelPass
	workload string
	params   string
	bytes    float64
	phase    string // "verify", "warm-up", "timed" or "" (not in a suite measurement)
}

type kernelPass struct {
	begin, end uint64        // GPU ticks
	dur        time.Duration // (end-begin)·period
}

// EnableTrace starts recording a Chrome trace of every GPU call.
func (e *Env) EnableTrace() { e.tracing, e.traceStart = true, clock.Now() }

// Traced wraps a GPU side so the calls it makes are labelled with the case
// and the phase: the first call is measureSide's verification run, the
// next timing.MeasureOpts.Warmup calls are warm-ups, the rest are timed.
func (e *Env) Traced(c workload.Case, s workload.Side) workload.Side {
	if !e.tracing {
		return s
	}
	warm := e.Measure.Warmup
	if warm == 0 {
		warm = timing.DefaultWarmup
	}
	e.traceCtx = traceCtx{workload: c.Name, params: ParamLabel(c.Params), bytes: c.Bytes, warmup: warm}
	return traced{Side: s, e: e}
}

// traced is a Side whose calls are counted for the trace's phase labels.
type traced struct {
	workload.Side
	e *Env
}

// Run counts the call and runs the side.
func (t traced) Run() (timing.Sample, error) {
	t.e.traceCtx.calls++
	return t.Side.Run()
}

func (e *Env) recordCall(name string, start time.Time, t compute.Timing) {
	if e.traceCount+1+len(t.Passes) > maxTraceEvents {
		e.traceDrop++
		return
	}
	c := tracedCall{name: name, start: start.Sub(e.traceStart), dur: t.EndToEnd}
	if ctx := e.traceCtx; ctx.workload != "" {
		c.workload, c.params, c.bytes = ctx.workload, ctx.params, ctx.bytes
		switch {
		case ctx.calls <= 1:
			c.phase = "verify"
		case ctx.calls <= 1+ctx.warmup:
			c.phase = "warm-up"
		default:
			c.phase = "timed"
		}
	}
	for _, p := range t.Passes {
		if p.Valid {
			c.passes = append(c.passes, kernelPass{begin: p.Begin, end: p.End, dur: p.Duration})
		}
	}
	e.traceCalls = append(e.traceCalls, c)
	e.traceCount += 1 + len(c.passes)
}

// Trace returns the recorded calls as trace events: each call on the host
// track (report.TraceTidHost) at its host-clock time, and each of its GPU
// passes on the GPU track (report.TraceTidGPU) at the time its timestamps
// give, converted to the host clock by one offset for the whole run.
//
// Calibration: a pass cannot begin before its call was issued nor end
// after the host saw the call complete, so every call bounds the offset
// (host ns − GPU ns): offset ≥ call start − first pass begin and
// offset ≤ call end − last pass end. The offset is the midpoint of the
// intersection of these intervals over every recorded call; its width is
// the calibration's uncertainty and is written into the trace. If the
// intervals do not intersect (the GPU clock drifts against the host's),
// the first call's interval alone is used and the trace says so.
func (e *Env) Trace() []report.TraceEvent {
	cal := calibrate(e.traceCalls)
	var out []report.TraceEvent
	out = append(out, report.TraceEvent{Name: "clock calibration", Cat: "meta", Instant: true, Tid: report.TraceTidGPU,
		Args: map[string]any{"method": cal.method, "offset_ns": cal.offset, "uncertainty_ns": cal.width, "calls": cal.calls}})
	for _, c := range e.traceCalls {
		args := map[string]any{}
		if c.workload != "" {
			args["workload"], args["params"], args["bytes"], args["phase"] = c.workload, c.params, c.bytes, c.phase
			// A trace is written only after every measurement passed its
			// checks (before and after timing); a failed one ends the run.
			args["verified"] = true
		}
		name := c.name
		if c.phase == "warm-up" || c.phase == "verify" {
			name += " [" + c.phase + "]"
		}
		out = append(out, report.TraceEvent{Name: name, Cat: "end-to-end", Start: c.start, Dur: c.dur, Tid: report.TraceTidHost, Args: args})
		if !cal.ok {
			continue
		}
		for i, p := range c.passes {
			a := map[string]any{"begin_tick": p.begin, "end_tick": p.end, "pass": i}
			for k, v := range args {
				a[k] = v
			}
			at := time.Duration(math.Round(cal.gpuNs(p.begin) + cal.offset))
			out = append(out, report.TraceEvent{Name: fmt.Sprintf("%s pass %d", name, i), Cat: "gpu",
				Start: at, Dur: p.dur, Tid: report.TraceTidGPU, Args: a})
		}
	}
	if e.traceDrop > 0 {
		var end time.Duration
		if n := len(e.traceCalls); n > 0 {
			end = e.traceCalls[n-1].start + e.traceCalls[n-1].dur
		}
		out = append(out, report.TraceEvent{Name: fmt.Sprintf("TRACE CAPPED: %d later GPU calls not recorded (cap %d events)", e.traceDrop, maxTraceEvents),
			Cat: "meta", Instant: true, Start: end, Tid: report.TraceTidHost, Args: map[string]any{"dropped_calls": e.traceDrop, "cap_events": maxTraceEvents}})
	}
	return out
}

type calibration struct {
	ok     bool
	method string
	period float64 // ns per tick
	offset float64 // host ns − GPU ns
	width  float64
	calls  int
}

func (c calibration) gpuNs(tick uint64) float64 { return float64(tick) * c.period }

func calibrate(calls []tracedCall) calibration {
	cal := calibration{method: "no GPU timestamps recorded: GPU passes not placed"}
	// ns per tick, from the passes themselves (Duration is ticks × period).
	for _, c := range calls {
		for _, p := range c.passes {
			if p.end > p.begin && cal.period == 0 {
				cal.period = float64(p.dur) / float64(p.end-p.begin)
			}
		}
	}
	if cal.period == 0 {
		return cal
	}
	lo, hi := math.Inf(-1), math.Inf(1)
	var first *tracedCall
	for i := range calls {
		c := &calls[i]
		if len(c.passes) == 0 {
			continue
		}
		if first == nil {
			first = c
		}
		lo = math.Max(lo, float64(c.start)-cal.gpuNs(c.passes[0].begin))
		hi = math.Min(hi, float64(c.start+c.dur)-cal.gpuNs(c.passes[len(c.passes)-1].end))
		cal.calls++
	}
	cal.ok = true
	if lo <= hi {
		cal.offset, cal.width = (lo+hi)/2, hi-lo
		cal.method = "one offset for the run: midpoint of the offsets every call allows (a pass starts after its call is issued and ends before the host sees it complete)"
		return cal
	}
	flo := float64(first.start) - cal.gpuNs(first.passes[0].begin)
	fhi := float64(first.start+first.dur) - cal.gpuNs(first.passes[len(first.passes)-1].end)
	cal.offset, cal.width, cal.calls = (flo+fhi)/2, fhi-flo, 1
	cal.method = "the calls' allowed offsets do not intersect (GPU clock drift?): offset from the first call alone"
	return cal
}

// Untraced ends what traced began: GPU calls made from now on belong to
// no case.
func (e *Env) Untraced() { e.traceCtx = traceCtx{} }

// GPUSample converts a runner's Timing into a timing.Sample and, when
// tracing, records the call (host clock) and its passes (GPU ticks; placed
// on the host clock when the trace is read, see Trace).
func (e *Env) GPUSample(name string, start time.Time, t compute.Timing, err error) (timing.Sample, error) {
	if e.tracing && err == nil {
		e.recordCall(name, start, t)
	}
	return workload.SampleOf(t, err)
}

// GPU is what the workloads' GPU sides run with on this environment.
func (e *Env) GPU() workload.GPU {
	return workload.GPU{Device: e.Device, Timer: e.Timer, Sampler: e}
}

func ParamLabel(ps []report.Param) string {
	s := ""
	for i, x := range ps {
		if i > 0 {
			s += " "
		}
		s += x.Key + "=" + x.Value
	}
	return s
}
