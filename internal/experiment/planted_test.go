package experiment

import (
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/wgpu-prof/wgpu-prof/internal/experiment/env"

	"github.com/wgpu-prof/wgpu-prof/internal/report"
	"github.com/wgpu-prof/wgpu-prof/machine"
	"github.com/wgpu-prof/wgpu-prof/timing"
)

// Each side's ceiling fraction comes from its own roof: the GPU and CPU
// roofs differ 100×, so taking the other side's roof gives 100× off.
func TestCeilingFractionUsesItsOwnSide(t *testing.T) {
	var samples []float64
	for i := 0; i < 10; i++ {
		samples = append(samples, 1.0)
	}
	res := timing.Result{Host: timing.Summarize(samples)}
	roofs := Roofs{
		GPU: timing.Roof{PeakGFLOPs: 1000, BandwidthGBs: 100},
		CPU: timing.Roof{PeakGFLOPs: 10, BandwidthGBs: 1},
	}
	// 0.5 GB in 1 s at 0.01 FLOP/byte: memory-bound on both sides.
	for side, want := range map[string]float64{report.SideGPU: 0.5 / 100, report.SideCPU: 0.5 / 1} {
		m := Measurement("w", side, "v", nil, res, 0.5e9, 0.5e7, roofs)
		if math.Abs(m.CeilingFrac-want) > 1e-9*want {
			t.Errorf("%s: ceiling fraction %g, want %g (of its own roof)", side, m.CeilingFrac, want)
		}
	}
}

// powersOf4 lists each batch once, ending at the size.
func TestPowersOf4(t *testing.T) {
	for _, c := range []struct {
		from, to int
		want     []int
	}{
		{1, 16, []int{1, 4, 16}},
		{1, 64, []int{1, 4, 16, 64}},
		{1, 100, []int{1, 4, 16, 64, 100}},
		{0, 1, []int{1}},
		{256, 1000, []int{256, 1000}},
		{256, 1024, []int{256, 1024}},
		{5, 5, []int{5}},
	} {
		if got := PowersOf4(c.from, c.to); !reflect.DeepEqual(got, c.want) {
			t.Errorf("powersOf4(%d, %d) = %v, want %v", c.from, c.to, got, c.want)
		}
	}
}

// --budget and --target are range-checked: the target is a fraction in
// (0, 1), NaN and ±Inf refused.
func TestCheckMeasureRange(t *testing.T) {
	for _, c := range []struct {
		budget time.Duration
		target float64
		ok     bool
	}{
		{time.Second, 0.02, true}, {time.Millisecond, 0.999, true},
		{time.Second, 0, false}, {time.Second, 1, false}, {time.Second, -0.1, false}, {time.Second, 1.5, false},
		{time.Second, math.NaN(), false}, {time.Second, math.Inf(1), false},
		{0, 0.02, false}, {-time.Second, 0.02, false},
	} {
		if err := env.CheckMeasure(c.budget, c.target); (err == nil) != c.ok {
			t.Errorf("CheckMeasure(%v, %v) = %v, want ok = %v", c.budget, c.target, err, c.ok)
		}
	}
}

// The host-memory check refuses a plan past the memory budget (a share
// of MemAvailable, or --max-memory) and names the sizes, the need and the
// budget.
func TestCheckHostMemory(t *testing.T) {
	m := machine.Machine{L3: 32 << 20, Cores: 2, MemAvailable: 8 << 30}
	defer machine.Set(m)()
	if err := env.CheckHostMemory("--n 1", 1.5*(1<<30)); err != nil {
		t.Errorf("1.5 GiB in a 2 GiB budget refused: %v", err)
	}
	err := env.CheckHostMemory("--n 2", 3<<30)
	if err == nil || !env.IsUsage(err) {
		t.Fatalf("3 GiB in a 2 GiB budget (25%% of 8 GiB): err = %v", err)
	}
	for _, s := range []string{"--n 2", "3 GiB", "2 GiB", "8 GiB", "--max-memory"} {
		if !contains(err.Error(), s) {
			t.Errorf("%q does not name %q", err, s)
		}
	}
	m.MaxMemory = 1 << 30
	machine.Set(m)
	if err := env.CheckHostMemory("--n 3", 1.5*(1<<30)); err == nil || !contains(err.Error(), "1 GiB") {
		t.Errorf("1.5 GiB past --max-memory 1 GiB: err = %v", err)
	}
	machine.Set(machine.Machine{Cores: 2})
	if err := env.CheckHostMemory("--n 4", 1e30); err != nil {
		t.Errorf("unknown memory: %v", err)
	}
}

func contains(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}
