package experiment

import (
	"errors"
	"fmt"
	"math"

	"github.com/wgpu-prof/wgpu-prof/compute"
	"github.com/wgpu-prof/wgpu-prof/report"
	"github.com/wgpu-prof/wgpu-prof/timing"
)

// sweepable builds a GPU-only workload at one configuration.
type sweepable func(wg, tile int) (workload, error)

// SweepKernels lists the kernels the sweeps accept: every workload for the
// workgroup sweep; only cosine-batch has tiles.
var SweepKernels = AllWorkloads

func (e *Env) sweepTarget(kernel string, cfg RunConfig) (sweepable, error) {
	switch kernel {
	case WCosineSingle:
		data := newCosineData(cfg.Seed, cfg.N, cfg.Dim)
		return func(wg, _ int) (workload, error) { return cosineSingle(data, cfg.N, wg), nil }, nil
	case WCosineTopK:
		data := newCosineData(cfg.Seed, cfg.N, cfg.Dim)
		return func(wg, _ int) (workload, error) { return e.cosineTopK(data, cfg.N, cfg.K, wg), nil }, nil
	case WCosineBatch:
		n := min(cfg.N, 8192)
		b := newBatchData(newCosineData(cfg.Seed+1, n, cfg.Dim), n, cfg.Q, cfg.Seed+2)
		return func(wg, tile int) (workload, error) {
			if tile > 0 {
				return e.cosineBatch(b, cfg.Q, compute.CosineBatchOptions{Tiled: true, Tile: tile}), nil
			}
			return e.cosineBatch(b, cfg.Q, compute.CosineBatchOptions{Workgroup: wg}), nil
		}, nil
	case WHNSW:
		h := newHNSWData(cfg.Seed+3, cfg.N, cfg.Dim, cfg.Q, cfg.C)
		return func(wg, _ int) (workload, error) { return e.hnsw(h, cfg.Q, wg), nil }, nil
	case WSpreadUni, WSpreadRMAT:
		return func(wg, _ int) (workload, error) {
			return e.spread(kernel, cfg.Nodes, cfg.Degree, cfg.Steps, wg, cfg.Seed+4), nil
		}, nil
	}
	return nil, fmt.Errorf("unknown kernel %q (have %v)", kernel, SweepKernels)
}

// Sweep times the GPU side of kernel at each workgroup size (tiles nil) or
// each tile size. Configurations the adapter rejects are listed with the
// reason; a wrong result is an error, never a point.
func (e *Env) Sweep(kernel string, cfg RunConfig, sizes, tiles []int, rep *report.Report) error {
	cfg.Defaults()
	if err := cfg.Validate(e.Device); err != nil {
		return err
	}
	if len(tiles) > 0 && kernel != WCosineBatch {
		return fmt.Errorf("kernel %q has no tiles; the tile sweep applies to %s", kernel, WCosineBatch)
	}
	target, err := e.sweepTarget(kernel, cfg)
	if err != nil {
		return err
	}
	s := report.Sweep{Name: "workgroup size", Workload: kernel, Side: report.SideGPU}
	type conf struct {
		label    string
		wg, tile int
	}
	var confs []conf
	if len(tiles) > 0 {
		s.Name = "tile size"
		for _, t := range tiles {
			confs = append(confs, conf{fmt.Sprintf("tile=%d (wg=%d)", t, (t/4)*(t/4)), 0, t})
		}
	} else {
		for _, wg := range sizes {
			confs = append(confs, conf{fmt.Sprintf("wg=%d", wg), wg, 0})
		}
	}
	best := math.Inf(1)
	for _, c := range confs {
		if reason := e.rejectReason(c.wg, c.tile); reason != "" {
			s.Rejected = append(s.Rejected, report.Rejection{Label: c.label, Reason: reason})
			continue
		}
		w, err := target(c.wg, c.tile)
		if err != nil {
			return err
		}
		w.cpu = nil
		ms, err := e.measureWorkload(w, Roofs{})
		if err != nil {
			if errors.Is(err, ErrWrongResult) {
				return err
			}
			var ge *compute.GPUError
			if errors.Is(err, compute.ErrLimit) || errors.As(err, &ge) {
				s.Rejected = append(s.Rejected, report.Rejection{Label: c.label, Reason: err.Error()})
				continue
			}
			return err
		}
		m := ms[0]
		t := m.Time()
		s.Points = append(s.Points, report.SweepPoint{Label: c.label, Params: append(m.Params, p("variant", m.Variant)), Time: t, GBs: m.GBs})
		rep.Measurements = append(rep.Measurements, m)
		if t.Median < best {
			best, s.Best = t.Median, c.label
		}
	}
	if len(s.Points) == 0 {
		return fmt.Errorf("sweep %s: the adapter rejected every configuration: %v", kernel, s.Rejected)
	}
	rep.Sweeps = append(rep.Sweeps, s)
	rep.Summary = append(rep.Summary, fmt.Sprintf("%s %s sweep: best %s at %s", kernel, s.Name, s.Best, timing.FormatSeconds(best)))
	return nil
}

