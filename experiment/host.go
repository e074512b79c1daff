package experiment

import (
	"fmt"
	"math/rand/v2"

	"github.com/wgpu-prof/wgpu-prof/hostsimd"
	"github.com/wgpu-prof/wgpu-prof/report"
	"github.com/wgpu-prof/wgpu-prof/timing"
)

// HostConfig configures the CPU-only suite (wgpu-prof host).
type HostConfig struct {
	Levels  []hostsimd.Level // nil: every level this CPU has
	Dim     int              // default 768
	N       int              // out-of-cache rows, default 200,000
	NCached int              // cache-resident rows, default 2,000
	Q       int              // batch queries, default 64
	Threads int              // 0: GOMAXPROCS
	Ceiling hostsimd.CeilingOpts
	Measure timing.MeasureOpts
	Seed    uint64
}

func (c *HostConfig) defaults() {
	if c.Dim == 0 {
		c.Dim = 768
	}
	if c.N == 0 {
		c.N = 200_000
	}
	if c.NCached == 0 {
		c.NCached = 2_000
	}
	if c.Q == 0 {
		c.Q = 64
	}
	if len(c.Levels) == 0 {
		c.Levels = hostsimd.Available()
	}
}

// CPUCeilings measures the host's roofs on all cores and on one core and
// returns them as report keys.
func CPUCeilings(opts hostsimd.CeilingOpts) (all, one hostsimd.Ceilings, keys map[string]float64, err error) {
	all, err = hostsimd.MeasureCeilings(opts)
	if err != nil {
		return all, one, nil, fmt.Errorf("cpu ceilings: %w", err)
	}
	o1 := opts
	o1.Threads = 1
	one, err = hostsimd.MeasureCeilings(o1)
	if err != nil {
		return all, one, nil, fmt.Errorf("cpu ceilings (1 core): %w", err)
	}
	keys = map[string]float64{
		"read_gbs": all.ReadGBs, "write_gbs": all.WriteGBs, "copy_gbs": all.CopyGBs, "triad_gbs": all.TriadGBs, "fma_gflops": all.FMAGFLOPs,
		"read_gbs_1core": one.ReadGBs, "write_gbs_1core": one.WriteGBs, "copy_gbs_1core": one.CopyGBs, "triad_gbs_1core": one.TriadGBs, "fma_gflops_1core": one.FMAGFLOPs,
	}
	return all, one, keys, nil
}

// RunHost runs the CPU kernels at every requested SIMD level against the
// ceilings measured in the same run. The previous level and thread count
// are restored at the end.
func RunHost(cfg HostConfig, rep *report.Report, progress func(string)) error {
	cfg.defaults()
	prevLevel, prevThreads := hostsimd.CurrentLevel(), hostsimd.Threads()
	defer func() {
		hostsimd.SetLevel(prevLevel)
		hostsimd.SetThreads(prevThreads)
	}()
	if cfg.Threads > 0 {
		hostsimd.SetThreads(cfg.Threads)
	}
	say := func(f string, a ...any) {
		if progress != nil {
			progress(fmt.Sprintf(f, a...))
		}
	}
	say("cpu ceilings (%d threads)", hostsimd.Threads())
	all, _, keys, err := CPUCeilings(cfg.Ceiling)
	if err != nil {
		return err
	}
	if rep.Ceilings.CPU == nil {
		rep.Ceilings.CPU = map[string]float64{}
	}
	for k, v := range keys {
		rep.Ceilings.CPU[k] = v
	}
	roofs := Roofs{CPU: timing.Roof{PeakGFLOPs: all.FMAGFLOPs, BandwidthGBs: all.ReadGBs}}

	r := rand.New(rand.NewPCG(cfg.Seed, 0x686f7374))
	d := cfg.Dim
	big := newCosineData(cfg.Seed+1, cfg.N, d)
	qs := randVectors(r, cfg.Q*d)
	batchN := cfg.NCached * 4
	batchRef := make([]float64, cfg.Q*batchN)
	batchTol := make([]float64, cfg.Q*batchN)
	for qi := 0; qi < cfg.Q; qi++ {
		ref := newCosineRef(qs[qi*d:(qi+1)*d], big.v[:batchN*d], d)
		copy(batchRef[qi*batchN:], ref.want)
		copy(batchTol[qi*batchN:], ref.tol)
	}
	for _, lvl := range cfg.Levels {
		if err := hostsimd.SetLevel(lvl); err != nil {
			return err
		}
		variant := cpuVariant()
		for _, n := range []int{cfg.N, cfg.NCached} {
			w := cosineSingle(big, n, 0)
			say("cpu %s cosine-single n=%d", variant, n)
			c, _ := w.cpu()
			res, err := measureImpl("cpu cosine-single", c, cfg.Measure)
			if err != nil {
				return err
			}
			params := append(w.params, p("cache", cacheLabel(n == cfg.NCached)))
			rep.Measurements = append(rep.Measurements, measurement(w.name, report.SideCPU, variant, params, res, w.bytes, w.flops, roofs))
		}
		// Cosine batch: Q queries × batchN rows.
		out := make([]float32, cfg.Q*batchN)
		v := big.v[:batchN*d]
		impl := impl{
			poison: func() { poisonF32(out) },
			run: func() (timing.Sample, error) {
				return cpuSample(func() error { return hostsimd.CosineBatch(qs, v, d, out) })
			},
			verify: func() error {
				return checkClose("cpu cosine-batch S", out, func(i int) (float64, float64) { return batchRef[i], batchTol[i] })
			},
		}
		say("cpu %s cosine-batch q=%d n=%d", variant, cfg.Q, batchN)
		res, err := measureImpl("cpu cosine-batch", impl, cfg.Measure)
		if err != nil {
			return err
		}
		bytes := float64(4 * (cfg.Q*d + batchN*d + cfg.Q*batchN))
		flops := float64(2*cfg.Q*batchN*d + 2*batchN*d)
		rep.Measurements = append(rep.Measurements, measurement("cosine-batch", report.SideCPU, variant,
			[]report.Param{p("d", d), p("q", cfg.Q), p("n", batchN)}, res, bytes, flops, roofs))
	}
	return nil
}

func cacheLabel(resident bool) string {
	if resident {
		return "resident"
	}
	return "dram"
}
