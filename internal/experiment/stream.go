package experiment

import (
	"errors"
	"fmt"
	"runtime"
	"time"

	"github.com/wgpu-prof/wgpu-prof/compute"
	"github.com/wgpu-prof/wgpu-prof/hostsimd"
	"github.com/wgpu-prof/wgpu-prof/internal/babelstream"
	"github.com/wgpu-prof/wgpu-prof/timing"
)

// BabelStream's defaults, for the CLI's flags.
const (
	StreamDefaultArraySize = babelstream.DefaultArraySize
	StreamDefaultNumTimes  = babelstream.DefaultNumTimes
)

// OpenStream opens the selected adapter's device for RunStreamGPU (no
// measurement options: the stream has its own runs).
func OpenStream(sel AdapterSelect, noTimestamps bool) (*Env, error) {
	return Open(sel, timing.MeasureOpts{}, noTimestamps)
}

// StreamConfig configures RunStreamCPU and RunStreamGPU.
type StreamConfig struct {
	ArraySize int  // elements per array (BabelStream's --arraysize)
	NumTimes  int  // runs of the Classic order (--numtimes)
	F64       bool // float64 (GPU: needs shader-f64); else float32
	Threads   int  // CPU threads (0: GOMAXPROCS)
	// Host is the CPU side's level (its threads are Threads).
	Host hostsimd.Host
}

// Validate checks the configuration, naming the bad flag.
func (c StreamConfig) Validate() error {
	if err := (babelstream.Opts{ArraySize: c.ArraySize, NumTimes: c.NumTimes}).Validate(); err != nil {
		return usage(err)
	}
	if err := CheckThreads(c.Threads); err != nil {
		return err
	}
	return nil
}

// StreamRun is one side's BabelStream-compatible result.
type StreamRun struct {
	Side      string // "cpu" or "gpu"
	Device    string // the adapter, or the CPU with its level and threads
	ArraySize int
	NumTimes  int
	Sizeof    int
	// Timed says what Rows are from: "wall clock" (CPU), "timestamps" or
	// "host clock" (GPU).
	Timed string
	Rows  []babelstream.Stats
	// HostRows (GPU with timestamps only) are the same runs timed by the
	// host clock around submit and wait.
	HostRows []babelstream.Stats
	Parts    int // GPU: bindings each array was split into
	Threads  int // CPU
}

// ErrStreamF64 reports a float64 stream the side cannot run.
var ErrStreamF64 = errors.New("float64 stream not available")

func summarize(times [][]time.Duration, n, sizeof int) ([]babelstream.Stats, error) {
	var out []babelstream.Stats
	for i, k := range babelstream.Kernels {
		st, err := babelstream.Summarize(k, times[i], n, sizeof)
		if err != nil {
			return nil, err
		}
		out = append(out, st)
	}
	return out, nil
}

// RunStreamCPU runs the stream with the host SIMD kernels of cfg.Host's
// level (hostsimd.Host.RunStream) in float32.
func RunStreamCPU(cfg StreamConfig) (StreamRun, error) {
	if cfg.F64 {
		return StreamRun{}, fmt.Errorf("stream --side cpu: %w: the host SIMD kernels are float32", ErrStreamF64)
	}
	r, err := cfg.Host.RunStream(hostsimd.StreamOpts{ArraySize: cfg.ArraySize, NumTimes: cfg.NumTimes, Threads: cfg.Threads})
	if err != nil {
		return StreamRun{}, err
	}
	rows, err := summarize(r.Times, r.ArraySize, 4)
	if err != nil {
		return StreamRun{}, err
	}
	return StreamRun{
		Side: "cpu", Device: fmt.Sprintf("%s, %v, %d threads", HostInfo(cfg.Host).CPU, r.Level, r.Threads),
		ArraySize: r.ArraySize, NumTimes: r.NumTimes, Sizeof: 4, Timed: "wall clock", Rows: rows, Threads: r.Threads,
	}, nil
}

// RunStreamGPU runs the stream in WGSL on e's device (compute.RunStream).
func RunStreamGPU(e *Env, cfg StreamConfig) (StreamRun, error) {
	r, err := compute.RunStream(e.Device, compute.StreamOptions{ArraySize: cfg.ArraySize, NumTimes: cfg.NumTimes, F64: cfg.F64})
	if errors.Is(err, compute.ErrNoF64) {
		return StreamRun{}, fmt.Errorf("stream: %w on %s: the adapter has no shader-f64 feature", ErrStreamF64, e.Device.Info.Name)
	}
	if err != nil {
		return StreamRun{}, err
	}
	rows, err := summarize(r.Times, r.ArraySize, r.Sizeof)
	if err != nil {
		return StreamRun{}, err
	}
	run := StreamRun{
		Side: "gpu", Device: fmt.Sprintf("%s (%s)", e.Device.Info.Name, e.Device.Info.Backend),
		ArraySize: r.ArraySize, NumTimes: r.NumTimes, Sizeof: r.Sizeof, Timed: r.Timed, Rows: rows, Parts: r.Parts,
	}
	if r.Timed == "timestamps" {
		if run.HostRows, err = summarize(r.HostTimes, r.ArraySize, r.Sizeof); err != nil {
			return StreamRun{}, err
		}
	}
	runtime.KeepAlive(e)
	return run, nil
}