// rejectReason checks a configuration against the device limits on the
// host: wgpu-native 29 does not re-check workgroup limits after override
// constants are applied (gfx-rs/wgpu#8946), so a size past the limits
// would otherwise be accepted and dispatched.
func (e *Env) rejectReason(wg, tile int) string {
	l := e.Device.Limits
	if tile > 0 {
		if tile < 4 || tile&(tile-1) != 0 {
			return fmt.Sprintf("tile %d is not a power of two ≥ 4", tile)
		}
		wg = (tile / 4) * (tile / 4)
		if need := compute.TileWorkgroupStorage(tile); need > uint64(l.MaxComputeWorkgroupStorageSize) {
			return fmt.Sprintf("tile %d needs %d bytes of workgroup memory > maxComputeWorkgroupStorageSize %d", tile, need, l.MaxComputeWorkgroupStorageSize)
		}
	}
	if wg <= 0 || wg&(wg-1) != 0 {
		return fmt.Sprintf("workgroup size %d is not a power of two", wg)
	}
	if uint32(wg) > l.MaxComputeInvocationsPerWorkgroup || uint32(wg) > l.MaxComputeWorkgroupSizeX {
		return fmt.Sprintf("workgroup size %d > maxComputeInvocationsPerWorkgroup %d", wg, l.MaxComputeInvocationsPerWorkgroup)
	}
	return ""
}

// MemCompute runs the memory-vs-compute experiment of METHOD.md on the
// GPU: A (reads only), B (arithmetic only), C (the full kernel), each
// verified, then classifies.
func (e *Env) MemCompute(kernel string, cfg RunConfig, rep *report.Report) error {
	cfg.Defaults()
	if err := cfg.Validate(e.Device); err != nil {
		return err
	}
	name := map[string]string{WCosineSingle: "cosine_single"}[kernel]
	if name == "" {
		return fmt.Errorf("experiment memory-compute: kernel %q: have %s", kernel, WCosineSingle)
	}
	data := newCosineData(cfg.Seed, cfg.N, cfg.Dim)
	wg := cfg.Workgroup
	if wg == 0 {
		wg = 64
	}
	mc, err := compute.NewMemCompute(e.Device, name, data.v, cfg.Dim, wg)
	if err != nil {
		return err
	}
	defer mc.Release()
	var sums [3]timing.Summary
	for i, v := range []string{compute.VariantMemory, compute.VariantCompute, compute.VariantFull} {
		e.progress("gpu  memory-compute %s %s", kernel, v)
		// Run verifies every output itself (compute.ErrVerify on mismatch).
		res, err := timing.Measure(e.Measure, func() (timing.Sample, error) {
			t, err := mc.Run(v, e.Timer)
			return timing.Sample{Host: t.EndToEnd, Kernel: t.Kernel, HasKernel: t.KernelValid}, err
		})
		if err != nil {
			return fmt.Errorf("memory-compute %s variant %s: %w", kernel, v, err)
		}
		sums[i] = res.Host
		if res.Kernel != nil {
			sums[i] = *res.Kernel
		}
	}
	cl := timing.ClassifyMemCompute(sums[0], sums[1], sums[2])
	rep.Experiments = append(rep.Experiments, report.Experiment{
		Workload: kernel, Side: report.SideGPU, Params: []report.Param{p("d", cfg.Dim), p("n", cfg.N), p("wg", wg)},
		A: sums[0], B: sums[1], C: sums[2], Classification: cl,
	})
	rep.Summary = append(rep.Summary, fmt.Sprintf("%s: %s — %s", kernel, cl.Kind, cl.Explanation))
	return nil
}
