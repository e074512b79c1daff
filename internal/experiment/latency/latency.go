package latency

import (
	"fmt"
	"strings"

	"github.com/wgpu-prof/wgpu-prof/internal/experiment/env"

	"github.com/wgpu-prof/wgpu-prof/compute"
	"github.com/wgpu-prof/wgpu-prof/internal/report"
	"github.com/wgpu-prof/wgpu-prof/timing"
)

// Config configures Latency; zero fields take compute's defaults.
type Config struct {
	Rounds   int    // interleaved rounds over every point (≥ 3)
	MaxBytes uint64 // largest transfer of the readback and upload curves
}

// Validate checks the configuration, naming the bad flag.
func (c Config) Validate() error {
	if c.Rounds != 0 && (c.Rounds < 3 || c.Rounds > 1000) {
		return env.Usage(fmt.Errorf("--rounds %d: must be in 3..1000", c.Rounds))
	}
	if c.MaxBytes != 0 && c.MaxBytes < 4 {
		return env.Usage(fmt.Errorf("--max-bytes %d: must be at least 4", c.MaxBytes))
	}
	return nil
}

// QuickLatency is the anatomy run --quick measures: fewer rounds and
// transfers up to 4 MiB.
var QuickLatency = Config{Rounds: 5, MaxBytes: 4 << 20}

// Measure measures the anatomy of a GPU call on the environment's device:
// the round trip of an empty and of a tiny call, the cost per dispatch at
// K = 1 … 64 per submit, and readback and upload against bytes, every call
// verified (compute.MeasureLatency).
func Measure(e *env.Env, c Config) (*timing.Anatomy, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	if c.MaxBytes > e.Device.Limits.MaxBufferSize {
		return nil, env.Usage(fmt.Errorf("--max-bytes %d: above the adapter's maxBufferSize %d", c.MaxBytes, e.Device.Limits.MaxBufferSize))
	}
	if e.Stopped() {
		return nil, fmt.Errorf("before the latency anatomy: %w", env.ErrInterrupted)
	}
	e.Progressf("gpu  call latency anatomy (empty and tiny calls, K dispatches per submit, readback and upload curves)")
	a, err := compute.MeasureLatency(e.Context(), e.Device, compute.LatencyOptions{Rounds: c.Rounds, MaxBytes: c.MaxBytes})
	return a, e.Interrupted("the latency anatomy", err)
}

// CallAnatomy measures the anatomy for a run's report and states it in
// one summary line.
func CallAnatomy(e *env.Env, quick bool, rep *report.Report) error {
	c := Config{}
	if quick {
		c = QuickLatency
	}
	a, err := Measure(e, c)
	if err != nil {
		return fmt.Errorf("latency anatomy: %w", err)
	}
	rep.Latency = a
	rep.Summary = append(rep.Summary, AnatomyLine(a))
	return nil
}

// DefaultLatencyMaxBytes is the largest readback and upload the latency
// anatomy measures by default.
const DefaultLatencyMaxBytes = compute.DefaultLatencyMaxBytes

// AnatomyLine is the anatomy in one line: the tiny call's round trip, the
// empty call, the cost per dispatch, and the transfer rates at the
// largest size measured.
func AnatomyLine(a *timing.Anatomy) string {
	if a == nil {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "GPU call round trip (one submit, one wait): tiny call %s, empty call %s, +%s per dispatch in the same submit",
		a.Tiny, a.Empty, timing.FormatSeconds(a.PerDispatch()))
	if n := len(a.Readback); n > 0 {
		p := a.Readback[n-1]
		fmt.Fprintf(&b, ", readback %.2f GB/s at %s", p.GBps, report.SizeLabel(p.Bytes))
	}
	if n := len(a.Upload); n > 0 {
		p := a.Upload[n-1]
		fmt.Fprintf(&b, ", upload %.2f GB/s at %s", p.GBps, report.SizeLabel(p.Bytes))
	}
	return b.String()
}

