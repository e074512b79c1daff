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
	// Bench is the Go benchmark of the application's own code per size
	// (bench=FILE; nil: none), which gives its time at each size.
	Bench *BenchCurve
}

// planOpFiles are the data-file parameters an --op may carry.
var planOpFiles = []string{"vectors", "queries", "graph"}

// ParseOp parses REGEX=WORKLOAD[@MIXFILE][,calls=N][,precision=P]
// [,bench=FILE][,vectors=FILE][,queries=FILE][,graph=FILE] (wgpu-prof
// plan --op; bench=FILE a `go test -bench` output, ReadBench): the expression ends
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
		return Op{}, bad("want REGEX=WORKLOAD[@MIXFILE][,calls=N][,bench=FILE][,vectors=FILE][,queries=FILE][,graph=FILE], e.g. 'main\\.similarity$=cosine-single'")
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
			return Op{}, bad("%q: want KEY=VALUE (calls, precision, bench, %s)", kv, strings.Join(planOpFiles, ", "))
		case k == "calls":
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n <= 0 {
				return Op{}, bad("calls=%s: want a positive integer (the operation's calls during the profile)", v)
			}
			op.Calls = n
		case k == "bench":
			b, err := ReadBench(v)
			if err != nil {
				return Op{}, err
			}
			op.Bench = &b
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
			return Op{}, bad("%q: unknown option (calls, precision, bench, %s)", k, strings.Join(planOpFiles, ", "))
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
	// BySize is the part of Value and Samples in samples carrying a
	// size label (ProfileSharesBy), by size.
	BySize map[int]SizeTime
}

// ProfileShares reads a pprof profile (Go's runtime/pprof or any writer
// of the format) and returns, for each expression, its cumulative share of
// the profile's total over the sample type CPU time is in ("cpu", else
// the last type), and that total with its unit.
func ProfileShares(path string, res []*regexp.Regexp) (shares []ProfileShare, total int64, unit string, err error) {
	return ProfileSharesBy(path, res, "")
}

// ProfileSharesBy is ProfileShares that also sums each share by the size
// its samples are labelled with (label key: a pprof label whose value is
// a positive integer, pprof.Labels(key, strconv.Itoa(n)), or a numeric
// label; "": none) into ProfileShare.BySize.
func ProfileSharesBy(path string, res []*regexp.Regexp, key string) (shares []ProfileShare, total int64, unit string, err error) {
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
				// A pprof Sample is a stack with its counts: the "samples"
				// value counts the samples taken there.
				k := int64(1)
				if cnt >= 0 {
					k = s.Value[cnt]
				}
				shares[i].Value += v
				shares[i].Samples += k
				if n, ok := sampleSize(s, key); ok {
					if shares[i].BySize == nil {
						shares[i].BySize = map[int]SizeTime{}
					}
					st := shares[i].BySize[n]
					st.Value, st.Samples = st.Value+v, st.Samples+k
					shares[i].BySize[n] = st
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

// sampleSize is the size a sample is labelled with under key (a string
// label holding a positive integer, or a numeric label).
func sampleSize(s *profile.Sample, key string) (int, bool) {
	if key == "" {
		return 0, false
	}
	if vs := s.Label[key]; len(vs) == 1 {
		if n, err := strconv.Atoi(vs[0]); err == nil && n > 0 {
			return n, true
		}
	}
	if vs := s.NumLabel[key]; len(vs) == 1 && vs[0] > 0 && vs[0] <= math.MaxInt32 {
		return int(vs[0]), true
	}
	return 0, false
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
	// SizeLabel is the pprof label key the shares' BySize were read
	// with ("": none read).
	SizeLabel string
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
	c.ownOf(in, i, op, mix, *be.ModelA, po)
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
