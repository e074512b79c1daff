package experiment

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/wgpu-prof/wgpu-prof/compute"
	"github.com/wgpu-prof/wgpu-prof/compute/wgpu"

	"github.com/wgpu-prof/wgpu-prof/internal/report"
	"github.com/wgpu-prof/wgpu-prof/internal/workload"
	"github.com/wgpu-prof/wgpu-prof/timing"
)

// plantedSide is a side whose call takes d and whose result is right
// unless wrong is set; runs counts its calls.
func plantedSide(d time.Duration, wrong bool, runs *int) workload.GPUBuilder {
	return plantedBuilder{d: d, wrong: wrong, runs: runs}
}

type plantedBuilder struct {
	d     time.Duration
	wrong bool
	runs  *int
}

func (b plantedBuilder) BuildGPU(workload.GPU) (workload.Side, error) {
	return &planted{d: b.d, wrong: b.wrong, runs: b.runs}, nil
}

// failingBuilder is a GPU side whose build fails with err.
type failingBuilder struct{ err error }

func (f failingBuilder) BuildGPU(workload.GPU) (workload.Side, error) { return nil, f.err }

type planted struct {
	d     time.Duration
	wrong bool
	runs  *int
	out   float64
}

func (p *planted) Poison() { p.out = -1 }

func (p *planted) Run() (timing.Sample, error) {
	*p.runs++
	p.out = 1
	return timing.Sample{Host: p.d, Kernel: p.d, HasKernel: true}, nil
}

func (p *planted) Verify() error {
	if p.wrong || p.out != 1 {
		return errors.New("planted mismatch")
	}
	return nil
}

func (p *planted) Close() {}

// The autotune picks the planted faster variant, names the runner-up and
// the margin, and skips a variant that fails verification with a warning,
// after its one verification call (never timed) — even when that variant
// would be the fastest.
func TestAutotunePicksPlantedFasterAndSkipsWrong(t *testing.T) {
	var slowRuns, fastRuns, wrongRuns int
	cands := []variantCandidate{
		{name: "slow", label: "slow-wg64", side: plantedSide(4*time.Millisecond, false, &slowRuns)},
		{name: "wrong", label: "wrong-wg64", side: plantedSide(time.Microsecond, true, &wrongRuns)},
		{name: "fast", label: "fast-wg64", side: plantedSide(time.Millisecond, false, &fastRuns)},
	}
	var warns []string
	ch, err := autotune("planted", cands, autotuneCalls, func(s string) { warns = append(warns, s) })
	if err != nil {
		t.Fatal(err)
	}
	if ch.Chosen != "fast" || ch.RunnerUp != "slow-wg64" || ch.Margin < 3.9 || ch.Margin > 4.1 {
		t.Fatalf("chose %q, runner-up %q, margin %.2f; want fast, slow-wg64, 4", ch.Chosen, ch.RunnerUp, ch.Margin)
	}
	if wrongRuns != 1 {
		t.Fatalf("the wrong variant ran %d times; want 1 (verification only, never timed)", wrongRuns)
	}
	if fastRuns != 1+autotuneCalls || slowRuns != 1+autotuneCalls {
		t.Fatalf("timed variants ran %d and %d times; want %d", fastRuns, slowRuns, 1+autotuneCalls)
	}
	if len(warns) != 1 || !strings.Contains(warns[0], "wrong-wg64") || !strings.Contains(warns[0], "skipped") {
		t.Fatalf("warnings %q: want one naming the skipped variant", warns)
	}
	for _, vt := range ch.Times {
		if vt.Variant == "wrong" && (vt.Seconds != 0 || vt.Skipped == "") {
			t.Fatalf("wrong variant recorded as %+v", vt)
		}
	}
	if s := ch.Summary(); !strings.Contains(s, "fast-wg64") || !strings.Contains(s, "runner-up slow-wg64") {
		t.Fatalf("summary %q must name the chosen variant and the runner-up", s)
	}
	// Every variant wrong: an error, nothing chosen.
	wrongRuns = 0
	if _, err := autotune("all wrong", cands[1:2], autotuneCalls, func(string) {}); !errors.Is(err, ErrWrongResult) {
		t.Fatalf("all variants wrong: %v", err)
	}
}

// The cache round-trips through the user cache directory.
func TestVariantCacheRoundTrip(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Setenv("HOME", t.TempDir())
	c := variantCache{"k": {Workload: "w", Shape: "n=1", Chosen: "fast", RunnerUp: "slow", Margin: 2}}
	if err := c.save(); err != nil {
		t.Fatal(err)
	}
	got := loadVariantCache()
	if got["k"].Chosen != "fast" || got["k"].Margin != 2 {
		t.Fatalf("cache read back %+v", got)
	}
}

// A selection cached before a design gained a kernel is not served after:
// the key names the kernels' revision.
func TestVariantKeyNamesKernelRevision(t *testing.T) {
	w := *workload.CosineBatch
	k, wgs := workload.Knobs{}, []int{64}
	now := variantKeySuffix(&w, k, wgs)
	w.KernelRev = 0
	if before := variantKeySuffix(&w, k, wgs); before == now || !strings.Contains(now, "|rev=") {
		t.Fatalf("key %q at revision %d, %q at 0: want them to differ", now, workload.CosineBatch.KernelRev, before)
	}
}

