package plan

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"

	"github.com/wgpu-prof/wgpu-prof/internal/experiment"
	"github.com/wgpu-prof/wgpu-prof/internal/experiment/crossover"

	"github.com/wgpu-prof/wgpu-prof/internal/report"
	"github.com/wgpu-prof/wgpu-prof/internal/workload"
	"github.com/wgpu-prof/wgpu-prof/timing"
)

// GPUTaxes are what a GPU call costs beside its kernel on the device in
// hand: the launch tax (the fixed cost of one call: encode, submit, wait,
// map and read back, seconds) and the upload and readback rates (bytes
// per second) the transfer tax is priced at, each with its 95% CI.
type GPUTaxes struct {
	Launch           report.Estimate
	Upload, Readback report.Estimate
	// Source says how they were measured.
	Source string
}

// TaxSource gives the GPU taxes of the device in hand (Env.Taxes
// measures them).
type TaxSource interface {
	GPUTaxes() (GPUTaxes, error)
}

// CallIO is the bytes one call of an operation moves, each a + b·n in its
// batch size n: Resident is the data a port keeps on the GPU (uploaded
// once with --transfer once, with every call with per-call), Up and Down
// what every call uploads and reads back.
type CallIO struct {
	Resident, Up, Down [2]float64
}

func lin(c [2]float64, n float64) float64 { return c[0] + c[1]*n }

// CallIOOf derives a workload's CallIO from its parameters at c: the
// stored vectors (n × d float32) and a graph (CSR: 8 bytes an edge, 4 a
// node) are resident; the queries (q × d, or one of d), the activations
// (nodes) and the candidate ids (q × c) are uploaded with each call; the
// outputs (a score per stored vector per query, k (index, score) pairs
// per query, or a distance per candidate; the activations) read back.
func CallIOOf(w *workload.Descriptor, c workload.Config) CallIO {
	at := func(n int) (res, up, down float64) {
		cc := c
		if bp := w.BatchParam(); bp != nil && bp.Int(&cc) != nil {
			*bp.Int(&cc) = n
		}
		d, q := float64(cc.Dim), 1.0
		if w.Has("q") {
			q = float64(cc.Q)
		}
		if w.Has("n") {
			res += float64(cc.N) * d * 4
			up += q * d * 4
		}
		if w.Has("nodes") {
			nodes := float64(cc.Nodes)
			res += nodes*float64(cc.Degree)*8 + (nodes+1)*4
			up += nodes * 4
			down += nodes * 4
		}
		switch {
		case w.Has("k"):
			down += q * float64(cc.K) * 8
		case w.Has("c"):
			up += q * float64(cc.C) * 4
			down += q * float64(cc.C) * 4
		case w.Has("n"):
			down += q * float64(cc.N) * 4
		}
		return res, up, down
	}
	r1, u1, d1 := at(1)
	r2, u2, d2 := at(2)
	return CallIO{Resident: [2]float64{2*r1 - r2, r2 - r1}, Up: [2]float64{2*u1 - u2, u2 - u1}, Down: [2]float64{2*d1 - d2, d2 - d1}}
}

// Transfer modes of plan --transfer.
const (
	TransferOnce    = "once"
	TransferPerCall = "per-call"
)

// costDraws is the number of draws behind the cost estimates' CIs.
const costDraws = 1000

// seOf is an estimate's standard error from its 95% CI (normal).
func seOf(e report.Estimate) float64 { return math.Max(0, e.Hi-e.Lo) / (2 * 1.96) }

// mixMean is the mean over mix's calls of f(n).
func mixMean(mix crossover.BatchMix, f func(n float64) float64) float64 {
	var s float64
	for i, n := range mix.Sizes {
		s += float64(mix.Counts[i]) * f(float64(n))
	}
	return s / float64(mix.Calls())
}

