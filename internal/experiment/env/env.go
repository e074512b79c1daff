package env

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/wgpu-prof/wgpu-prof/compute"
	"github.com/wgpu-prof/wgpu-prof/compute/wgpu"

	"github.com/klauspost/cpuid/v2"

	"github.com/wgpu-prof/wgpu-prof/hostsimd"
	"github.com/wgpu-prof/wgpu-prof/internal/report"
	"github.com/wgpu-prof/wgpu-prof/machine"
	"github.com/wgpu-prof/wgpu-prof/timing"
)

// AdapterSelect picks the adapter to run on.
type AdapterSelect struct {
	Impl    string // wgpu-native or dawn; "": $WGPU_PROF_IMPL, else wgpu-native
	Backend string // vulkan, metal, d3d12, gl or any ("")
	Index   int    // -1: default
	Name    string // substring of the adapter name
	// DumpShaders keeps the code the implementation compiles from each
	// WGSL module (wgpu.DeviceOptions.DumpShaders).
	DumpShaders bool
}

// Env is an open GPU device with its timer, plus the measurement options.
type Env struct {
	dev    *compute.Device
	Device *wgpu.Device
	// Timer is nil when the device has no timestamp queries; kernel times
	// are then absent and the report says so.
	Timer   *wgpu.Timer
	Measure timing.MeasureOpts
	// Host is how the CPU sides run (level, threads); the zero Host is
	// the default.
	Host     hostsimd.Host
	Progress io.Writer // nil: silent
	// TimestampsOK is the outcome of the timestamp probe.
	TimestampsOK     bool
	TimestampProblem string

	interrupted atomic.Bool
	ctxOnce     sync.Once
	ctx         context.Context
	cancel      context.CancelFunc
	// restoreMachine puts back the machine description SetMaxMemory
	// replaced (Close calls it).
	restoreMachine func()

	tracing    bool
	traceStart time.Time
	traceCalls []tracedCall
	traceCount int      // events recorded
	traceDrop  int      // calls not recorded past maxTraceEvents
	traceCtx   traceCtx // what the GPU calls now being made belong to
}

// Open opens the selected adapter's device and probes its timestamps.
func Open(sel AdapterSelect, opts timing.MeasureOpts, noTimestamps bool) (*Env, error) {
	backend, err := wgpu.ParseBackend(sel.Backend)
	if err != nil {
		return nil, err
	}
	impl := wgpu.ImplDefault
	if sel.Impl != "" {
		if impl, err = wgpu.ParseImpl(sel.Impl); err != nil {
			return nil, Usage(fmt.Errorf("--impl %q: %w", sel.Impl, err))
		}
	}
	dev, err := compute.Open(context.Background(), compute.Options{
		Impl: impl, Backend: backend, Name: sel.Name, Index: sel.Index, UseIndex: sel.Index >= 0,
		Device: wgpu.DeviceOptions{NoTimestamps: noTimestamps, DumpShaders: sel.DumpShaders},
	})
	if err != nil {
		return nil, err
	}
	return &Env{dev: dev, Device: dev.Device, Timer: dev.Timer, Measure: opts,
		TimestampsOK: dev.Timestamps.OK, TimestampProblem: dev.Timestamps.Reason}, nil
}

// Close releases everything; idempotent.
func (e *Env) Close() {
	if e == nil {
		return
	}
	e.dev.Release()
	e.dev, e.Device, e.Timer = nil, nil, nil
	if e.restoreMachine != nil {
		e.restoreMachine()
		e.restoreMachine = nil
	}
}

// SetMaxMemory sets the memory budget every phase of this environment
// plans its working sets in (--max-memory; 0 or less: the default,
// machine.Machine.Budget) until Close.
func (e *Env) SetMaxMemory(bytes int64) {
	if bytes <= 0 {
		return
	}
	restore := SetMaxMemory(bytes)
	if prev := e.restoreMachine; prev != nil {
		e.restoreMachine = func() { restore(); prev() }
	} else {
		e.restoreMachine = restore
	}
}

// SetQuickMemory makes every phase of this environment plan inside the
// budget of a quick look (SetQuickMemory) until Close.
func (e *Env) SetQuickMemory() {
	restore := SetQuickMemory()
	if prev := e.restoreMachine; prev != nil {
		e.restoreMachine = func() { restore(); prev() }
	} else {
		e.restoreMachine = restore
	}
}

