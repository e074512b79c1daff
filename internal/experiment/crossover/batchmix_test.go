package crossover

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wgpu-prof/wgpu-prof/internal/experiment/env"

	"github.com/wgpu-prof/wgpu-prof/timing"
)

func TestParseBatchMix(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "mix.txt")
	os.WriteFile(p, []byte("# logged\n16\n16\n256 3 # pairs\n\n4096 0\n64 2\n"), 0o644)
	m, err := ParseBatchMix(p)
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Sizes; len(got) != 3 || got[0] != 16 || got[1] != 64 || got[2] != 256 || m.Counts[0] != 2 || m.Counts[2] != 3 || m.Calls() != 7 {
		t.Fatalf("got %+v", m)
	}
	for _, c := range []struct{ text, want string }{
		{"16\n0\n", "line 2: size \"0\""},
		{"16 -1\n", "count \"-1\""},
		{"16 2 3\n", "line 1"},
		{"# nothing\n", "no calls"},
		{"abc\n", "size \"abc\""},
	} {
		os.WriteFile(p, []byte(c.text), 0o644)
		_, err := ParseBatchMix(p)
		var pe *env.ParamError
		if err == nil || !strings.Contains(err.Error(), c.want) || !asParam(err, &pe) || pe.Name != "batch-mix" {
			t.Errorf("%q: got %v, want a batch-mix error containing %q", c.text, err, c.want)
		}
	}
}

func asParam(err error, pe **env.ParamError) bool {
	p, ok := err.(*env.ParamError)
	*pe = p
	return ok
}

// line is a one-segment model t = a + b·n with standard errors.
func line(a, b, sea, seb float64) timing.Model {
	f := timing.LinearFit{Overhead: a, PerItem: b, SEOverhead: sea, SEPerItem: seb}
	return timing.Model{Segments: []timing.Segment{{From: 1, To: 1 << 20, Fit: f}}, Single: f}
}

// A mix priced by hand: CPU 1 µs + 1 ns·n, GPU 50 µs + 0.1 ns·n, routed
// at n = 65536: half the calls at 1,000 (CPU), half at 1,000,000 (GPU).
func TestEvalMix(t *testing.T) {
	mix := BatchMix{File: "m", Sizes: []int{1000, 1_000_000}, Counts: []int64{5, 5}}
	cpu, gpu := line(1e-6, 1e-9, 0, 0), line(50e-6, 1e-10, 0, 0)
	r := EvalMix(mix, cpu, gpu, 65536, [2]string{"cpu", "gpu"})
	tc := 500*(1e-6+1e-6) + 500*(1e-6+1e-3)
	tg := 500*(50e-6+1e-7) + 500*(50e-6+1e-4)
	tr := 500*(1e-6+1e-6) + 500*(50e-6+1e-4)
	near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }
	if !near(r.PerThousandA, tc) || !near(r.PerThousandB, tg) || !near(r.PerThousandRouted, tr) || r.ShareAbove != 0.5 {
		t.Fatalf("got %+v, want %g %g %g", r, tc, tg, tr)
	}
	if !near(r.Saving, 1-tr/tc) || !near(r.Speedup, tc/tr) {
		t.Errorf("saving %v speedup %v", r.Saving, r.Speedup)
	}
	// With exact fits the interval collapses on the value; with uncertain
	// ones it holds it and widens.
	if !near(r.SavingLo, r.Saving) || !near(r.SavingHi, r.Saving) {
		t.Errorf("exact fits: CI %v … %v around %v", r.SavingLo, r.SavingHi, r.Saving)
	}
	u := EvalMix(mix, line(1e-6, 1e-9, 1e-7, 1e-10), line(50e-6, 1e-10, 5e-6, 1e-11), 65536, [2]string{"cpu", "gpu"})
	if !(u.SavingLo < u.Saving && u.Saving < u.SavingHi) || !(u.SpeedupLo < u.Speedup && u.Speedup < u.SpeedupHi) {
		t.Errorf("uncertain fits: saving %v (%v … %v), speedup %v (%v … %v)", u.Saving, u.SavingLo, u.SavingHi, u.Speedup, u.SpeedupLo, u.SpeedupHi)
	}
	none := EvalMix(mix, cpu, gpu, math.Inf(1), [2]string{"cpu", "gpu"})
	if none.Saving != 0 || none.ShareAbove != 0 || !strings.Contains(none.Route, "no call") {
		t.Errorf("never routed: %+v", none)
	}
}
