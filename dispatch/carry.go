package dispatch

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"sync"
	"time"

	"github.com/wgpu-prof/wgpu-prof/timing"
	"github.com/wgpu-prof/wgpu-prof/timing/clock"
)

// Route carries each of a service's requests to the side a Dispatcher
// picks for the request's size, and returns what that side returned:
//
//	r, err := dispatch.RouteFromReport("plan.json", `main\.similarity$`, cpuSimilarity, gpuSimilarity, func(q Query) int { return q.N })
//	...
//	out, err := r.Do(query) // from any goroutine
//
// A side is a function of the request (RouteSide.Serve); its time is the
// wall time of that function. Route is safe for concurrent callers: one
// request is routed and served at a time (the dispatcher's decision and
// estimates need each call's time), so concurrent requests queue.
type Route[Req any] struct {
	mu   sync.Mutex
	d    *Dispatcher
	size func(Req) int
	cur  Req
}

// RouteSide is one side of a Route: its name, the function that serves
// a request, its model (seconds per call at size n), its floor (the
// least time of a call, Side.Floor; 0: none) and whether the model's
// shape is unknown (Side.ShapeUnknown).
type RouteSide[Req any] struct {
	Name  string
	Serve func(Req) error
	Model Model
	Floor float64
	// ShapeUnknown: Model's shape across sizes was not measured
	// (Side.ShapeUnknown).
	ShapeUnknown bool
}

// NewRoute returns a route over sides (one or more; with one, every
// request goes to it), sizing each request with size.
func NewRoute[Req any](sides []RouteSide[Req], size func(Req) int, prof Profile, cfg Config) (*Route[Req], error) {
	r, err := newRoute(sides, size, prof, cfg)
	return r, prefixed("NewRoute", err)
}

func newRoute[Req any](sides []RouteSide[Req], size func(Req) int, prof Profile, cfg Config) (*Route[Req], error) {
	if size == nil {
		return nil, &ConfigError{"size", nil, "a function giving a request's size"}
	}
	r := &Route[Req]{size: size}
	ds := make([]Side, len(sides))
	for i, s := range sides {
		if s.Serve == nil {
			return nil, &ConfigError{fmt.Sprintf("sides[%d].Serve", i), nil, "a function serving a request"}
		}
		serve := s.Serve
		ds[i] = Side{Name: s.Name, Model: s.Model, Floor: s.Floor, ShapeUnknown: s.ShapeUnknown, Exec: Func(func(int) (time.Duration, error) {
			t0 := clock.Now()
			err := serve(r.cur) // r.mu is held by Do
			return clock.Since(t0), err
		})}
	}
	d, err := New(ds, prof, cfg)
	if err != nil {
		return nil, err
	}
	r.d = d
	return r, nil
}

// Do serves req on the side chosen for its size (on the next side when
// that one fails: the request is never lost) and reports the call.
func (r *Route[Req]) Do(req Req) (Outcome, error) {
	if r == nil || r.d == nil {
		return Outcome{Failed: -1}, fmt.Errorf("dispatch: Route.Do: %w", ErrNoExecutor)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.cur = req
	out, err := r.d.Do(r.size(req))
	var zero Req
	r.cur = zero // keep no reference to the caller's request
	return out, err
}

// Share returns how many calls each side answered.
func (r *Route[Req]) Share() []int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.d.Share()
}

// Switches returns the latest changes of side with their reasons.
func (r *Route[Req]) Switches() []Switch {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.d.Switches()
}

// ErrNoRoute is wrapped by RouteFromReport's errors about the report.
var ErrNoRoute = errors.New("no route in the report")

// RouteFromReport builds in one call a route over a CPU and a GPU side
// from a report of wgpu-prof: a plan (plan --format json, or a report
// holding one), whose operation op (its --op expression, or its
// workload) gives the two sides' models (the application's own code and
// the GPU) and the crossover; or a break-even report, whose end-to-end
// CPU-vs-GPU break-even of workload op gives them. When the report holds
// the latency anatomy of the route's adapter (ReportRoute.RoundTrip), the
// GPU side's prior is never below its tiny call's round trip (Side.Floor).
// The own code's curve is used only where the plan measured it
// (ReportRoute.OwnBasis); with its mean only, the route keeps the plan's
// decision at every size until it has timed the own code's calls.
func RouteFromReport[Req any](path, op string, cpu, gpu func(Req) error, size func(Req) int) (*Route[Req], error) {
	pr, err := LoadRoute(path, op)
	if err != nil {
		return nil, err
	}
	cm, gm, prof := pr.models()
	sides := []RouteSide[Req]{
		{Name: pr.Sides[0], Serve: cpu, Model: cm, ShapeUnknown: pr.meanOnly()},
		{Name: pr.Sides[1], Serve: gpu, Model: gm, Floor: pr.RoundTrip},
	}
	return NewRoute(sides, size, prof, Config{})
}

