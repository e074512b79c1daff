package plan

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/wgpu-prof/wgpu-prof/internal/experiment"
	"github.com/wgpu-prof/wgpu-prof/internal/experiment/crossover"
	"github.com/wgpu-prof/wgpu-prof/internal/experiment/env"

	"github.com/google/pprof/profile"

	"github.com/wgpu-prof/wgpu-prof/internal/report"
	"github.com/wgpu-prof/wgpu-prof/internal/workload"
	"github.com/wgpu-prof/wgpu-prof/timing"
)

// Op is one operation of an application to consider for the GPU:
// the functions of its CPU profile that implement it (a regular
// expression over function names), the built-in workload that does the
// same work, and optionally the batch sizes the application calls it
// with, its number of calls during the profile and its own data files.
type Op struct {
	Regex    *regexp.Regexp
	Workload string
	Mix      *crossover.BatchMix
	// Calls is the operation's number of calls during the profile (0:
	// the mix file's counts, or unknown).
	Calls int64
	// Files are the operation's own data files by parameter (vectors,
	// queries, graph), in place of the command's.
	Files map[string]string
	// Precision is the stored precision the port assumes (f32, f16,
	// int8; "": the command's --precision): the break-even and the
	// decision are of that precision's kernels on both sides.
	Precision string
}

// planOpFiles are the data-file parameters an --op may carry.
var planOpFiles = []string{"vectors", "queries", "graph"}