// A GPU row above 105% of the run's read ceiling is reported as the
// ceiling under-measured; rows at or under it are not; CPU rows are not
// compared with the GPU ceiling.
func TestCheckUnderCeiling(t *testing.T) {
	rep := &report.Report{Measurements: []report.Measurement{
		{Workload: "a", Side: report.SideGPU, Variant: "x", GBs: 1.0},
		{Workload: "b", Side: report.SideCPU, Variant: "y", GBs: 50},
	}}
	if s := CheckUnderCeiling(rep, 1.0); len(rep.Warnings) != 0 || len(s) != 1 || !strings.Contains(s[0], "no GPU kernel above 105%") {
		t.Fatalf("at 100%%: warnings %q, summary %q", rep.Warnings, s)
	}
	rep.Measurements = append(rep.Measurements, report.Measurement{Workload: "c", Side: report.SideGPU, Variant: "z", GBs: 1.06})
	s := CheckUnderCeiling(rep, 1.0)
	if len(rep.Warnings) != 1 || !strings.Contains(rep.Warnings[0], "under-measured") || !strings.Contains(rep.Warnings[0], "c z") {
		t.Fatalf("at 106%%: warnings %q", rep.Warnings)
	}
	if len(s) != 1 || !strings.Contains(s[0], "under-measured") {
		t.Fatalf("at 106%%: summary %q", s)
	}
}

// One design at several workgroup sizes: the faster size is chosen with
// the design, a size the design refuses is recorded but not warned about
// (quiet), and the summary names the chosen configuration.
func TestAutotuneChoosesWorkgroup(t *testing.T) {
	var a, b, c int
	cands := []variantCandidate{
		{name: "rows", label: "rows-wg64", wg: 64, side: plantedSide(3*time.Millisecond, false, &a)},
		{name: "rows", label: "rows-wg128", wg: 128, side: plantedSide(time.Millisecond, false, &b)},
		{name: "rows", label: "rows-wg256", wg: 256, quiet: true, side: plantedSide(time.Microsecond, true, &c)},
	}
	var warns []string
	ch, err := autotune("planted", cands, autotuneCalls, func(s string) { warns = append(warns, s) })
	if err != nil {
		t.Fatal(err)
	}
	if ch.Chosen != "rows" || ch.Workgroup != 128 || ch.RunnerUp != "rows-wg64" {
		t.Fatalf("chose %q wg %d, runner-up %q; want rows wg 128, rows-wg64", ch.Chosen, ch.Workgroup, ch.RunnerUp)
	}
	if len(warns) != 0 {
		t.Fatalf("a quiet candidate's failure was warned about: %q", warns)
	}
	if len(ch.Times) != 3 || ch.Times[2].Skipped == "" || ch.Times[2].Workgroup != 256 {
		t.Fatalf("times %+v: want all three, the wg256 one skipped", ch.Times)
	}
	if s := ch.Summary(); !strings.Contains(s, "rows-wg128 chosen") {
		t.Fatalf("summary %q must name the chosen configuration", s)
	}
}

// A design the adapter lacks a feature for is recorded as not offered
// (no warning), one that does not compile is reported with the compiler's
// message and as such, and when no design runs the error is ErrNoVariant
// with each reason — never a verification failure; canSkip lets the suite
// go on. A design that ran and failed verification stays ErrWrongResult.
func TestAutotuneUnsupportedAndCompileErrorsAreNotWrongResults(t *testing.T) {
	unsupported := failingBuilder{fmt.Errorf("a subgroup per row: cosine_single_subgroup needs subgroups, which llvmpipe (gl) lacks: %w", compute.ErrUnsupported)}
	noCompile := failingBuilder{fmt.Errorf("wgpu: CreateShaderModule: %w", &wgpu.ShaderError{Label: "k", Line: 3, Column: 7, Message: "unknown builtin subgroup_id"})}
	var warns []string
	cands := []variantCandidate{
		{name: "subgroup", label: "subgroup-wg64", side: unsupported},
		{name: "broken", label: "broken-wg64", side: noCompile},
	}
	ch, err := autotune("planted", cands, autotuneCalls, func(s string) { warns = append(warns, s) })
	if !errors.Is(err, ErrNoVariant) || errors.Is(err, ErrWrongResult) || !CanSkip(err) {
		t.Fatalf("err = %v, want ErrNoVariant (skippable), not ErrWrongResult", err)
	}
	for _, want := range []string{"subgroup-wg64 not offered", "needs subgroups", "broken-wg64 does not compile", "unknown builtin subgroup_id"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if len(warns) != 1 || !strings.Contains(warns[0], "broken-wg64 skipped (does not compile)") {
		t.Errorf("warnings %q: want one, for the design that does not compile", warns)
	}
	if len(ch.Times) != 2 || !strings.HasPrefix(ch.Times[0].Skipped, "not offered: ") || !strings.HasPrefix(ch.Times[1].Skipped, "does not compile: ") {
		t.Errorf("recorded %+v", ch.Times)
	}
	var runs int
	cands = append(cands, variantCandidate{name: "wrong", label: "wrong-wg64", side: plantedSide(time.Microsecond, true, &runs)})
	if _, err := autotune("planted", cands, autotuneCalls, func(string) {}); !errors.Is(err, ErrWrongResult) || CanSkip(err) {
		t.Errorf("with a wrong result: err = %v, want ErrWrongResult (not skippable)", err)
	}
	var ok int
	cands = append(cands, variantCandidate{name: "good", label: "good-wg64", side: plantedSide(time.Microsecond, false, &ok)})
	if ch, err := autotune("planted", cands, autotuneCalls, func(string) {}); err != nil || ch.Chosen != "good" {
		t.Errorf("with one good design: chose %q, err %v", ch.Chosen, err)
	}
}