// NewFromReport is RouteFromReport for executors of a call's size: the
// Dispatcher over a report's CPU and GPU sides (LoadRoute), with the
// same models, floor and profile, and cfg.
func NewFromReport(path, op string, cpu, gpu Executor, cfg Config) (*Dispatcher, error) {
	pr, err := LoadRoute(path, op)
	if err != nil {
		return nil, err
	}
	cm, gm, prof := pr.models()
	sides := []Side{
		{Name: pr.Sides[0], Exec: cpu, Model: cm, ShapeUnknown: pr.meanOnly()},
		{Name: pr.Sides[1], Exec: gpu, Model: gm, Floor: pr.RoundTrip},
	}
	d, err := New(sides, prof, cfg)
	return d, prefixed("NewFromReport", err)
}

// The bases of a plan's own code (ReportRoute.OwnBasis): measured per
// size, or known only at its mean.
const (
	ownLabels     = "labels"
	ownBenchmarks = "benchmarks"
	ownMean       = "mean"
)

// meanOnly reports whether the route's own code is known only at its
// mean, with both means.
func (pr ReportRoute) meanOnly() bool {
	return pr.OwnBasis == ownMean && pr.OwnMean > 0 && pr.GPUMean > 0 && !math.IsInf(pr.OwnMean/pr.GPUMean, 0)
}

// meanMargin is how far apart a route from a plan that knows the own
// code only at its mean starts its two sides (at least the default
// Hysteresis, so the plan's decision holds until calls are timed).
const meanMargin = 1.25

// models are the route's two models and the profile reconciling them.
// The CPU side's model is the report's where it was measured (a
// break-even's, a plan's own code per size from labels or benchmarks);
// a break-even's measured crossover rescales the GPU's fit to cross
// there (Profile.Crossover), a plan's measured own code is taken as it
// is (its crossover with the GPU is the two curves').
// A plan that knows the own code only at its mean (OwnBasis "mean")
// gives no curve: the own side's prior is the GPU's (after its floor)
// times the ratio of the two means, kept on the plan's side of 1 by
// meanMargin (Crossover -1: no call to the GPU; 0: every call), so the
// route keeps the plan's decision at every size and departs from it only
// where the own side's timed calls there say so (its shape unknown:
// Side.ShapeUnknown; TestRouteFromMeanPlanLearnsPerBucket).
func (pr ReportRoute) models() (cpu, gpu Model, prof Profile) {
	gpu = modelOf(pr.GPU)
	switch {
	case pr.OwnBasis == ownLabels || pr.OwnBasis == ownBenchmarks:
		// Both curves measured, the crossover theirs: nothing to
		// reconcile.
		return modelOf(pr.CPU), gpu, Profile{}
	case !pr.meanOnly():
		return modelOf(pr.CPU), gpu, Profile{Crossover: max(pr.Crossover, 0)}
	}
	r := pr.OwnMean / pr.GPUMean
	switch {
	case pr.Crossover < 0:
		r = math.Min(r, 1/meanMargin)
	case pr.Crossover == 0:
		r = math.Max(r, meanMargin)
	}
	g, floor := pr.GPU, pr.RoundTrip
	return func(n float64) float64 { return r * math.Max(g.At(n), floor) }, gpu, Profile{}
}

func modelOf(m *timing.Model) Model { return func(n float64) float64 { return m.At(n) } }

// ReportRoute is an operation's route as a report of wgpu-prof gives it:
// the names of its two sides, the models (seconds per call at a batch
// size) of its CPU side and of its GPU side, and the size from which the
// GPU is faster (0: every size; -1: none).
type ReportRoute struct {
	Sides     []string      `json:"sides"`
	CPU       *timing.Model `json:"cpu_model"`
	GPU       *timing.Model `json:"gpu_model"`
	Crossover float64       `json:"crossover"`
	// RoundTrip is the median round trip (seconds) of the tiny call in
	// the report's latency anatomy (its "latency" block) when that was
	// measured on the route's adapter: the GPU side's floor (Side.Floor).
	// 0 when the report has none (reports written before the anatomy, a
	// break-even of another adapter or implementation, a plan written on
	// its own): the GPU side's model then stands alone, as before.
	RoundTrip float64 `json:"gpu_round_trip_s,omitempty"`
	// OwnBasis is how a plan knows the own code (the CPU side): "labels"
	// or "benchmarks" (measured per size: CPU is its curve) or "mean"
	// (its mean per call only, OwnMean, against the GPU's mean over the
	// same calls, GPUMean: CPU is nil and the route keeps the plan's
	// decision, Crossover, until the own side's calls are timed). ""
	// for a break-even, or a plan written before plans measured sizes.
	OwnBasis string  `json:"own_basis,omitempty"`
	OwnMean  float64 `json:"own_mean_per_call_s,omitempty"`
	GPUMean  float64 `json:"gpu_mean_per_call_s,omitempty"`
}

// reportSchema is the version of wgpu-prof's JSON reports that LoadRoute
// reads (a test holds it to the writer's).
const reportSchema = "wgpu-prof/v1"

