package kernel

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"path/filepath"
	"time"

	"github.com/wgpu-prof/wgpu-prof/internal/experiment"
	"github.com/wgpu-prof/wgpu-prof/internal/experiment/env"

	"github.com/wgpu-prof/wgpu-prof/compute"
	"github.com/wgpu-prof/wgpu-prof/compute/wgpu"

	"github.com/wgpu-prof/wgpu-prof/internal/report"
	"github.com/wgpu-prof/wgpu-prof/internal/workload"
	"github.com/wgpu-prof/wgpu-prof/timing"
	"github.com/wgpu-prof/wgpu-prof/timing/clock"
)

// TwinWorkloads lists the workloads whose operation a user's kernel may
// be compared against (wgpu-prof kernel --cpu-twin).
func TwinWorkloads() []string {
	var out []string
	for _, w := range workload.All() {
		pr, err := w.Prepare(workload.Config{Dim: 4, N: 1, Q: 1, C: 1, K: 1, Nodes: 1, Degree: 1, Steps: 1, Seed: 1})
		if err == nil && pr.At(1, workload.Knobs{}).Twin != nil {
			out = append(out, w.Name)
		}
	}
	return out
}

// Twin compares a user's kernel with the CPU side of the built-in
// workload twin, which computes the same operation: at each batch size n
// the kernel gets the twin's inputs in its storage buffers of the same
// names (created as f32 when not declared with --buffer), the override
// constants N = n and D = the dimension where the shader declares them,
// and its dispatch evaluated with N = n; its output is checked against the
// twin's float64 reference before and after timing. The break-even is
// timing.CompareExecutors over batch sizes from 1 to the twin's size.
func Twin(ctx context.Context, e *env.Env, kc Config, twin string, rc experiment.RunConfig, budget time.Duration, rep *report.Report) error {
	w, err := workload.Lookup(twin)
	if err != nil {
		return env.Usage(&env.ParamError{Name: "cpu-twin", Value: twin, Limit: err.Error()})
	}
	rc.Workloads = []string{twin}
	rc.Defaults()
	if _, err := rc.Validate(e.Device); err != nil {
		return err
	}
	pr, err := w.Prepare(rc.Config)
	if err != nil {
		return err
	}
	if pr.At(1, workload.Knobs{}).Twin == nil {
		return env.Usage(&env.ParamError{Name: "cpu-twin", Value: twin, Limit: fmt.Sprintf("has no kernel interface (have %v)", TwinWorkloads())})
	}
	info, err := wgpu.ScanWGSL(kc.Source)
	if err != nil {
		return err
	}
	name := "kernel:" + filepath.Base(kc.File)
	cpu := timing.Executor{Name: twin + " (cpu)", At: func(n int) (timing.Call, error) {
		s, err := pr.At(n, workload.Knobs{}).CPU.BuildCPU(e.Host)
		if err != nil {
			return timing.Call{}, err
		}
		s.Poison()
		return timing.Call{Run: s.Run, Verify: s.Verify, Close: s.Close}, nil
	}}
	gpu := timing.Executor{Name: name, At: func(n int) (timing.Call, error) { return twinKernelCall(e, kc, info, rc.Dim, pr, name, n) }}
	e.Progressf("%s vs %s: adaptive break-even", name, cpu.Name)
	sizes := experiment.PowersOf4(1, pr.Size)
	if len(sizes) < 3 {
		sizes = []int{1, max(2, pr.Size/2), pr.Size}
	}
	r, err := timing.CompareExecutors(ctx, cpu, gpu, timing.CompareOpts{Sizes: sizes, Max: pr.Size,
		MaxReason: fmt.Sprintf("the twin's %s %d", w.Batch, pr.Size), Measure: e.Measure, Budget: budget})
	if err != nil {
		return e.Interrupted("kernel twin", err)
	}
	be := report.BreakEven{Workload: name + " vs " + twin, Batch: w.Batch, Params: pr.Fixed, Clock: "end-to-end",
		Sides: []string{cpu.Name, gpu.Name}, Timed: "host clock around each call, both sides",
		CPUFit: r.ModelA.Single, GPUFit: r.ModelB.Single, Fitted: report.NewCrossover(r.Predicted.Crossover),
		Search: &r.Search, ModelA: &r.ModelA, ModelB: &r.ModelB, Predicted: report.NewPredicted(r.Predicted)}
	for _, p := range r.Search.Points {
		be.Batches = append(be.Batches, p.N)
		be.CPU, be.GPU = append(be.CPU, p.A), append(be.GPU, p.B)
	}
	if r.Search.Found {
		be.Measured, be.MeasuredFound = r.Search.Hi, true
	}
	rep.BreakEvens = append(rep.BreakEvens, be)
	rep.Summary = append(rep.Summary, fmt.Sprintf("%s against %s's CPU side: %s; verified against the float64 reference at every size", name, twin, r.Verdict))
	return nil
}