// MemoryBudget is the memory budget of one phase (quick: of a quick
// look), in bytes.
func MemoryBudget(quick bool) int64 { return machine.Current().Budget(quick) }

// FreeMemory hands the arrays of a finished phase back to the OS, so
// that the next phase starts from what the process needs, not from the
// largest phase before it (TestRepeatedPhasesMemoryFlat).
func FreeMemory() { debug.FreeOSMemory() }

// Stopped reports whether Interrupt was called.
func (e *Env) Stopped() bool { return e.interrupted.Load() }

// CheckStop returns an error wrapping ErrInterrupted, naming the phase,
// once Interrupt was called.
func (e *Env) CheckStop(phase string) error {
	if e.Stopped() {
		return fmt.Errorf("%s: %w", phase, ErrInterrupted)
	}
	return nil
}

// ErrInterrupted is returned by a run stopped by Interrupt.
var ErrInterrupted = errors.New("interrupted")

// Stopped turns a host measurement's ErrStopped into ErrInterrupted (the
// other errors are returned as they are).
func Stopped(err error) error {
	if errors.Is(err, hostsimd.ErrStopped) {
		return fmt.Errorf("%w (%v)", ErrInterrupted, err)
	}
	return err
}

// Interrupt asks the running measurement to stop before its next case
// (safe from any goroutine, e.g. a signal handler); the run returns an
// error wrapping ErrInterrupted and keeps the rows it finished.
func (e *Env) Interrupt() {
	e.interrupted.Store(true)
	e.Context()
	e.cancel()
}

// Context returns a context that Interrupt cancels, for the measurements
// that take one: they stop at their next check of it, as the others do
// at their next check of Stopped.
func (e *Env) Context() context.Context {
	e.ctxOnce.Do(func() {
		e.ctx, e.cancel = context.WithCancel(context.Background())
		if e.Stopped() {
			e.cancel()
		}
	})
	return e.ctx
}

// Interrupted turns the error of a phase measured under Context into one
// wrapping ErrInterrupted, naming the phase, when Interrupt ended it.
func (e *Env) Interrupted(phase string, err error) error {
	if err != nil && e.Stopped() && errors.Is(err, context.Canceled) {
		return fmt.Errorf("%s: %w", phase, ErrInterrupted)
	}
	return err
}

func (e *Env) Progressf(format string, args ...any) {
	if e.Progress != nil {
		fmt.Fprintf(e.Progress, format+"\n", args...)
	}
}

// AdapterInfo describes the device for the report.
func (e *Env) AdapterInfo() report.AdapterInfo {
	i := e.Device.Info
	return report.AdapterInfo{
		Name: i.Name, Vendor: i.Vendor, Backend: i.Backend.String(), DeviceType: i.Type.String(),
		Driver: i.Driver, TimestampsOK: e.TimestampsOK,
		Implementation: e.Device.Impl().String(), ImplementationVersion: e.Device.ImplVersion(),
	}
}

// HostInfo describes the CPU side, run with h, for the report.
func HostInfo(h hostsimd.Host) report.HostInfo {
	return report.HostInfo{
		CPU:       fmt.Sprintf("%s (%s)", cpuid.CPU.BrandName, strings.Replace(report.Cores(runtime.NumCPU()), " core", " logical core", 1)),
		Cores:     h.ThreadCount(),
		SIMDLevel: h.ActiveLevel().String(),
	}
}

// NewReport starts a report for this environment.
func (e *Env) NewReport(tool string) *report.Report {
	r := report.New(tool, time.Now().UTC())
	r.WgpuNativeVersion = wgpu.Version()
	r.Adapter = e.AdapterInfo()
	r.Host = HostInfo(e.Host)
	if !e.TimestampsOK {
		r.Warnings = append(r.Warnings, "GPU timestamps unavailable ("+e.TimestampProblem+"): kernel times absent, end-to-end host-clock times only")
	}
	if e.Device.Info.Type == wgpu.DeviceCPU {
		r.Warnings = append(r.Warnings, fmt.Sprintf("the adapter %q is a CPU implementation of the GPU API: its 'GPU' numbers measure this CPU, not a GPU", e.Device.Info.Name))
	}
	return r
}
