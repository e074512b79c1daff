package experiment

import (
	"fmt"
	"sort"
	"strings"

	"github.com/wgpu-prof/wgpu-prof/compute"
	"github.com/wgpu-prof/wgpu-prof/hostsimd"
	"github.com/wgpu-prof/wgpu-prof/report"
	"github.com/wgpu-prof/wgpu-prof/timing"
)

// Workload names accepted by RunConfig.Workloads.
const (
	WCosineSingle = "cosine-single"
	WCosineBatch  = "cosine-batch"
	WCosineTopK   = "cosine-topk"
	WSpreadUni    = "spread-uniform"
	WSpreadRMAT   = "spread-rmat"
	WHNSW         = "hnsw"
)

// AllWorkloads lists every workload of the default suite, in run order.
var AllWorkloads = []string{WCosineSingle, WCosineBatch, WCosineTopK, WSpreadUni, WSpreadRMAT, WHNSW}

// ParseWorkloads parses a comma-separated list ("all" for every one).
func ParseWorkloads(s string) ([]string, error) {
	if s == "" || s == "all" {
		return AllWorkloads, nil
	}
	var out []string
	for _, w := range strings.Split(s, ",") {
		w = strings.TrimSpace(w)
		ok := false
		for _, a := range AllWorkloads {
			ok = ok || a == w
		}
		if !ok {
			return nil, fmt.Errorf("unknown workload %q (have %s)", w, strings.Join(AllWorkloads, ", "))
		}
		out = append(out, w)
	}
	return out, nil
}

// RunConfig sizes the default suite.
type RunConfig struct {
	Workloads []string
	Dim       int // vector dimension (multiple of 4)
	N         int // stored vectors
	Q         int // queries for cosine-batch and hnsw
	C         int // candidates per query (hnsw)
	K         int // top-k
	Nodes     int // graph nodes
	Degree    int // average degree
	Steps     int // spreading steps
	Workgroup int // 0: each kernel's default
	// Batches for the break-even sweeps; nil: powers of 4 up to the size.
	Batches      []int
	CeilingBytes uint64
	Seed         uint64
}

// Defaults fills zero fields with the suite's default sizes.
func (c *RunConfig) Defaults() {
	if len(c.Workloads) == 0 {
		c.Workloads = AllWorkloads
	}
	def := func(p *int, v int) {
		if *p == 0 {
			*p = v
		}
	}
	def(&c.Dim, 768)
	def(&c.N, 65536)
	def(&c.Q, 64)
	def(&c.C, 32)
	def(&c.K, 10)
	def(&c.Nodes, 100_000)
	def(&c.Degree, 16)
	def(&c.Steps, 10)
	if c.Seed == 0 {
		c.Seed = 1
	}
}

// Validate checks the sizes against each other and the device's limits
// before anything runs.
func (c *RunConfig) Validate(d *compute.Device) error {
	pos := map[string]int{"--d": c.Dim, "--n": c.N, "--q": c.Q, "--c": c.C, "--k": c.K, "--nodes": c.Nodes, "--degree": c.Degree, "--steps": c.Steps}
	names := make([]string, 0, len(pos))
	for k := range pos {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		if pos[k] <= 0 {
			return fmt.Errorf("%s %d: must be positive", k, pos[k])
		}
	}
	if c.Dim%4 != 0 {
		return fmt.Errorf("--d %d: the GPU kernels load vec4s; the dimension must be a multiple of 4", c.Dim)
	}
	if c.K > c.N {
		return fmt.Errorf("--k %d > --n %d", c.K, c.N)
	}
	if need := uint64(c.N) * uint64(c.Dim) * 4; need > d.Limits.MaxBufferSize*64 {
		return fmt.Errorf("--n %d × --d %d = %d bytes is past what %q can hold in chunks of maxBufferSize %d", c.N, c.Dim, need, d.Info.Name, d.Limits.MaxBufferSize)
	}
	for _, b := range c.Batches {
		if b <= 0 {
			return fmt.Errorf("--batches: %d is not a positive batch size", b)
		}
	}
	return nil
}