// estimate returns value with the 2.5% and 97.5% quantiles of draw over
// costDraws draws from one seeded generator.
func estimate(value float64, draw func(rng *rand.Rand) float64) report.Estimate {
	rng := rand.New(rand.NewPCG(3, 4))
	xs := make([]float64, 0, costDraws)
	for range costDraws {
		if x := draw(rng); !math.IsNaN(x) && !math.IsInf(x, 0) {
			xs = append(xs, x)
		}
	}
	if len(xs) < costDraws/2 {
		return report.Estimate{Value: value, Lo: math.NaN(), Hi: math.NaN()}
	}
	sort.Float64s(xs)
	q := func(p float64) float64 { return xs[min(len(xs)-1, int(p*float64(len(xs))))] }
	return report.Estimate{Value: value, Lo: math.Min(value, q(0.025)), Hi: math.Max(value, q(0.975))}
}

// scaled is m with every coefficient (and its standard error) times k.
func scaled(m timing.Model, k float64) timing.Model {
	out := m
	out.Segments = append([]timing.Segment(nil), m.Segments...)
	for i := range out.Segments {
		f := &out.Segments[i].Fit
		f.Overhead, f.PerItem, f.SEOverhead, f.SEPerItem, f.Cov = k*f.Overhead, k*f.PerItem, k*f.SEOverhead, k*f.SEPerItem, k*k*f.Cov
	}
	out.Single.Overhead, out.Single.PerItem = k*out.Single.Overhead, k*out.Single.PerItem
	return out
}

// plusLinear is m with a + b·n added to every segment.
func plusLinear(m timing.Model, c [2]float64) timing.Model {
	out := m
	out.Segments = append([]timing.Segment(nil), m.Segments...)
	for i := range out.Segments {
		out.Segments[i].Fit.Overhead += c[0]
		out.Segments[i].Fit.PerItem += c[1]
	}
	out.Single.Overhead += c[0]
	out.Single.PerItem += c[1]
	return out
}

// opCosts is one operation's costs per call, the input of its verdict.
type opCosts struct {
	own, tool, gpuAll float64 // means over the mix, seconds per call
	// basis is how the own code is known (report.OwnLabels …); ownAt
	// its measured sizes (labels, benchmarks); ownRel the relative
	// standard error of its mean (mean); ownModel its curve (labels,
	// benchmarks) or the tool's CPU kernel's model (none).
	basis            string
	ownAt            ownSizes
	ownRel           float64
	ownModel, gpu    timing.Model
	kernel           report.Estimate
	launch, transfer report.Estimate
	bound            string // the kernel's roofline bound in words ("" unknown)
	median           int    // the mix's median call size
}

// dominant names the largest part of the GPU's time per call at the
// mix's median size, with its value.
func (c opCosts) dominant() string {
	parts := []struct {
		name string
		v    float64
	}{{"kernel", c.kernel.Value}, {"launch tax", c.launch.Value}, {"transfer tax", c.transfer.Value}}
	best := 0
	for i, p := range parts {
		if p.v > parts[best].v {
			best = i
		}
	}
	if parts[best].v <= 0 {
		return "end-to-end " + crossover.FmtSeconds(c.gpuAll)
	}
	s := parts[best].name + " " + crossover.FmtSeconds(parts[best].v)
	if best == 0 && c.bound != "" {
		s += " (" + c.bound + ")"
	}
	return s
}

// boundedBy is what bounds the GPU's time per call: the largest of the
// launch and transfer taxes when either exceeds the kernel, else the
// kernel's roofline bound.
func (c opCosts) boundedBy() string {
	switch {
	case c.launch.Value > c.kernel.Value && c.launch.Value >= c.transfer.Value:
		return "launch tax"
	case c.transfer.Value > c.kernel.Value:
		return "transfer tax"
	case c.bound != "":
		return c.bound
	case c.kernel.Value > 0:
		return "kernel (roofline bound unknown)"
	}
	return "unknown (no kernel time)"
}