// RoundTripShares sets, on every GPU row, the share of its end-to-end
// median that the tiny call's round trip is: the part of the row no
// kernel, however fast, removes.
func RoundTripShares(rep *report.Report) {
	if rep.Latency == nil || !rep.Latency.Tiny.Valid() {
		return
	}
	rt := rep.Latency.Tiny.Median
	for i := range rep.Measurements {
		m := &rep.Measurements[i]
		if m.Side != report.SideGPU || !m.EndToEnd.Valid() || m.EndToEnd.Median <= 0 {
			continue
		}
		s := min(1, rt/m.EndToEnd.Median)
		m.RoundTripShare = &s
	}
}

// CheckFixedCosts sets, on every end-to-end break-even with a GPU side,
// that side's fitted fixed cost beside the anatomy's round trip
// (FixedCostOf): a fit whose whole CI lies below the round trip of the
// tiny call is flagged, since no GPU call costs less than that, and the
// check says whether the dispatcher's prior for the side is floored at
// the round trip. Each check is a summary line too.
func CheckFixedCosts(rep *report.Report) {
	if rep.Latency == nil || !rep.Latency.Tiny.Valid() {
		return
	}
	for i := range rep.BreakEvens {
		b := &rep.BreakEvens[i]
		if b.Clock != "end-to-end" || (b.Adapter != "" && b.Adapter != rep.Latency.Adapter) ||
			(b.Implementation != "" && rep.Adapter.Implementation != "" && b.Implementation != rep.Adapter.Implementation) {
			continue
		}
		side, fit, model := "gpu", b.GPUFit, b.ModelB
		if len(b.Sides) == 2 {
			switch {
			case isGPUSide(b.Sides[1]):
				side = b.Sides[1]
			case isGPUSide(b.Sides[0]):
				side, fit, model = b.Sides[0], b.CPUFit, b.ModelA
			default:
				continue
			}
		}
		if fit.DoF <= 0 {
			continue
		}
		c := FixedCostOf(side, fit, model, rep.Latency, "this report's latency anatomy")
		b.FixedCost = &c
		rep.Summary = append(rep.Summary, fmt.Sprintf("%s break-even (%s): %s", b.Workload, b.Clock, report.FixedCostLine(c)))
	}
}

// Floor is the least time of any GPU call on the anatomy's adapter: the
// tiny call's median round trip (seconds; 0 without an anatomy). It is
// the floor (dispatch.Side.Floor) of a GPU side's prior.
func Floor(a *timing.Anatomy) float64 {
	if a == nil || !a.Tiny.Valid() || !(a.Tiny.Median > 0) {
		return 0
	}
	return a.Tiny.Median
}

// FixedCostOf sets a GPU side's fitted fixed cost (fit's intercept and
// CI) beside the anatomy's round trip of the tiny call, and says what the
// dispatcher's prior for the side uses: its prior at size n is
// max(model(n), Floor(a)), so where the model at n = 1 lies below the
// round trip the prior's fixed cost is the round trip ("round trip"),
// else the fit's ("fit"). model nil: the fit stands for it. source says
// where the anatomy came from.
func FixedCostOf(side string, fit timing.LinearFit, model *timing.Model, a *timing.Anatomy, source string) report.FixedCostCheck {
	rt := a.Tiny
	c := report.FixedCostCheck{Side: side, Used: "fit", Fit: fit.Overhead, FitCI: fit.OverheadCI,
		RoundTrip: rt.Median, RoundTripCI: [2]float64{rt.Lo, rt.Hi}, Check: "consistent", Source: source}
	at1 := fit.At(1)
	if model != nil && len(model.Segments) > 0 {
		at1 = model.At(1)
	}
	if at1 < Floor(a) {
		c.Used = "round trip"
	}
	if fit.OverheadCI[1] < rt.Lo {
		c.Check = "below round trip"
	}
	return c
}

func isGPUSide(label string) bool { return label == "gpu" || strings.HasPrefix(label, "gpu:") }
