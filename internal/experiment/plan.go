package experiment

import (
	"fmt"
	"math"
	"os"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/google/pprof/profile"

	"github.com/wgpu-prof/wgpu-prof/internal/report"
	"github.com/wgpu-prof/wgpu-prof/internal/workload"
	"github.com/wgpu-prof/wgpu-prof/timing"
)

// PlanOp is one operation of an application to consider for the GPU:
// the functions of its CPU profile that implement it (a regular
// expression over function names), the built-in workload that does the
// same work, and optionally the batch sizes the application calls it
// with.
type PlanOp struct {
	Regex    *regexp.Regexp
	Workload string
	Mix      *BatchMix
}

// ParsePlanOp parses REGEX=WORKLOAD[@MIXFILE] (wgpu-prof plan --op): the
// last '=' splits the expression from the workload, so the expression may
// hold '='.
func ParsePlanOp(s string) (PlanOp, error) {
	bad := func(format string, args ...any) error {
		return &ParamError{Name: "op", Value: fmt.Sprintf("%q", s), Limit: fmt.Sprintf(format, args...)}
	}
	i := strings.LastIndex(s, "=")
	if i <= 0 || i == len(s)-1 {
		return PlanOp{}, bad("want REGEX=WORKLOAD[@MIXFILE], e.g. 'main\\.similarity$=cosine-single'")
	}
	re, err := regexp.Compile(s[:i])
	if err != nil {
		return PlanOp{}, bad("%v", err)
	}
	name, mixFile, hasMix := strings.Cut(s[i+1:], "@")
	if _, err := workload.Lookup(name); err != nil {
		return PlanOp{}, bad("%v", err)
	}
	op := PlanOp{Regex: re, Workload: name}
	if hasMix {
		m, err := ParseBatchMix(mixFile)
		if err != nil {
			return PlanOp{}, err
		}
		op.Mix = &m
	}
	return op, nil
}

// ProfileShare is an operation's part of a CPU profile.
type ProfileShare struct {
	// Value is the sum of the sample values (CPU time) of the samples with
	// a matching function anywhere on their stack, each sample counted once
	// (the cumulative figure of pprof -cum); Samples counts those samples.
	Value, Samples int64
	// Functions are the matching function names seen, sorted.
	Functions []string
}

// ProfileShares reads a pprof profile (Go's runtime/pprof or any writer
// of the format) and returns, for each expression, its cumulative share of
// the profile's total over the sample type CPU time is in ("cpu", else
// the last type), and that total with its unit.
func ProfileShares(path string, res []*regexp.Regexp) (shares []ProfileShare, total int64, unit string, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, "", &ParamError{Name: "pprof", Value: path, Limit: err.Error()}
	}
	defer f.Close()
	p, err := profile.Parse(f)
	if err != nil {
		return nil, 0, "", &ParamError{Name: "pprof", Value: path, Limit: "not a pprof profile: " + err.Error()}
	}
	if len(p.SampleType) == 0 || len(p.Sample) == 0 {
		return nil, 0, "", &ParamError{Name: "pprof", Value: path, Limit: "the profile has no samples"}
	}
	idx, cnt := len(p.SampleType)-1, -1
	for i, st := range p.SampleType {
		switch {
		case st.Type == "cpu":
			idx = i
		case st.Type == "samples" && st.Unit == "count":
			cnt = i
		}
	}
	unit = p.SampleType[idx].Type + "/" + p.SampleType[idx].Unit
	shares = make([]ProfileShare, len(res))
	seen := make([]map[string]bool, len(res))
	for i := range seen {
		seen[i] = map[string]bool{}
	}
	for _, s := range p.Sample {
		v := s.Value[idx]
		total += v
		for i, re := range res {
			hit := false
			for _, loc := range s.Location {
				for _, ln := range loc.Line {
					if ln.Function != nil && re.MatchString(ln.Function.Name) {
						hit = true
						seen[i][ln.Function.Name] = true
					}
				}
			}
			if hit {
				shares[i].Value += v
				// A pprof Sample is a stack with its counts: the "samples"
				// value counts the samples taken there.
				if cnt >= 0 {
					shares[i].Samples += s.Value[cnt]
				} else {
					shares[i].Samples++
				}
			}
		}
	}
	if total <= 0 {
		return nil, 0, "", &ParamError{Name: "pprof", Value: path, Limit: "the profile's samples sum to zero"}
	}
	for i := range shares {
		for name := range seen[i] {
			shares[i].Functions = append(shares[i].Functions, name)
		}
		sort.Strings(shares[i].Functions)
	}
	return shares, total, unit, nil
}

