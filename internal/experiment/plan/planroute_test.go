package plan

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/wgpu-prof/wgpu-prof/dispatch"
	"github.com/wgpu-prof/wgpu-prof/internal/experiment/crossover"

	"github.com/wgpu-prof/wgpu-prof/internal/report"
	"github.com/wgpu-prof/wgpu-prof/timing"
)

// A plan's route, replayed: the plan is written as plan --format json
// writes it, a dispatcher is built from the file (dispatch.NewFromReport,
// what dispatch.RouteFromReport builds a Route on), and a mix of calls
// whose true times are the service's runs through it. Every call but the
// probes goes where the plan says.
func TestPlanRouteReplayed(t *testing.T) {
	sizes := []int{1, 2, 3, 4, 8, 16, 64}
	counts := []int64{300, 150, 100, 100, 150, 100, 100}
	mix := &crossover.BatchMix{File: "sizes.txt", Sizes: sizes, Counts: counts}
	be := report.BreakEven{Workload: "cosine-single", Clock: "end-to-end", Sides: []string{"cpu", "gpu"},
		ModelA: lineModel(0.5e-3, 2e-3), ModelB: lineModel(40e-3, 0),
		Search: &timing.SearchResult{Found: true, Status: timing.SearchLocated, Lo: 16, Hi: 20, Before: timing.FasterA,
			Points: []timing.SearchPoint{{N: 16, Faster: timing.FasterA}, {N: 20, Faster: timing.FasterB}}}}
	gpuAt := func(float64) float64 { return 40e-3 }
	for _, c := range []struct {
		name  string
		own   func(n float64) float64
		label bool // the profile's samples carry their sizes
		cross float64
	}{
		// A service measured per size: its scorer 12 ms·q, the GPU
		// flat at 40 ms; the plan keeps q < 4 on the own code.
		{"labels", func(n float64) float64 { return 12e-3 * n }, true, 4},
		// A scorer known only at its mean, faster than the GPU at every
		// size: the plan says no call to the GPU.
		{"mean", func(n float64) float64 { return 5e-3 + 0.1e-3*n }, false, -1},
	} {
		share := ProfileShare{BySize: map[int]SizeTime{}}
		for i, n := range sizes {
			v := int64(float64(counts[i]) * c.own(float64(n)) * 1e9)
			k := max(1, v/10_000_000)
			share.Value, share.Samples = share.Value+v, share.Samples+k
			if c.label {
				share.BySize[n] = SizeTime{Value: v, Samples: k}
			}
		}
		in := Input{Ops: []Op{{Regex: regexp.MustCompile(`main\.score$`), Workload: "cosine-single", Mix: mix}},
			Shares: []ProfileShare{share}, Total: 2 * share.Value, Unit: "cpu/nanoseconds",
			BreakEvens: []report.BreakEven{be}, Sizes: [][]int{nil}, SizeLabel: DefaultSizeLabel}
		pl := Decide(in)
		po := pl.Ops[0]
		if po.Route == nil || po.Route.Crossover != c.cross || po.OwnBasis != c.name || po.Route.OwnBasis != c.name {
			t.Fatalf("%s: own basis %q, route %+v, want crossover %v", c.name, po.OwnBasis, po.Route, c.cross)
		}
		b, err := json.Marshal(pl)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), "plan.json")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		r := rand.New(rand.NewPCG(1, 2))
		sim := func(at func(float64) float64) dispatch.Func {
			return func(n int) (time.Duration, error) {
				return time.Duration(at(float64(n)) * (1 + 0.03*r.NormFloat64()) * 1e9), nil
			}
		}
		d, err := dispatch.NewFromReport(path, `main\.score$`, sim(c.own), sim(gpuAt), dispatch.Config{})
		if err != nil {
			t.Fatal(err)
		}
		var calls []int
		for i, n := range sizes {
			for range counts[i] {
				calls = append(calls, n)
			}
		}
		r.Shuffle(len(calls), func(i, j int) { calls[i], calls[j] = calls[j], calls[i] })
		wrong, probes := 0, 0
		for _, n := range calls {
			o, err := d.Do(n)
			if err != nil {
				t.Fatal(err)
			}
			want := 0
			if c.cross >= 0 && float64(n) >= c.cross {
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
			t.Errorf("%s (%s): %d of %d calls (not probes) away from the plan's side, %d probes; switches %+v",
				c.name, po.Mix.Route, wrong, len(calls), probes, d.Switches())
		}
	}
}
