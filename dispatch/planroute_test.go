package dispatch_test

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/wgpu-prof/wgpu-prof/dispatch"
	"github.com/wgpu-prof/wgpu-prof/internal/report"
)

// planSim is a side of a replayed service: its true seconds per call at
// size n, with 3% noise from its own generator.
type planSim struct {
	at func(n float64) float64
	r  *rand.Rand
}

func (s *planSim) Run(n int) (time.Duration, error) {
	t := s.at(float64(n)) * (1 + 0.03*s.r.NormFloat64())
	return time.Duration(t * 1e9), nil
}

// planMix draws calls from sizes with weights.
func planMix(seed uint64, calls int, sizes []int, weights []float64) []int {
	r := rand.New(rand.NewPCG(seed, 11))
	var total float64
	for _, w := range weights {
		total += w
	}
	out := make([]int, calls)
	for i := range out {
		x := r.Float64() * total
		for k, w := range weights {
			if x -= w; x < 0 || k == len(weights)-1 {
				out[i] = sizes[k]
				break
			}
		}
	}
	return out
}

// planRouteFile writes a plan holding one operation's route.
func planRouteFile(t *testing.T, route report.PlanRoute) string {
	t.Helper()
	pl := &report.Plan{Ops: []report.PlanOp{{Regex: `main\.score$`, Workload: "cosine-single"}}}
	pl.Ops[0].Route = &route
	return jsonWriter(t)("plan.json", pl)
}

// replay runs calls through d and returns, per call, its outcome.
func replay(t *testing.T, d *dispatch.Dispatcher, calls []int) []dispatch.Outcome {
	t.Helper()
	out := make([]dispatch.Outcome, len(calls))
	for i, n := range calls {
		o, err := d.Do(n)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = o
	}
	return out
}

// A service with its scorer measured per size (labels or
// benchmarks): own code 12 ms·q, the GPU flat at 40 ms; the plan routes
// q < 4 to the own code and q ≥ 4 to the GPU. A route built from the plan
// sends every call but its probes where the plan says.
func TestRouteFromMeasuredPlanFollowsThePlan(t *testing.T) {
	own, gpu := func(n float64) float64 { return 12e-3 * n }, func(float64) float64 { return 40e-3 }
	for _, basis := range []string{report.OwnLabels, report.OwnBenchmarks} {
		path := planRouteFile(t, report.PlanRoute{Sides: []string{"own", "gpu"}, CPU: line(0, 12e-3), GPU: line(40e-3, 0),
			Crossover: 4, OwnBasis: basis, OwnMean: 0.1, GPUMean: 40e-3})
		r := rand.New(rand.NewPCG(5, 6))
		d, err := dispatch.NewFromReport(path, "cosine-single", &planSim{own, r}, &planSim{gpu, r}, dispatch.Config{})
		if err != nil {
			t.Fatal(err)
		}
		calls := planMix(1, 2000, []int{1, 2, 3, 4, 8, 16, 64}, []float64{30, 15, 10, 10, 15, 10, 10})
		wrong, probes := 0, 0
		for i, o := range replay(t, d, calls) {
			want := 0
			if calls[i] >= 4 {
				want = 1
			}
			switch {
			case o.Probe:
				probes++
			case o.Side != want:
				wrong++
			}
		}
		if wrong > 0 || probes > len(calls)/20 {
			t.Errorf("%s: %d of %d calls (not probes) away from the plan's side, %d probes; switches %+v", basis, wrong, len(calls), probes, d.Switches())
		}
	}
}

// A plan that knows the own code only at its mean says "no call to gpu"
// (own 5 ms + 0.1 ms·q, the GPU 40 ms): the route keeps every call but
// its probes on the own code. The plan's file carries no own-code curve
// to mis-scale.
func TestRouteFromMeanPlanKeepsThePlan(t *testing.T) {
	own, gpu := func(n float64) float64 { return 5e-3 + 0.1e-3*n }, func(float64) float64 { return 40e-3 }
	path := planRouteFile(t, report.PlanRoute{Sides: []string{"own", "gpu"}, GPU: line(40e-3, 0),
		Crossover: -1, OwnBasis: report.OwnMean, OwnMean: 7e-3, GPUMean: 40e-3})
	pr, err := dispatch.LoadRoute(path, "cosine-single")
	if err != nil || pr.CPU != nil || pr.OwnBasis != "mean" {
		t.Fatalf("LoadRoute: %+v, %v", pr, err)
	}
	r := rand.New(rand.NewPCG(7, 8))
	d, err := dispatch.NewFromReport(path, "cosine-single", &planSim{own, r}, &planSim{gpu, r}, dispatch.Config{})
	if err != nil {
		t.Fatal(err)
	}
	calls := planMix(2, 2000, []int{1, 2, 4, 8, 16, 64}, []float64{30, 20, 15, 15, 10, 10})
	gpuCalls := 0
	for _, o := range replay(t, d, calls) {
		if o.Side == 1 && !o.Probe {
			gpuCalls++
		}
	}
	if gpuCalls > 0 {
		t.Errorf("%d of %d calls (not probes) on the GPU; the plan says none", gpuCalls, len(calls))
	}
}

// A plan that knows the own code only at its mean says "every call to
// gpu" (own 12 ms·q has a mean of 125 ms over this mix, the GPU 40 ms),
// though the own code wins at q = 1. The route keeps the plan at every
// size until the own side's timed calls in a size's bucket (its probes)
// are trusted there, then moves only that bucket: q = 1 to the own code
// after at least MinCalls of its calls at q = 1; q = 64 stays on the GPU,
// its own calls at q = 1 saying nothing of q = 64 (the prior's shape is
// unknown: Side.ShapeUnknown).
func TestRouteFromMeanPlanLearnsPerBucket(t *testing.T) {
	own, gpu := func(n float64) float64 { return 12e-3 * n }, func(float64) float64 { return 40e-3 }
	path := planRouteFile(t, report.PlanRoute{Sides: []string{"own", "gpu"}, GPU: line(40e-3, 0),
		Crossover: 0, OwnBasis: report.OwnMean, OwnMean: 0.85*12e-3 + 0.15*768e-3, GPUMean: 40e-3})
	r := rand.New(rand.NewPCG(9, 10))
	d, err := dispatch.NewFromReport(path, "cosine-single", &planSim{own, r}, &planSim{gpu, r}, dispatch.Config{})
	if err != nil {
		t.Fatal(err)
	}
	calls := planMix(3, 20000, []int{1, 64}, []float64{85, 15})
	ownAt := map[int]int{} // the own side's calls so far, by size
	firstOwn := map[int]int{}
	for i, o := range replay(t, d, calls) {
		n := calls[i]
		if o.Side == 0 && !o.Probe {
			if _, ok := firstOwn[n]; !ok {
				firstOwn[n] = ownAt[n]
			}
			if n == 64 {
				t.Fatalf("call %d: q = 64 on the own code (768 ms against the GPU's 40 ms)", i)
			}
		}
		if o.Side == 0 {
			ownAt[n]++
		}
	}
	k, ok := firstOwn[1]
	if !ok {
		t.Fatalf("q = 1 never moved to the own code (12 ms against 40 ms) in %d calls; own calls there %d; switches %+v", len(calls), ownAt[1], d.Switches())
	}
	t.Logf("q = 1 moved to the own code after %d own calls there", k)
	if k < 10 {
		t.Errorf("q = 1 moved to the own code after %d of its calls there, want at least MinCalls (10)", k)
	}
}