// reportOp and reportBreakEven are the fields of a plan's operation and
// of a break-even that LoadRoute reads; the rest of a report is ignored.
type reportOp struct {
	Regex    string       `json:"regex"`
	Workload string       `json:"workload"`
	Route    *ReportRoute `json:"route"`
}

type reportBreakEven struct {
	Workload       string `json:"workload"`
	Adapter        string `json:"adapter"`
	Implementation string `json:"implementation"`

	Clock         string        `json:"clock"`
	Sides         []string      `json:"sides"`
	ModelA        *timing.Model `json:"model_a"`
	ModelB        *timing.Model `json:"model_b"`
	Measured      int           `json:"measured"`
	MeasuredFound bool          `json:"measured_found"`
}

// LoadRoute reads the route of operation op from a plan or break-even
// report (RouteFromReport).
func LoadRoute(path, op string) (ReportRoute, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return ReportRoute{}, fmt.Errorf("dispatch: LoadRoute: %w", err)
	}
	var rep struct {
		Schema *string    `json:"schema"`
		Ops    []reportOp `json:"ops"` // a plan on its own (plan --format json)
		Plan   *struct {
			Ops []reportOp `json:"ops"`
		} `json:"plan"`
		BreakEvens []reportBreakEven `json:"break_evens"`
		Adapter    struct {
			Name           string `json:"name"`
			Implementation string `json:"implementation"`
		} `json:"adapter"`
		Latency *reportLatency `json:"latency"`
	}
	if err := json.Unmarshal(data, &rep); err != nil {
		return ReportRoute{}, fmt.Errorf("dispatch: LoadRoute: %s: %w", path, err)
	}
	if rep.Schema != nil && *rep.Schema != reportSchema {
		return ReportRoute{}, fmt.Errorf("dispatch: LoadRoute: %s: schema %q, this build reads %q", path, *rep.Schema, reportSchema)
	}
	ops := rep.Ops
	if rep.Schema != nil {
		ops = nil
		if rep.Plan != nil {
			ops = rep.Plan.Ops
		}
	} else {
		rep.BreakEvens = nil
	}
	for _, o := range ops {
		if (o.Regex == op || o.Workload == op) && o.Route.usable() {
			if len(o.Route.Sides) != 2 {
				return ReportRoute{}, fmt.Errorf("dispatch: LoadRoute: %s: operation %q: route has %d sides, want 2", path, op, len(o.Route.Sides))
			}
			r := *o.Route
			r.RoundTrip = rep.Latency.roundTrip(rep.Adapter.Name)
			return r, nil
		}
	}
	for _, be := range rep.BreakEvens {
		if be.Workload != op || be.Clock != "end-to-end" || be.ModelA == nil || be.ModelB == nil || len(be.ModelA.Segments) == 0 || len(be.ModelB.Segments) == 0 {
			continue
		}
		if len(be.Sides) == 2 && !(be.Sides[0] == "cpu" && be.Sides[1] == "gpu") {
			continue
		}
		cross := -1.0
		if be.MeasuredFound {
			cross = float64(be.Measured)
		}
		r := ReportRoute{Sides: []string{"cpu", "gpu"}, CPU: be.ModelA, GPU: be.ModelB, Crossover: cross}
		// A report of several implementations side by side holds the
		// anatomy of the first (the report's adapter).
		if be.Implementation == "" || rep.Adapter.Implementation == "" || be.Implementation == rep.Adapter.Implementation {
			adapter := be.Adapter
			if adapter == "" {
				adapter = rep.Adapter.Name
			}
			r.RoundTrip = rep.Latency.roundTrip(adapter)
		}
		return r, nil
	}
	return ReportRoute{}, fmt.Errorf("dispatch: LoadRoute: %w: %s has no operation or end-to-end CPU-vs-GPU break-even %q with both models", ErrNoRoute, path, op)
}

// usable reports whether r has a GPU model and either a CPU model or,
// for an own code known only at its mean, both means.
func (r *ReportRoute) usable() bool {
	if r == nil || r.GPU == nil || len(r.GPU.Segments) == 0 {
		return false
	}
	return r.meanOnly() || r.CPU != nil && len(r.CPU.Segments) > 0
}

// reportLatency is the part of a report's latency anatomy LoadRoute
// reads: the adapter it was measured on and the tiny call's round trip.
type reportLatency struct {
	Adapter string `json:"adapter"`
	Tiny    struct {
		N      int     `json:"n"`
		Median float64 `json:"median"`
	} `json:"tiny_call"`
}

// roundTrip is the tiny call's median round trip (seconds) when the
// anatomy was measured on adapter (either name empty: taken as the same),
// else 0.
func (l *reportLatency) roundTrip(adapter string) float64 {
	if l == nil || l.Tiny.N <= 0 || !(l.Tiny.Median > 0) || l.Tiny.Median > 1e9 {
		return 0
	}
	if l.Adapter != "" && adapter != "" && l.Adapter != adapter {
		return 0
	}
	return l.Tiny.Median
}