// f32le is v as little-endian bytes.
func f32le(v []float32) []byte {
	out := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(out[4*i:], math.Float32bits(x))
	}
	return out
}

// twinKernelCall builds the user's kernel at batch size n over the twin
// workload's inputs: the buffers the twin names are filled with its data
// (added where the user declared none), the overrides N and D are set where
// the shader declares them, and the dispatch expressions are evaluated at
// N = n. Verify checks the output against the twin's reference.
func twinKernelCall(e *env.Env, kc Config, info *wgpu.WGSLModuleInfo, dim int, pr *workload.Prepared, name string, n int) (timing.Call, error) {
	c := pr.At(n, workload.Knobs{})
	tw := c.Twin
	set := map[string]int64{"N": int64(n)}
	consts := wgpu.Constants{}
	for k, v := range kc.Constants {
		consts[k] = v
		set[k] = int64(v)
	}
	for k, v := range map[string]float64{"N": float64(n), "D": float64(dim)} {
		if _, ok := info.Overrides[k]; ok {
			consts[k] = v
		}
	}
	var dispatch [3]uint32
	for i := range dispatch {
		dispatch[i] = 1
	}
	for i, expr := range kc.Dispatch {
		v, err := info.EvalInt(expr, set)
		if err != nil || v < 1 || v > 1<<32-1 {
			return timing.Call{}, &env.ParamError{Name: "dispatch", Value: expr, Limit: fmt.Sprintf("at N = %d: %v (value %d)", n, err, v)}
		}
		dispatch[i] = uint32(v)
	}
	var bufs []compute.BufferSpec
	given := map[string]bool{}
	for _, b := range kc.Buffers {
		if in, ok := tw.Inputs[b.Name]; ok {
			b.Count, b.Data = len(in), f32le(in)
		} else if b.Name == tw.Output {
			b.Count = tw.OutLen
		}
		given[b.Name] = true
		bufs = append(bufs, b)
	}
	for nm, in := range tw.Inputs {
		if !given[nm] {
			bufs = append(bufs, compute.BufferSpec{Name: nm, Type: "f32", Count: len(in), Data: f32le(in)})
		}
	}
	if !given[tw.Output] {
		bufs = append(bufs, compute.BufferSpec{Name: tw.Output, Type: "f32", Count: tw.OutLen})
	}
	k, err := compute.NewUserKernel(e.Device, compute.UserKernelOptions{Label: filepath.Base(kc.File), Source: kc.Source, Entry: kc.Entry,
		Buffers: bufs, Dispatch: dispatch, Constants: consts, Seed: kc.Seed, LoopIterations: kc.LoopIterations})
	if err != nil {
		return timing.Call{}, err
	}
	return timing.Call{
		Run: func() (timing.Sample, error) {
			start := clock.Now()
			t, err := k.Run(e.Timer)
			return e.GPUSample(name, start, t, err)
		},
		Verify: func() error {
			b, err := k.Read(tw.Output)
			if err != nil {
				return err
			}
			out := make([]float32, len(b)/4)
			for i := range out {
				out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
			}
			return tw.Check(out)
		},
		Close: k.Release,
	}, nil
}