// ParseOp parses REGEX=WORKLOAD[@MIXFILE][,calls=N][,precision=P]
// [,vectors=FILE][,queries=FILE][,graph=FILE] (wgpu-prof plan --op): the expression ends
// at the last '=' followed by a workload's name, so it may hold '=' and
// ','.
func ParseOp(s string) (Op, error) {
	bad := func(format string, args ...any) error {
		return &env.ParamError{Name: "op", Value: fmt.Sprintf("%q", s), Limit: fmt.Sprintf(format, args...)}
	}
	i := -1
	for k := len(s) - 1; k > 0; k-- {
		if s[k] != '=' {
			continue
		}
		rest := s[k+1:]
		name := rest[:strings.IndexAny(rest+",@", ",@")]
		if _, err := workload.Lookup(name); err == nil {
			i = k
			break
		}
		if i < 0 && !strings.Contains(s[:k], "=") {
			i = k // the only '=': report the unknown workload
		}
	}
	if i <= 0 || i == len(s)-1 {
		return Op{}, bad("want REGEX=WORKLOAD[@MIXFILE][,calls=N][,vectors=FILE][,queries=FILE][,graph=FILE], e.g. 'main\\.similarity$=cosine-single'")
	}
	re, err := regexp.Compile(s[:i])
	if err != nil {
		return Op{}, bad("%v", err)
	}
	parts := strings.Split(s[i+1:], ",")
	name, mixFile, hasMix := strings.Cut(parts[0], "@")
	if _, err := workload.Lookup(name); err != nil {
		return Op{}, bad("%v", err)
	}
	op := Op{Regex: re, Workload: name}
	for _, kv := range parts[1:] {
		k, v, ok := strings.Cut(kv, "=")
		switch {
		case !ok || v == "":
			return Op{}, bad("%q: want KEY=VALUE (calls, %s)", kv, strings.Join(planOpFiles, ", "))
		case k == "calls":
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n <= 0 {
				return Op{}, bad("calls=%s: want a positive integer (the operation's calls during the profile)", v)
			}
			op.Calls = n
		case k == "precision":
			if !slices.Contains(workload.Precisions, v) {
				return Op{}, bad("precision=%s: want one of %s", v, strings.Join(workload.Precisions, ", "))
			}
			op.Precision = v
		case slices.Contains(planOpFiles, k):
			if op.Files == nil {
				op.Files = map[string]string{}
			}
			op.Files[k] = v
		default:
			return Op{}, bad("%q: unknown option (calls, precision, %s)", k, strings.Join(planOpFiles, ", "))
		}
	}
	if hasMix {
		m, err := crossover.ParseBatchMix(mixFile)
		if err != nil {
			return Op{}, err
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
		return nil, 0, "", &env.ParamError{Name: "pprof", Value: path, Limit: err.Error()}
	}
	defer f.Close()
	p, err := profile.Parse(f)
	if err != nil {
		return nil, 0, "", &env.ParamError{Name: "pprof", Value: path, Limit: "not a pprof profile: " + err.Error()}
	}
	if len(p.SampleType) == 0 || len(p.Sample) == 0 {
		return nil, 0, "", &env.ParamError{Name: "pprof", Value: path, Limit: "the profile has no samples"}
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
		return nil, 0, "", &env.ParamError{Name: "pprof", Value: path, Limit: "the profile's samples sum to zero"}
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

// WrongMappingRatio: an operation whose own time per call and the tool's
// CPU kernel's differ by more than this factor is likely mapped to the
// wrong workload or sizes.
const WrongMappingRatio = 10

// Input is what Plan decides from: the profile's shares and, per
// operation, the end-to-end CPU-vs-GPU break-even of its workload.
type Input struct {
	Profile string
	Ops     []Op
	Shares  []ProfileShare
	Total   int64
	Unit    string
	// BreakEvens[i] is op i's break-even (side A the CPU, B the GPU).
	BreakEvens []report.BreakEven
	// Kernels[i] is op i's kernel-clock break-even (nil or absent: none,
	// the device has no timestamps).
	Kernels []*report.BreakEven
	// Sizes[i] are op i's batch sizes when it has no mix (one call each).
	Sizes [][]int
	// IO[i] is the bytes op i's calls move (absent: none counted).
	IO []CallIO
	// Rows are the measurements behind the break-evens (the GPU rows'
	// roofline bounds).
	Rows []report.Measurement
	// Taxes are the GPU's launch tax and transfer rates (nil: unknown).
	Taxes *GPUTaxes
	// GPURoof is the GPU's read and FMA ceilings the rows not judged yet
	// are placed under (nil: unknown); GPUInt8GOPs its int8 dot-product
	// peak (report.Int8PeakKey, 0: unknown), the compute roof of an int8
	// operation's rows.
	GPURoof     *timing.Roof
	GPUInt8GOPs float64
	// Transfer is TransferOnce (default) or TransferPerCall.
	Transfer string
	// MinSpeedup is the least speedup on an operation's calls for which
	// it is ported (default 1: any gain).
	MinSpeedup float64
}

// Decide builds the decision matrix: per operation its share of CPU time,
// the application's own time per call beside the tool's CPU kernel and
// the GPU's time in parts (kernel, launch tax, transfer tax), the
// speedup of routing its calls to the GPU where the GPU beats its own
// code, the GPU verdict (port, port above n = X, do not port) and the
// largest win (keep, the host SIMD kernel, the GPU, route by size), each
// with its reason, ranked by the share of application time the port
// saves (the operations not ported after, by share); then the program
// summary with the application's speedup by Amdahl's law.
func Decide(in Input) report.Plan {
	minSp := in.MinSpeedup
	if minSp <= 0 {
		minSp = 1
	}
	transfer := in.Transfer
	if transfer == "" {
		transfer = TransferOnce
	}
	pl := report.Plan{Profile: in.Profile, TotalSamples: in.Total, Unit: in.Unit, MinShare: MinPortShare}
	ported := 0.0
	for i, op := range in.Ops {
		po := planOp(in, i, op, minSp, transfer)
		if po.Ported {
			ported += po.Share / po.Speedup
			pl.PortedShare += po.Share
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
	pl.Summary = planSummary(pl, in, minSp, transfer)
	if t := in.Taxes; t != nil {
		pl.Taxes = &report.PlanTaxes{Launch: t.Launch, Upload: t.Upload, Readback: t.Readback, Source: t.Source}
	}
	return pl
}

// planOp prices and judges operation i.
// roofOf is the GPU roof an operation in precision prec is placed under:
// GPURoof, with the int8 dot-product peak as its compute roof for int8.
func (in Input) roofOf(prec string) *timing.Roof {
	if in.GPURoof == nil || prec != workload.PrecisionInt8 || !(in.GPUInt8GOPs > 0) {
		return in.GPURoof
	}
	r := *in.GPURoof
	r.PeakGFLOPs = in.GPUInt8GOPs
	return &r
}

func planOp(in Input, i int, op Op, minSp float64, transfer string) report.PlanOp {
	be := in.BreakEvens[i]
	mix := op.Mix
	if mix == nil {
		m := crossover.BatchMix{File: "", Sizes: in.Sizes[i]}
		for range m.Sizes {
			m.Counts = append(m.Counts, 1)
		}
		mix = &m
	}
	share := float64(in.Shares[i].Value) / float64(in.Total)
	po := report.PlanOp{
		Regex: op.Regex.String(), Workload: op.Workload, Functions: in.Shares[i].Functions,
		Share: share, Samples: in.Shares[i].Samples, Sizes: mix.Sizes, Counts: mix.Counts, MixFile: mix.File,
	}
	if op.Precision != "" && op.Precision != workload.PrecisionF32 {
		po.Precision = op.Precision
	}
	for _, n := range mix.Sizes {
		po.CPUPerCall = append(po.CPUPerCall, be.ModelA.At(float64(n)))
		po.GPUPerCall = append(po.GPUPerCall, be.ModelB.At(float64(n)))
	}
	lo, hi := be.ModelA.Range()
	blo, bhi := be.ModelB.Range()
	po.ValidFrom, po.ValidTo = math.Max(lo, blo), math.Min(hi, bhi)
	po.Basis = "models of the break-even measured over n = " + fmt.Sprintf("%.0f … %.0f", po.ValidFrom, po.ValidTo)

	c := costsOf(in, i, op, *mix, share, transfer, &po)
	// Against the tool's CPU kernel (no call count) the GPU's calls are
	// routed at the measured crossover; against the application's own
	// code, where the GPU's model beats it.
	var r report.MixResult
	if po.CallsFrom == "" {
		r = crossover.MixOf(be, *mix)
		if transfer == TransferPerCall {
			// The same route, priced with the data shipped every call.
			cross := mixCross(r)
			if cross < 0 {
				cross = math.Inf(1)
			}
			r = crossover.EvalMix(*mix, c.ownModel, c.gpu, cross, [2]string{"cpu", "gpu"})
		}
	} else {
		r = crossover.EvalMix(*mix, c.ownModel, c.gpu, ownCrossover(*mix, c.ownModel, c.gpu), [2]string{"own", "gpu"})
	}
	if r.Outside > 0 {
		po.Basis += fmt.Sprintf(" (%d size(s) outside it, extrapolated)", r.Outside)
	}
	po.Speedup, po.SpeedupLo, po.SpeedupHi, po.Mix = r.Speedup, r.SpeedupLo, r.SpeedupHi, &r
	po.SpeedupGPU = report.Estimate{Value: r.Speedup, Lo: r.SpeedupLo, Hi: r.SpeedupHi}
	po.Route = &report.PlanRoute{Sides: []string{r.Sides[0], "gpu"}, CPU: &c.ownModel, GPU: &c.gpu, Crossover: mixCross(r)}
	po.Verdict, po.Reason, po.Ported = gpuVerdict(be, r, c, share, minSp, po.CallsFrom != "")
	po.AppSpeedup = amdahl(share, r.Speedup)
	po.Return = share * (1 - 1/math.Max(r.Speedup, 1e-300))
	po.Predicted = c.own
	if po.Ported {
		po.Predicted = r.PerThousandRouted / 1000
	}
	po.PredictedGPU = c.gpuAll
	po.Choice, po.ChoiceReason = choose(c, r, po.CallsFrom != "", minSp)
	if share < MinPortShare {
		po.Choice, po.ChoiceReason = "keep", fmt.Sprintf("share below %.0f%%: not worth the work (%s)", 100*MinPortShare, po.ChoiceReason)
	}
	return po
}

// mixCross is the size from which r routes calls to the GPU (0: every
// call; -1: none).
func mixCross(r report.MixResult) float64 {
	switch {
	case r.Crossover > 0:
		return r.Crossover
	case r.ShareAbove == 0:
		return -1
	}
	return 0
}

// costsOf fills po's costs per call and returns them.
func costsOf(in Input, i int, op Op, mix crossover.BatchMix, share float64, transfer string, po *report.PlanOp) opCosts {
	be := in.BreakEvens[i]
	w, _ := workload.Lookup(op.Workload)
	c := opCosts{median: medianSize(mix)}
	c.tool = mixMean(mix, be.ModelA.At)
	po.ToolCPU = estimate(c.tool, func(rng *rand.Rand) float64 { m := crossover.DrawModel(rng, *be.ModelA); return mixMean(mix, m.At) })
	c.ownPerCall(in, i, op, *be.ModelA, po)
	// The GPU in parts.
	var io CallIO
	if i < len(in.IO) {
		io = in.IO[i]
	}
	c.gpu = *be.ModelB
	c.gpuTaxes(in.Taxes, io, mix, transfer, po)
	po.Launch, po.Transfer = c.launch, c.transfer
	var kbe *report.BreakEven
	if i < len(in.Kernels) {
		kbe = in.Kernels[i]
	}
	if kbe != nil && kbe.ModelB != nil && len(kbe.ModelB.Segments) > 0 {
		c.kernel = estimate(mixMean(mix, kbe.ModelB.At), func(rng *rand.Rand) float64 { m := crossover.DrawModel(rng, *kbe.ModelB); return mixMean(mix, m.At) })
		po.KernelSource = "GPU timestamps (the kernel-clock model)"
	} else {
		po.KernelSource = "none: the device has no timestamps"
	}
	po.Kernel = c.kernel
	if w != nil {
		c.bound = kernelBound(in.Rows, w, op.Precision, c.median, in.roofOf(op.Precision))
		po.GPUVariant = gpuVariant(in.Rows, w)
	}
	c.gpuAll = mixMean(mix, c.gpu.At)
	po.GPU = estimate(c.gpuAll, func(rng *rand.Rand) float64 { m := crossover.DrawModel(rng, c.gpu); return mixMean(mix, m.At) })
	po.BoundedBy = c.boundedBy()
	po.SpeedupSIMD = estimate(c.own/c.tool, func(rng *rand.Rand) float64 {
		m := crossover.DrawModel(rng, *be.ModelA)
		return c.own / mixMean(mix, m.At)
	})
	return c
}

// ownPerCall sets the application's own time per call (its profile time
// over its calls, where the profile is CPU time and the calls are known;
// else the tool's), warning when the two differ past WrongMappingRatio.
func (c *opCosts) ownPerCall(in Input, i int, op Op, toolModel timing.Model, po *report.PlanOp) {
	switch {
	case op.Calls > 0:
		po.Calls, po.CallsFrom = op.Calls, "--calls"
	case op.Mix != nil && op.Mix.File != "":
		po.Calls, po.CallsFrom = op.Mix.Calls(), "mix file"
	}
	c.own, c.ownModel = c.tool, toolModel
	if po.Calls > 0 && in.Unit == "cpu/nanoseconds" {
		po.OwnPerCall = float64(in.Shares[i].Value) * 1e-9 / float64(po.Calls)
		c.own = po.OwnPerCall
		c.ownModel = scaled(toolModel, c.own/c.tool)
		if ratio := c.own / c.tool; ratio > WrongMappingRatio || ratio < 1/WrongMappingRatio {
			po.Warning = fmt.Sprintf("likely wrong mapping: the application's own %s per call and the tool's %s kernel's %s differ %.0f× (more than %d×): check the workload, the sizes and the call count",
				crossover.FmtSeconds(c.own), op.Workload, crossover.FmtSeconds(c.tool), math.Max(ratio, 1/ratio), WrongMappingRatio)
		}
	} else if po.Calls > 0 {
		po.CallsFrom, po.Calls = "", 0 // not a CPU-time profile: no time per call
	}
}

// gpuTaxes prices the GPU's launch and transfer taxes per call over the
// mix from the measured taxes t (none: not measured), with the resident
// data uploaded on every call under TransferPerCall, and records the
// bytes moved.
func (c *opCosts) gpuTaxes(t *GPUTaxes, io CallIO, mix crossover.BatchMix, transfer string, po *report.PlanOp) {
	po.TransferMode = transfer
	po.BytesUp, po.BytesDown = mixMean(mix, func(n float64) float64 { return lin(io.Up, n) }), mixMean(mix, func(n float64) float64 { return lin(io.Down, n) })
	po.BytesResident = lin(io.Resident, float64(mix.Max()))
	if t != nil && t.Upload.Value > 0 && t.Readback.Value > 0 {
		bytesUp := func(n float64) float64 {
			b := lin(io.Up, n)
			if transfer == TransferPerCall {
				b += lin(io.Resident, n)
			}
			return b
		}
		tr := func(up, down float64) float64 {
			return mixMean(mix, bytesUp)/up + mixMean(mix, func(n float64) float64 { return lin(io.Down, n) })/down
		}
		c.transfer = estimate(tr(t.Upload.Value, t.Readback.Value), func(rng *rand.Rand) float64 {
			return tr(t.Upload.Value+seOf(t.Upload)*rng.NormFloat64(), t.Readback.Value+seOf(t.Readback)*rng.NormFloat64())
		})
		c.launch = t.Launch
		po.LaunchSource = t.Source
		if transfer == TransferPerCall {
			// The measured end-to-end time has the data resident: add
			// its upload with every call.
			c.gpu = plusLinear(c.gpu, [2]float64{io.Resident[0] / t.Upload.Value, io.Resident[1] / t.Upload.Value})
		}
	} else if transfer == TransferPerCall {
		po.LaunchSource = "not measured (no GPU taxes): the resident data's upload is not counted"
	}
}

// gpuVerdict is the GPU verdict: port, port above n = X or do not port,
// with its reason naming the dominant cost.
func gpuVerdict(be report.BreakEven, r report.MixResult, c opCosts, share, minSp float64, own bool) (verdict, reason string, ported bool) {
	against := "the tool's CPU kernel"
	if own {
		against = "the application's own code"
	}
	cost := fmt.Sprintf("%s of the GPU's %s per call against %s of %s (means over the calls; median size %d)", c.dominant(), crossover.FmtSeconds(c.gpuAll), crossover.FmtSeconds(c.own), against, c.median)
	gpuEver := false
	if be.Search != nil {
		for _, p := range be.Search.Points {
			gpuEver = gpuEver || p.Faster == timing.FasterB
		}
	}
	switch {
	case share < MinPortShare:
		return "do not port", fmt.Sprintf("share below %.0f%%: not worth the work", 100*MinPortShare), false
	case r.ShareAbove == 0 && !own && !gpuEver:
		return "do not port", "GPU never faster on this adapter (at any measured size): " + cost, false
	case r.ShareAbove == 0 && !own && be.Search != nil:
		return "do not port", fmt.Sprintf("GPU faster only from n = %d, above every call of this mix: %s", be.Search.Hi, cost), false
	case r.ShareAbove == 0:
		return "do not port", "GPU slower at every size of this mix: " + cost, false
	case r.Speedup <= 1:
		return "do not port", "no gain on this mix: " + cost, false
	case r.Speedup < minSp:
		return "do not port", fmt.Sprintf("%.2f× on this mix, below --min-speedup %.2f×: %s", r.Speedup, minSp, cost), false
	case r.Crossover > 0 && r.ShareAbove < 1:
		return fmt.Sprintf("port above n = %.0f", r.Crossover),
			fmt.Sprintf("%.0f%% of calls at or above the crossover; %.2f× on this mix; below it %s", 100*r.ShareAbove, r.Speedup, cost), true
	}
	return "port", fmt.Sprintf("every call of this mix on the GPU side of the crossover; %.2f× on them (GPU %s per call, bounded by %s, against %s of %s)",
		r.Speedup, crossover.FmtSeconds(c.gpuAll), c.boundedBy(), crossover.FmtSeconds(c.own), against), true
}

// choose picks the largest win among keep, the host SIMD kernel, the GPU
// and routing by size (the GPU above the crossover, the faster CPU code
// below), each needing minSp over the application's own code.
func choose(c opCosts, r report.MixResult, own bool, minSp float64) (string, string) {
	if !own {
		// Without the application's own time the host kernel is the
		// baseline: only the GPU can be judged.
		switch {
		case r.Speedup >= minSp && r.Speedup > 1 && r.ShareAbove < 1:
			return "route by size", fmt.Sprintf("no call count: against the tool's CPU kernel, the GPU from n = %.0f (%.2f×)", r.Crossover, r.Speedup)
		case r.Speedup >= minSp && r.Speedup > 1:
			return "port to the GPU", fmt.Sprintf("no call count: against the tool's CPU kernel, %.2f×", r.Speedup)
		}
		return "keep", "no call count (give the mix file's counts or calls=N): the GPU does not beat the tool's CPU kernel; " + c.dominant()
	}
	routed := r.PerThousandRouted / 1000
	best, bestT := "keep", c.own
	try := func(name string, t float64) {
		if c.own/t >= minSp && t < bestT*0.98 {
			best, bestT = name, t
		}
	}
	try("use the host SIMD kernel", c.tool)
	try("port to the GPU", c.gpuAll)
	if r.ShareAbove > 0 && r.ShareAbove < 1 {
		try("route by size", routed)
	}
	others := fmt.Sprintf("own code %s, the tool's SIMD kernel %s, the GPU %s (%s)", crossover.FmtSeconds(c.own), crossover.FmtSeconds(c.tool), crossover.FmtSeconds(c.gpuAll), c.dominant())
	switch best {
	case "keep":
		return best, "nothing beats the application's own code per call: " + others
	case "use the host SIMD kernel":
		return best, fmt.Sprintf("%.2f× on its calls, more than the GPU gives: %s", c.own/c.tool, others)
	case "route by size":
		return best, fmt.Sprintf("%.2f× with the GPU from n = %.0f and the CPU below: %s", c.own/routed, r.Crossover, others)
	}
	return best, fmt.Sprintf("%.2f× on its calls: %s", c.own/c.gpuAll, others)
}

// planSummary is the program summary.
func planSummary(pl report.Plan, in Input, minSp float64, transfer string) *report.PlanSummary {
	s := &report.PlanSummary{MinSpeedup: minSp, Transfer: transfer, FractionPorted: pl.PortedShare}
	if in.Unit == "cpu/nanoseconds" {
		s.TimeBefore = float64(in.Total) * 1e-9
	}
	var over, lo, hi, best float64
	for _, op := range pl.Ops {
		best += op.Share * choiceRatio(op)
		if !op.Ported {
			if s.TopNotPorted == "" {
				s.TopNotPorted = fmt.Sprintf("%s (%s, %s): %s: %s", op.Regex, op.Workload, fmtShare(op.Share), op.Verdict, op.Reason)
			}
			continue
		}
		s.NumberPorted++
		over += op.Share / op.Speedup
		lo += op.Share / positive(op.SpeedupLo, op.Speedup)
		hi += op.Share / positive(op.SpeedupHi, op.Speedup)
		if s.TopPorted == "" {
			s.TopPorted = fmt.Sprintf("%s (%s, %s): %s: %s", op.Regex, op.Workload, fmtShare(op.Share), op.Verdict, op.Reason)
		}
	}
	rest := 1 - pl.PortedShare
	if over > 0 {
		s.PortedSpeedup = pl.PortedShare / over
	}
	// The interval takes every ported operation at the same end of its
	// own interval (their errors share the device's taxes).
	s.AppSpeedup = report.Estimate{Value: pl.AppSpeedup, Lo: 1 / (rest + lo), Hi: 1 / (rest + hi)}
	s.TimeAfter = s.TimeBefore / pl.AppSpeedup
	others := 0.0
	for _, op := range pl.Ops {
		others += op.Share
	}
	s.BestSpeedup = 1 / ((1 - others) + best)
	return s
}

// choiceRatio is the time per call with op's choice over its own code's.
func choiceRatio(op report.PlanOp) float64 {
	if op.OwnPerCall <= 0 {
		if op.Ported {
			return 1 / op.Speedup
		}
		return 1
	}
	switch op.Choice {
	case "use the host SIMD kernel":
		return op.ToolCPU.Value / op.OwnPerCall
	case "port to the GPU":
		return op.GPU.Value / op.OwnPerCall
	case "route by size":
		return op.Mix.PerThousandRouted / 1000 / op.OwnPerCall
	}
	return 1
}

func positive(x, or float64) float64 {
	if x > 0 {
		return x
	}
	return or
}

// amdahl is 1/((1 − s) + s/k).
func amdahl(s, k float64) float64 {
	if k <= 0 {
		return 1
	}
	return 1 / ((1 - s) + s/k)
}

// Lines is the plan in words, verdicts first.
func Lines(pl report.Plan) []string {
	var out []string
	ci := func(e report.Estimate) string {
		if e.Value == 0 && e.Lo == 0 && e.Hi == 0 {
			return "not measured"
		}
		if math.IsNaN(e.Lo) || (e.Lo == 0 && e.Hi == 0) {
			return crossover.FmtSeconds(e.Value)
		}
		return fmt.Sprintf("%s [%s, %s]", crossover.FmtSeconds(e.Value), crossover.FmtSeconds(e.Lo), crossover.FmtSeconds(e.Hi))
	}
	for _, op := range pl.Ops {
		wl := op.Workload
		if op.Precision != "" {
			wl += " in " + op.Precision
		}
		out = append(out, fmt.Sprintf("%s (%s = %s): %s: %s", op.Regex, wl, fmtShare(op.Share), op.Verdict, op.Reason))
		out = append(out, fmt.Sprintf("  best: %s: %s", op.Choice, op.ChoiceReason))
		own := "own code unknown (no call count)"
		if op.OwnPerCall > 0 {
			own = fmt.Sprintf("own code %s (%d calls, from the %s)", crossover.FmtSeconds(op.OwnPerCall), op.Calls, op.CallsFrom)
		}
		gpu := "GPU"
		if op.GPUVariant != "" {
			gpu += " (" + op.GPUVariant + ")"
		}
		out = append(out, fmt.Sprintf("  per call: %s · tool's CPU kernel %s · %s %s: kernel %s + launch tax %s + transfer tax %s (transfer %s), bounded by %s",
			own, ci(op.ToolCPU), gpu, ci(op.GPU), ci(op.Kernel), ci(op.Launch), ci(op.Transfer), op.TransferMode, op.BoundedBy))
		if op.Warning != "" {
			out = append(out, "  WARNING: "+op.Warning)
		}
	}
	if s := pl.Summary; s != nil {
		ported := "nothing ported"
		if s.NumberPorted > 0 {
			ported = fmt.Sprintf("ported code %.2f×", s.PortedSpeedup)
		}
		out = append(out, fmt.Sprintf("application: %.2f× (95%% CI %.2f … %.2f) with %d operation(s) ported to the GPU (%.0f%% of CPU time), %s → %s; %s; with each operation's best choice %.2f×",
			pl.AppSpeedup, s.AppSpeedup.Lo, s.AppSpeedup.Hi, s.NumberPorted, 100*pl.PortedShare, crossover.FmtSeconds(s.TimeBefore), crossover.FmtSeconds(s.TimeAfter), ported, s.BestSpeedup))
		if s.TopPorted != "" {
			out = append(out, "  top ported: "+s.TopPorted)
		}
		if s.TopNotPorted != "" {
			out = append(out, "  top not ported: "+s.TopNotPorted)
		}
	} else {
		out = append(out, fmt.Sprintf("application: %.2f× with the ported operations (%.0f%% of CPU time) on the GPU", pl.AppSpeedup, 100*pl.PortedShare))
	}
	out = append(out, fmt.Sprintf("  (Amdahl: 1/((1 − %.3f) + Σ share/speedup) over the ported operations, each speedup against the application's own code where its calls are counted)", pl.PortedShare))
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
	if t := pl.Taxes; t != nil {
		out = append(out, fmt.Sprintf("  GPU taxes: launch %s, upload %.3g GB/s, readback %.3g GB/s (%s)", ci(t.Launch), t.Upload.Value/1e9, t.Readback.Value/1e9, t.Source))
	}
	if v := pl.Validation; v != nil {
		out = append(ValidationLines(v), out...)
	}
	return out
}

func fmtShare(s float64) string { return fmt.Sprintf("%.1f%%", 100*s) }

// BreakEvenOf returns the end-to-end CPU-vs-GPU (data resident)
// break-even of workload in rep in stored precision prec ("": f32) with
// both models, if rep has one.
func BreakEvenOf(rep *report.Report, workload, prec string) (report.BreakEven, bool) {
	if rep == nil {
		return report.BreakEven{}, false
	}
	for _, be := range rep.BreakEvens {
		if be.Workload != workload || !samePrecision(be, prec) || be.Clock != "end-to-end" || be.ModelA == nil || be.ModelB == nil || len(be.ModelA.Segments) == 0 || len(be.ModelB.Segments) == 0 {
			continue
		}
		if len(be.Sides) == 0 || (len(be.Sides) == 2 && be.Sides[0] == "cpu" && be.Sides[1] == "gpu") {
			return be, true
		}
	}
	return report.BreakEven{}, false
}

// samePrecision reports whether be measured stored precision prec ("":
// f32): its fixed "precision" param, f32 when it has none.
func samePrecision(be report.BreakEven, prec string) bool {
	if prec == "" {
		prec = workload.PrecisionF32
	}
	m := report.Measurement{Params: be.Params}
	return m.Precision() == prec
}

// KernelBreakEvenOf returns the kernel-clock CPU-vs-GPU break-even of
// workload in rep in precision prec (its side B the GPU's kernel time), if
// rep has one.
func KernelBreakEvenOf(rep *report.Report, workload, prec string) *report.BreakEven {
	if rep == nil {
		return nil
	}
	for i, be := range rep.BreakEvens {
		if be.Workload == workload && samePrecision(be, prec) && be.Clock == "kernel" && be.ModelB != nil && len(be.ModelB.Segments) > 0 &&
			(len(be.Sides) == 0 || (len(be.Sides) == 2 && be.Sides[0] == "cpu" && be.Sides[1] == "gpu")) {
			return &rep.BreakEvens[i]
		}
	}
	return nil
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
func DefaultBatch(cfg experiment.RunConfig, name string) (int, error) {
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

// MeasureBreakEven measures the end-to-end CPU-vs-GPU break-even of
// workload at cfg's sizes reaching the largest size of mix (nil: the
// default size), into rep, and returns it.
func MeasureBreakEven(e *env.Env, cfg experiment.RunConfig, name string, mix *crossover.BatchMix, budget time.Duration, rep *report.Report) (report.BreakEven, error) {
	cfg.Workloads = []string{name}
	cpu, _ := experiment.ParseSide("cpu")
	gpu, _ := experiment.ParseSide("gpu")
	sc := crossover.SearchConfig{Comparisons: [][2]experiment.SideSpec{{cpu, gpu}}, Mix: mix, Budget: budget}
	if err := crossover.BreakEvenSearch(e, cfg, sc, rep); err != nil {
		return report.BreakEven{}, err
	}
	be, ok := BreakEvenOf(rep, name, cfg.Precision)
	if !ok {
		return report.BreakEven{}, fmt.Errorf("%s: the break-even has no models", name)
	}
	return be, nil
}