// MinPortShare is the share of CPU time below which an operation is not
// worth porting whatever its speedup.
const MinPortShare = 0.05

// PlanInput is what Plan decides from: the profile's shares and, per
// operation, the end-to-end CPU-vs-GPU break-even of its workload.
type PlanInput struct {
	Profile string
	Ops     []PlanOp
	Shares  []ProfileShare
	Total   int64
	Unit    string
	// BreakEvens[i] is op i's break-even (side A the CPU, B the GPU).
	BreakEvens []report.BreakEven
	// Sizes[i] are op i's batch sizes when it has no mix (one call each).
	Sizes [][]int
}

// Plan builds the decision matrix: per operation its share of CPU time,
// the batch sizes, the CPU and GPU time per call at those sizes from the
// break-even's models, the speedup of routing the calls at the measured
// crossover, the verdict and its reason, ranked by the share of
// application time it saves (the operations not ported after, by share); then the application's speedup by Amdahl's
// law for each operation and for all ported together.
func Plan(in PlanInput) report.Plan {
	pl := report.Plan{Profile: in.Profile, TotalSamples: in.Total, Unit: in.Unit, MinShare: MinPortShare}
	ported := 0.0
	for i, op := range in.Ops {
		be := in.BreakEvens[i]
		mix := op.Mix
		if mix == nil {
			m := BatchMix{File: "", Sizes: in.Sizes[i]}
			for range m.Sizes {
				m.Counts = append(m.Counts, 1)
			}
			mix = &m
		}
		share := float64(in.Shares[i].Value) / float64(in.Total)
		r := MixOf(be, *mix)
		po := report.PlanOp{
			Regex: op.Regex.String(), Workload: op.Workload, Functions: in.Shares[i].Functions,
			Share: share, Samples: in.Shares[i].Samples, Sizes: mix.Sizes, Counts: mix.Counts, MixFile: mix.File,
			Speedup: r.Speedup, SpeedupLo: r.SpeedupLo, SpeedupHi: r.SpeedupHi, Mix: &r,
		}
		for _, n := range mix.Sizes {
			po.CPUPerCall = append(po.CPUPerCall, be.ModelA.At(float64(n)))
			po.GPUPerCall = append(po.GPUPerCall, be.ModelB.At(float64(n)))
		}
		lo, hi := be.ModelA.Range()
		blo, bhi := be.ModelB.Range()
		po.ValidFrom, po.ValidTo = math.Max(lo, blo), math.Min(hi, bhi)
		po.Basis = "models of the break-even measured over n = " + fmt.Sprintf("%.0f … %.0f", po.ValidFrom, po.ValidTo)
		if r.Outside > 0 {
			po.Basis += fmt.Sprintf(" (%d size(s) outside it, extrapolated)", r.Outside)
		}
		gpuEver := false
		if be.Search != nil {
			for _, p := range be.Search.Points {
				gpuEver = gpuEver || p.Faster == timing.FasterB
			}
		}
		switch {
		case share < MinPortShare:
			po.Verdict, po.Reason = "do not port", fmt.Sprintf("share below %.0f%%: not worth the work", 100*MinPortShare)
		case r.ShareAbove == 0 && !gpuEver:
			po.Verdict, po.Reason = "do not port", "GPU never faster on this adapter (at any measured size)"
		case r.ShareAbove == 0:
			po.Verdict, po.Reason = "do not port", fmt.Sprintf("GPU faster only from n = %d, above every call of this mix", be.Search.Hi)
		case r.Speedup <= 1:
			po.Verdict, po.Reason = "do not port", "no gain on this mix"
		case r.Crossover > 0 && r.ShareAbove < 1:
			po.Verdict = fmt.Sprintf("port above n = %.0f", r.Crossover)
			po.Reason = fmt.Sprintf("%.0f%% of calls at or above the crossover; %.2f× on this mix", 100*r.ShareAbove, r.Speedup)
			po.Ported = true
		default:
			po.Verdict, po.Reason = "port", fmt.Sprintf("every call of this mix on the GPU side of the crossover; %.2f× on them", r.Speedup)
			po.Ported = true
		}
		po.AppSpeedup = amdahl(share, r.Speedup)
		po.Return = share * (1 - 1/math.Max(r.Speedup, 1e-300))
		if po.Ported {
			ported += share / r.Speedup
			pl.PortedShare += share
		}
		pl.Ops = append(pl.Ops, po)
	}
	// Ported operations first, by the share of application time they
	// save; then the others by their share of CPU time.
	sort.SliceStable(pl.Ops, func(i, j int) bool {
		a, b := pl.Ops[i], pl.Ops[j]
		switch {
		case a.Ported != b.Ported:
			return a.Ported
		case a.Ported:
			return a.Return > b.Return
		}
		return a.Share > b.Share
	})
	pl.AppSpeedup = 1 / ((1 - pl.PortedShare) + ported)
	return pl
}

