package ceilings

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"time"

	"github.com/wgpu-prof/wgpu-prof/internal/experiment"
	"github.com/wgpu-prof/wgpu-prof/internal/experiment/env"

	"github.com/wgpu-prof/wgpu-prof/compute"
	"github.com/wgpu-prof/wgpu-prof/hostsimd"
	"github.com/wgpu-prof/wgpu-prof/stream"
	"github.com/wgpu-prof/wgpu-prof/timing"
)

// BabelStream's defaults, for the CLI's flags.
const (
	StreamDefaultArraySize = stream.DefaultArraySize
	StreamDefaultNumTimes  = stream.DefaultNumTimes
)

// OpenStream opens the selected adapter's device for RunStreamGPU (no
// measurement options: the stream has its own runs).
func OpenStream(sel env.AdapterSelect, noTimestamps bool) (*env.Env, error) {
	return env.Open(sel, timing.MeasureOpts{}, noTimestamps)
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
	if err := (stream.Opts{ArraySize: c.ArraySize, NumTimes: c.NumTimes}).Validate(); err != nil {
		var fe *stream.FieldError
		if errors.As(err, &fe) {
			// The CLI's flags are the fields' names in lower case.
			return env.Usage(fmt.Errorf("--%s %d: must be %s", strings.ToLower(fe.Field), fe.Value, fe.Want))
		}
		return env.Usage(err)
	}
	if err := env.CheckThreads(c.Threads); err != nil {
		return err
	}
	// BabelStream's three arrays (and the GPU's staging of one).
	elem := 4.0
	if c.F64 {
		elem = 8
	}
	return env.CheckMemory(fmt.Sprintf("arraysize %d", c.ArraySize), 4*elem*float64(c.ArraySize), false)
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
	Rows  []stream.Stats
	// HostRows (GPU with timestamps only) are the same runs timed by the
	// host clock around submit and wait.
	HostRows []stream.Stats
	Parts    int // GPU: bindings each array was split into
	Threads  int // CPU
}

// ErrStreamF64 reports a float64 stream the side cannot run.
var ErrStreamF64 = errors.New("float64 stream not available")

func summarize(times [][]time.Duration, n, sizeof int) ([]stream.Stats, error) {
	var out []stream.Stats
	for i, k := range stream.Kernels {
		st, err := stream.Summarize(k, times[i], n, sizeof)
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
		Side: "cpu", Device: fmt.Sprintf("%s, %v, %d threads", env.HostInfo(cfg.Host).CPU, r.Level, r.Threads),
		ArraySize: r.ArraySize, NumTimes: r.NumTimes, Sizeof: 4, Timed: "wall clock", Rows: rows, Threads: r.Threads,
	}, nil
}