// kernelBound is the roofline bound of the GPU row of workload in rows
// nearest (in log size) to n: "memory (dram) at 43% of its ceiling"; a
// row not judged yet is placed under roof (the GPU's read and FMA
// ceilings; nil: none) by its kernel time.
func kernelBound(rows []report.Measurement, w *workload.Descriptor, prec string, n int, roof *timing.Roof) string {
	b, _ := kernelRow(rows, w, prec, n, roof)
	return b
}

// gpuVariant is the variant of workload's GPU rows in rows ("" none).
func gpuVariant(rows []report.Measurement, w *workload.Descriptor) string {
	for _, m := range rows {
		if m.Workload == w.Name && m.Side == report.SideGPU {
			return strings.TrimSuffix(m.Variant, " gpu")
		}
	}
	return ""
}

// kernelRow is kernelBound with the row's variant.
func kernelRow(rows []report.Measurement, w *workload.Descriptor, prec string, n int, roof *timing.Roof) (string, string) {
	best, bestD := -1, math.Inf(1)
	if prec == "" {
		prec = workload.PrecisionF32
	}
	for i, m := range rows {
		if m.Workload != w.Name || m.Side != report.SideGPU || m.Precision() != prec {
			continue
		}
		if m.Bound == "" && roof != nil && m.Kernel != nil && m.Kernel.Median > 0 {
			pl, err := timing.Place(*roof, timing.Point{Flops: m.Flops, Bytes: m.Bytes, Seconds: m.Kernel.Median})
			if err == nil {
				rows[i].Bound, rows[i].CeilingFrac = pl.Bound, pl.Efficiency
				m = rows[i]
			}
		}
		if m.Bound == "" || m.CeilingFrac <= 0 {
			continue
		}
		for _, p := range m.Params {
			if p.Key != w.Batch {
				continue
			}
			v, err := strconv.Atoi(p.Value)
			if err != nil || v <= 0 {
				continue
			}
			if d := math.Abs(math.Log(float64(v) / float64(n))); d < bestD {
				best, bestD = i, d
			}
		}
	}
	if best < 0 {
		return "", ""
	}
	m := rows[best]
	what := m.Bound
	if m.Bound == "memory" {
		level := "dram"
		if m.ReadCeiling != "" {
			level = report.ReadCeilingName(m.ReadCeiling)
		}
		what = "memory (" + level + ")"
	}
	return fmt.Sprintf("%s at %.0f%% of its ceiling", what, 100*m.CeilingFrac), m.Variant
}

// medianSize is the size of the mix's median call.
func medianSize(mix crossover.BatchMix) int {
	half, acc := (mix.Calls()+1)/2, int64(0)
	for i, n := range mix.Sizes {
		acc += mix.Counts[i]
		if acc >= half {
			return n
		}
	}
	return mix.Max()
}

// ownCrossover is the size from which the GPU model beats own at every
// size of the mix (0: every size; +Inf: none).
func ownCrossover(mix crossover.BatchMix, own, gpu timing.Model) float64 {
	cross := math.Inf(1)
	for i := len(mix.Sizes) - 1; i >= 0; i-- {
		x := float64(mix.Sizes[i])
		if gpu.At(x) >= own.At(x) {
			break
		}
		cross = x
	}
	if cross == float64(mix.Sizes[0]) || math.IsInf(cross, 1) {
		if cross == float64(mix.Sizes[0]) {
			return 0
		}
		return cross
	}
	// Where the models cross between the last size left on the CPU and
	// the first routed: the smallest n at which the GPU is faster.
	lo := 1.0
	for _, n := range mix.Sizes {
		if float64(n) < cross {
			lo = float64(n)
		}
	}
	hi := cross
	for hi-lo > 1 {
		mid := math.Floor((lo + hi) / 2)
		if gpu.At(mid) < own.At(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi
}

// CallIOFor is the CallIO of workload name at cfg's sizes.
func CallIOFor(cfg experiment.RunConfig, name string) CallIO {
	w, err := workload.Lookup(name)
	if err != nil {
		return CallIO{}
	}
	c := cfg.Config
	c.Defaults()
	return CallIOOf(w, c)
}