// amdahl is 1/((1 − s) + s/k).
func amdahl(s, k float64) float64 {
	if k <= 0 {
		return 1
	}
	return 1 / ((1 - s) + s/k)
}

// PlanLines is the plan in words, verdicts first.
func PlanLines(pl report.Plan) []string {
	var out []string
	for _, op := range pl.Ops {
		out = append(out, fmt.Sprintf("%s (%s = %s): %s: %s", op.Regex, op.Workload, fmtShare(op.Share), op.Verdict, op.Reason))
	}
	out = append(out, fmt.Sprintf("application: %.2f× with the ported operations (%.0f%% of CPU time) on the GPU (Amdahl: 1/((1 − %.3f) + Σ share/speedup))",
		pl.AppSpeedup, 100*pl.PortedShare, pl.PortedShare))
	for _, op := range pl.Ops {
		sizes := fmt.Sprint(op.Sizes)
		if op.MixFile != "" {
			sizes = fmt.Sprintf("mix %s (%d sizes, %d to %d)", op.MixFile, len(op.Sizes), op.Sizes[0], op.Sizes[len(op.Sizes)-1])
		}
		fns := strings.Join(op.Functions, ", ")
		if fns == "" {
			fns = "no function matched"
		}
		out = append(out, fmt.Sprintf("  %s: %s of CPU time (%d samples; %s), batch sizes %s, speedup on them %.2f× (95%% CI %.2f … %.2f), application %.2f× if ported alone; %s",
			op.Workload, fmtShare(op.Share), op.Samples, fns, sizes, op.Speedup, op.SpeedupLo, op.SpeedupHi, op.AppSpeedup, op.Basis))
	}
	return out
}

func fmtShare(s float64) string { return fmt.Sprintf("%.1f%%", 100*s) }

// PlanBreakEven returns the end-to-end CPU-vs-GPU (data resident)
// break-even of workload in rep with both models, if rep has one.
func PlanBreakEven(rep *report.Report, workload string) (report.BreakEven, bool) {
	if rep == nil {
		return report.BreakEven{}, false
	}
	for _, be := range rep.BreakEvens {
		if be.Workload != workload || be.Clock != "end-to-end" || be.ModelA == nil || be.ModelB == nil || len(be.ModelA.Segments) == 0 || len(be.ModelB.Segments) == 0 {
			continue
		}
		if len(be.Sides) == 0 || (len(be.Sides) == 2 && be.Sides[0] == "cpu" && be.Sides[1] == "gpu") {
			return be, true
		}
	}
	return report.BreakEven{}, false
}

// InRange reports whether every size lies inside the range both of be's
// models were fitted on.
func InRange(be report.BreakEven, sizes []int) bool {
	lo, hi := be.ModelA.Range()
	blo, bhi := be.ModelB.Range()
	lo, hi = math.Max(lo, blo), math.Min(hi, bhi)
	for _, n := range sizes {
		if float64(n) < lo || float64(n) > hi {
			return false
		}
	}
	return true
}

// DefaultBatch is the batch size of workload's calls at cfg's sizes (the
// size run measures), for an operation given no batch mix.
func DefaultBatch(cfg RunConfig, name string) (int, error) {
	w, err := workload.Lookup(name)
	if err != nil {
		return 0, err
	}
	c := cfg.Config
	c.Defaults()
	if bp := w.BatchParam(); bp != nil && bp.Int(&c) != nil {
		return *bp.Int(&c), nil
	}
	return c.N, nil
}

// MeasurePlanBreakEven measures the end-to-end CPU-vs-GPU break-even of
// workload at cfg's sizes reaching the largest size of mix (nil: the
// default size), into rep, and returns it.
func (e *Env) MeasurePlanBreakEven(cfg RunConfig, name string, mix *BatchMix, budget time.Duration, rep *report.Report) (report.BreakEven, error) {
	cfg.Workloads = []string{name}
	cpu, _ := ParseSide("cpu")
	gpu, _ := ParseSide("gpu")
	sc := SearchConfig{Comparisons: [][2]SideSpec{{cpu, gpu}}, Mix: mix, Budget: budget}
	if err := e.BreakEvenSearch(cfg, sc, rep); err != nil {
		return report.BreakEven{}, err
	}
	be, ok := PlanBreakEven(rep, name)
	if !ok {
		return report.BreakEven{}, fmt.Errorf("%s: the break-even has no models", name)
	}
	return be, nil
}