// RunStreamGPU runs the stream in WGSL on e's device (compute.RunStream).
func RunStreamGPU(e *env.Env, cfg StreamConfig) (StreamRun, error) {
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
		Side: "gpu", Device: fmt.Sprintf("%s (%s) through %s %s", e.Device.Info.Name, e.Device.Info.Backend, e.Device.Impl(), e.Device.ImplVersion()),
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

// streamCeilingRuns is how often the Classic order runs when the stream
// kernels join the ceilings (the first run excluded, the best kept).
const streamCeilingRuns = 4

// streamRates are the GB/s (10^9 bytes) of each kernel's best run.
func streamRates(rows []stream.Stats) map[stream.Kernel]float64 {
	out := map[stream.Kernel]float64{}
	for _, r := range rows {
		out[r.Kernel] = r.MBytesPerSec / 1e3
	}
	return out
}

// streamIntoCPUCeilings runs BabelStream's kernels over arrays of c.Bytes
// on c.Threads threads and raises c's read (Dot reads two arrays), copy
// and triad ceilings where a stream kernel was faster: a ceiling is the
// best this machine does, whichever kernel did it. It returns the stream
// kernels' rates as report keys (stream_<kernel>_gbs).
//
// BabelStream's arrays hold at most stream.MaxArraySize elements: where
// c.Bytes is larger, the kernels run over that many (still past every
// cache level the plan sized c.Bytes for), and the stream_array_bytes
// key, which StreamArrayNote reads, says so.
func streamIntoCPUCeilings(h hostsimd.Host, c *hostsimd.Ceilings, stop func() bool) (map[string]float64, error) {
	runtime.GC() // the ceiling arrays are garbage: do not hold both sets
	elems := int(min(c.Bytes/4, int64(streamMaxElements)))
	r, err := h.RunStream(hostsimd.StreamOpts{ArraySize: elems, NumTimes: streamCeilingRuns, Threads: c.Threads, Stop: stop})
	if errors.Is(err, hostsimd.ErrStopped) {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("cpu stream kernels for the ceilings: %w", err)
	}
	rows, err := summarize(r.Times, r.ArraySize, 4)
	if err != nil {
		return nil, err
	}
	rates := streamRates(rows)
	if g := rates[stream.Dot]; g > c.ReadGBs {
		c.ReadGBs, c.ReadKernel, c.ReadPrefetch = g, "BabelStream Dot", 0
	}
	c.CopyGBs = max(c.CopyGBs, rates[stream.Copy])
	c.TriadGBs = max(c.TriadGBs, rates[stream.Triad])
	keys := streamKeys(rates)
	keys["stream_array_bytes"] = float64(4 * int64(elems))
	return keys, nil
}

// streamMaxElements is BabelStream's array limit (a variable so that a
// test can reach the limit without allocating 8 GiB).
var streamMaxElements = stream.MaxArraySize

// StreamArrayNote is the summary line saying that the CPU stream kernels
// ran over smaller arrays than the ceilings' bytes per array (BabelStream's
// element limit), or "" when they ran over the same bytes.
func StreamArrayNote(keys map[string]float64, ceilingBytes int64) string {
	sb, ok := keys["stream_array_bytes"]
	if !ok || sb >= float64(ceilingBytes) {
		return ""
	}
	return fmt.Sprintf("cpu stream kernels over %s per array, BabelStream's limit of %d elements, below the ceilings' %s per array",
		experiment.FmtBytes(sb), streamMaxElements, experiment.FmtBytes(float64(ceilingBytes)))
}

func streamKeys(rates map[stream.Kernel]float64) map[string]float64 {
	keys := map[string]float64{}
	for k, g := range rates {
		keys["stream_"+strings.ToLower(k.String())+"_gbs"] = g
	}
	return keys
}

// streamIntoGPUCeilings does the same on the GPU over arrays of
// c.Bytes: read (Dot) and copy.
func streamIntoGPUCeilings(e *env.Env, c *compute.Ceilings) (map[string]float64, error) {
	r, err := compute.RunStream(e.Device, compute.StreamOptions{ArraySize: int(c.Bytes / 4), NumTimes: streamCeilingRuns})
	if err != nil {
		return nil, fmt.Errorf("gpu stream kernels for the ceilings: %w", err)
	}
	if r.Timed != c.Timed {
		// Compare like with like: a host-clock stream against timestamp
		// ceilings (or the reverse) is left out.
		return nil, nil
	}
	rows, err := summarize(r.Times, r.ArraySize, r.Sizeof)
	if err != nil {
		return nil, err
	}
	rates := streamRates(rows)
	if g := rates[stream.Dot]; g > c.ReadGBs {
		c.ReadGBs, c.ReadDesign = g, "BabelStream Dot"
	}
	c.ReadTried = append(c.ReadTried, compute.CeilingDesign{Name: "BabelStream Dot", GBs: rates[stream.Dot]})
	if g := rates[stream.Copy]; g > c.CopyGBs {
		c.CopyGBs, c.CopyDesign = g, "BabelStream Copy"
	}
	c.CopyTried = append(c.CopyTried, compute.CeilingDesign{Name: "BabelStream Copy", GBs: rates[stream.Copy]})
	return streamKeys(rates), nil
}