// powersOf4 returns from, 4·from, 16·from, … up to and including max
// (from 0 means 1).
func powersOf4(from, to int) []int {
	var out []int
	for b := max(from, 1); b < to; b *= 4 {
		out = append(out, b)
	}
	return append(out, to)
}

// Ceilings measures the GPU and CPU ceilings and records them.
func (e *Env) Ceilings(cfg RunConfig, rep *report.Report) (Roofs, error) {
	e.progress("gpu ceilings (read, write, copy, FMA intensities)")
	gc, err := compute.MeasureCeilings(e.Device, compute.CeilingOptions{Bytes: cfg.CeilingBytes})
	if err != nil {
		return Roofs{}, fmt.Errorf("gpu ceilings: %w", err)
	}
	rep.Ceilings.GPU = map[string]float64{
		"read_gbs": gc.ReadGBs, "write_gbs": gc.WriteGBs, "copy_gbs": gc.CopyGBs, "fma_gflops": gc.PeakGFLOPs,
	}
	for _, pt := range gc.FMA {
		rep.Ceilings.GPU[fmt.Sprintf("fma_gflops_at_%g", pt.Intensity)] = pt.GFLOPs
	}
	if gc.Timed != "timestamps" {
		rep.Warnings = append(rep.Warnings, "GPU ceilings timed by the host clock ("+gc.Timed+"): they include submission overhead")
	}
	e.progress("cpu ceilings (read, write, copy, triad, FMA; all cores and one)")
	all, _, keys, err := CPUCeilings(hostsimd.CeilingOpts{Bytes: int64(cfg.CeilingBytes)})
	if err != nil {
		return Roofs{}, err
	}
	rep.Ceilings.CPU = keys
	return Roofs{
		GPU: timing.Roof{PeakGFLOPs: gc.PeakGFLOPs, BandwidthGBs: gc.ReadGBs},
		CPU: timing.Roof{PeakGFLOPs: all.FMAGFLOPs, BandwidthGBs: all.ReadGBs},
	}, nil
}

// RunSuite runs the default suite: ceilings, then each workload at its
// default size on both sides, then its break-even sweep, then the summary.
func (e *Env) RunSuite(cfg RunConfig, rep *report.Report) error {
	cfg.Defaults()
	if err := cfg.Validate(e.Device); err != nil {
		return err
	}
	roofs, err := e.Ceilings(cfg, rep)
	if err != nil {
		return err
	}
	if err := e.timestampOverhead(cfg, rep); err != nil {
		return err
	}
	for _, w := range cfg.Workloads {
		spec, err := e.spec(w, cfg)
		if err != nil {
			return err
		}
		batches := spec.batches(cfg)
		bes, sweep, err := e.breakEven(w, spec.fixed, batches, spec.at, roofs)
		if err != nil {
			return err
		}
		// The default size is a point of the sweep unless --batches left it
		// out: reuse its measurements rather than measure it twice. The
		// other points are summarized by the break-even, not repeated as rows.
		ms := atBatch(sweep, batches, spec.size)
		if ms == nil {
			if ms, err = e.measureWorkload(spec.at(spec.size), roofs); err != nil {
				return err
			}
		}
		rep.Measurements = append(rep.Measurements, ms...)
		rep.BreakEvens = append(rep.BreakEvens, bes...)
	}
	rep.Summary = append(rep.Summary, Summarize(rep)...)
	return nil
}

// workloadSpec builds a workload at batch size n.
type workloadSpec struct {
	size     int // default batch size
	minBatch int // smallest batch of the default sweep (0: 1)
	fixed    []report.Param
	at       func(n int) workload
}

// batches is --batches, or powers of 4 from minBatch up to the size.
func (s workloadSpec) batches(cfg RunConfig) []int {
	if len(cfg.Batches) > 0 {
		return cfg.Batches
	}
	return powersOf4(s.minBatch, s.size)
}

// atBatch returns the GPU and CPU measurements a break-even sweep made at
// batch n (the sweep holds a GPU, CPU pair per batch), or nil.
func atBatch(sweep []report.Measurement, batches []int, n int) []report.Measurement {
	for i, b := range batches {
		if b == n && 2*i+1 < len(sweep) {
			return sweep[2*i : 2*i+2]
		}
	}
	return nil
}

func (e *Env) spec(name string, cfg RunConfig) (workloadSpec, error) {
	switch name {
	case WCosineSingle:
		data := newCosineData(cfg.Seed, cfg.N, cfg.Dim)
		return workloadSpec{
			size: cfg.N, fixed: []report.Param{p("d", cfg.Dim)},
			at: func(n int) workload { return cosineSingle(data, n, cfg.Workgroup) },
		}, nil
	case WCosineBatch:
		n := min(cfg.N, 8192)
		b := newBatchData(newCosineData(cfg.Seed+1, n, cfg.Dim), n, cfg.Q, cfg.Seed+2)
		return workloadSpec{
			size: cfg.Q, fixed: []report.Param{p("d", cfg.Dim), p("n", n)},
			at: func(q int) workload {
				return e.cosineBatch(b, q, compute.CosineBatchOptions{Tiled: true})
			},
		}, nil
	case WCosineTopK:
		data := newCosineData(cfg.Seed, cfg.N, cfg.Dim)
		return workloadSpec{
			size: cfg.N, fixed: []report.Param{p("d", cfg.Dim), p("k", cfg.K)},
			at: func(n int) workload { return e.cosineTopK(data, n, cfg.K, cfg.Workgroup) },
		}, nil
	case WHNSW:
		h := newHNSWData(cfg.Seed+3, cfg.N, cfg.Dim, cfg.Q, cfg.C)
		return workloadSpec{
			size: cfg.Q, fixed: []report.Param{p("d", cfg.Dim), p("n", h.n), p("c", cfg.C)},
			at: func(q int) workload { return e.hnsw(h, q, cfg.Workgroup) },
		}, nil
	case WSpreadUni, WSpreadRMAT:
		return workloadSpec{
			size: cfg.Nodes, minBatch: 256,
			fixed: []report.Param{p("degree", cfg.Degree), p("steps", cfg.Steps)},
			at: func(n int) workload {
				return e.spread(name, n, cfg.Degree, cfg.Steps, cfg.Workgroup, cfg.Seed+4)
			},
		}, nil
	}
	return workloadSpec{}, fmt.Errorf("unknown workload %q (have %s)", name, strings.Join(AllWorkloads, ", "))
}

// timestampOverhead measures cosine-single end to end with and without
// timestamp writes, once per run.
func (e *Env) timestampOverhead(cfg RunConfig, rep *report.Report) error {
	if e.Timer == nil {
		return nil
	}
	n := min(cfg.N, 16384)
	data := newCosineData(cfg.Seed+7, n, cfg.Dim)
	var res [2]timing.Result
	for i, t := range []*compute.Timer{e.Timer, nil} {
		s, err := cosineSingleGPU(e, data, n, cfg.Workgroup, t)
		if err != nil {
			return err
		}
		e.progress("gpu  timestamp overhead (%s)", map[bool]string{true: "on", false: "off"}[t != nil])
		res[i], err = measureImpl("timestamp overhead", s, e.Measure)
		s.close()
		if err != nil {
			return err
		}
	}
	on, off := res[0].Host, res[1].Host
	rep.Summary = append(rep.Summary, fmt.Sprintf("timestamp queries cost %+.1f%% end to end on cosine-single n=%d (on %s, off %s)",
		100*(on.Median/off.Median-1), n, timing.FormatSeconds(on.Median), timing.FormatSeconds(off.Median)))
	return nil
}
