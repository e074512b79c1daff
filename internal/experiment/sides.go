package experiment

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/wgpu-prof/wgpu-prof/internal/experiment/env"

	"github.com/wgpu-prof/wgpu-prof/hostsimd"
	"github.com/wgpu-prof/wgpu-prof/internal/workload"
	"github.com/wgpu-prof/wgpu-prof/timing"
	"github.com/wgpu-prof/wgpu-prof/timing/clock"
)

// SideSpec is one executor a break-even compares: the GPU or the CPU with
// forced settings ("cpu:threads=2", "cpu:level=avx2", "gpu:wg=64",
// "gpu:data=shipped").
type SideSpec struct {
	Label string // as the user wrote it, normalized
	Kind  string // "gpu" or "cpu"
	// Threads forces the CPU side's worker count (hostsimd.Host.ExactThreads):
	// every call is split across exactly that many threads, even one row.
	// 0: the automatic choice of the normal path.
	Threads int
	// Level forces the CPU side's SIMD level; "": the current one.
	Level string
	// Workgroup is the GPU side's workgroup size; 0: the run's default.
	Workgroup int
	// Shipped: the GPU side's stored data are uploaded on every call
	// (buffers created, V uploaded, dispatch, readback, buffers freed), as
	// an offload library does; false: resident on the GPU, uploaded once.
	Shipped bool
}

// IsGPU reports whether the side runs on the GPU.
func (s SideSpec) IsGPU() bool { return s.Kind == "gpu" }

// Timed says what one timed call of the side covers.
func (s SideSpec) Timed(clock string) string {
	if s.IsGPU() {
		if clock == "kernel" {
			return s.Label + ": GPU kernel time (timestamp queries around the passes)"
		}
		if s.Shipped {
			return s.Label + ": end to end on the host clock, data shipped per call (create buffers + upload V and q + dispatch + wait + readback)"
		}
		return s.Label + ": end to end on the host clock, V resident on the GPU (upload q + dispatch + wait + readback)"
	}
	return s.Label + ": end to end on the host clock (the host kernel call on data in host memory)"
}

// ParseSides parses the --sides flag: two comma-separated side specs, each
// "gpu" or "cpu" followed by ":key=value" settings (cpu: threads, level;
// gpu: wg, data=resident|shipped).
func ParseSides(s string) ([2]SideSpec, error) {
	parts := strings.Split(s, ",")
	if len(parts) != 2 {
		return [2]SideSpec{}, env.Invalid("sides", s, "name exactly two sides, e.g. gpu,cpu or cpu:threads=1,cpu:threads=2")
	}
	var out [2]SideSpec
	for i, p := range parts {
		sp, err := ParseSide(strings.TrimSpace(p))
		if err != nil {
			return out, &env.ParamError{Name: "sides", Value: strconv.Quote(s), Limit: err.Error()}
		}
		out[i] = sp
	}
	if out[0].Label == out[1].Label {
		return out, env.Invalid("sides", s, "the two sides are the same (%s)", out[0].Label)
	}
	return out, nil
}

// ParseSide parses one side spec.
func ParseSide(s string) (SideSpec, error) {
	fields := strings.Split(s, ":")
	sp := SideSpec{Kind: fields[0]}
	if sp.Kind != "gpu" && sp.Kind != "cpu" {
		return sp, fmt.Errorf("side %q: want gpu or cpu first, then :key=value settings", s)
	}
	for _, f := range fields[1:] {
		k, v, ok := strings.Cut(f, "=")
		if !ok {
			return sp, fmt.Errorf("side %q: setting %q is not key=value", s, f)
		}
		switch {
		case sp.Kind == "cpu" && k == "threads":
			n, err := strconv.Atoi(v)
			if m := hostsimd.MaxThreads(); err != nil || n < 1 || n > m {
				return sp, fmt.Errorf("side %q: threads=%s: want an integer in [1, %d] (hostsimd.MaxThreads: 8 per logical CPU)", s, v, m)
			}
			sp.Threads = n
		case sp.Kind == "cpu" && k == "level":
			lv, err := env.ParseLevels(v)
			if err != nil {
				return sp, fmt.Errorf("side %q: %w", s, err)
			}
			if len(lv) != 1 {
				return sp, fmt.Errorf("side %q: level=%s: name one level", s, v)
			}
			sp.Level = lv[0].String()
		case sp.Kind == "gpu" && k == "wg":
			n, err := strconv.Atoi(v)
			if err != nil || n <= 0 || n&(n-1) != 0 {
				return sp, fmt.Errorf("side %q: wg=%s: want a positive power of two", s, v)
			}
			sp.Workgroup = n
		case sp.Kind == "gpu" && k == "data":
			switch v {
			case "resident":
				sp.Shipped = false
			case "shipped":
				sp.Shipped = true
			default:
				return sp, fmt.Errorf("side %q: data=%s: want resident or shipped", s, v)
			}
		default:
			return sp, fmt.Errorf("side %q: unknown setting %q for %s (cpu: threads, level; gpu: wg, data)", s, k, sp.Kind)
		}
	}
	sp.Label = sp.label()
	return sp, nil
}

func (s SideSpec) label() string {
	l := s.Kind
	if s.Level != "" {
		l += ":level=" + s.Level
	}
	if s.Threads > 0 {
		l += fmt.Sprintf(":threads=%d", s.Threads)
	}
	if s.Workgroup > 0 {
		l += fmt.Sprintf(":wg=%d", s.Workgroup)
	}
	if s.Shipped {
		l += ":data=shipped"
	}
	return l
}

// ShippedLog records, per call of a shipped GPU side, the time spent
// creating buffers and uploading the stored data.
type ShippedLog struct{ Upload []time.Duration }

// build makes the side of case c on e's device with the spec's settings
// forced around every call (outside the timed region). A shipped GPU side
// builds the runner (buffers, upload) inside each timed call. log, when
// not nil, receives the upload times of a shipped side.
func BuildSide(e *env.Env, sp SideSpec, c workload.Case, log *ShippedLog) (workload.Side, error) {
	if sp.IsGPU() {
		if c.GPU == nil {
			return nil, fmt.Errorf("%s: %s has no GPU side", sp.Label, c.Name)
		}
		if !sp.Shipped {
			return c.GPU.BuildGPU(e.GPU())
		}
		return &shippedSide{g: e.GPU(), c: c, log: log}, nil
	}
	if c.CPU == nil {
		return nil, fmt.Errorf("%s: %s has no CPU side", sp.Label, c.Name)
	}
	h := e.Host
	if sp.Threads > 0 {
		h.ExactThreads = sp.Threads
	}
	if sp.Level != "" {
		level, err := hostsimd.ParseLevel(sp.Level)
		if err != nil {
			return nil, err
		}
		h.Level, h.FixLevel = level, true
	}
	if err := h.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", sp.Label, err)
	}
	return c.CPU.BuildCPU(h)
}

// shippedSide is a GPU side whose every call creates the runner (buffers,
// upload of the stored data), poisons its outputs (untimed), runs it and
// keeps it for Verify; the previous call's runner is released before the
// next call's clock starts.
type shippedSide struct {
	g   workload.GPU
	c   workload.Case
	log *ShippedLog
	cur workload.Side // the last call's side; nil before the first
}

// Poison does nothing: each call poisons the side it builds.
func (s *shippedSide) Poison() {}

// Run builds the runner, poisons and runs it, adding the build time.
func (s *shippedSide) Run() (timing.Sample, error) {
	s.Close()
	start := clock.Now()
	side, err := s.c.GPU.BuildGPU(s.g)
	up := clock.Since(start)
	if err != nil {
		return timing.Sample{}, err
	}
	s.cur = side
	side.Poison()
	smp, err := side.Run()
	if err != nil {
		return smp, err
	}
	if s.log != nil {
		s.log.Upload = append(s.log.Upload, up)
	}
	smp.Host += up
	return smp, nil
}

// Verify checks the last call's output.
func (s *shippedSide) Verify() error {
	if s.cur == nil {
		return fmt.Errorf("%s shipped: no call to verify", s.c.Name)
	}
	return s.cur.Verify()
}

// Close releases the last call's runner.
func (s *shippedSide) Close() {
	if s.cur != nil {
		s.cur.Close()
		s.cur = nil
	}
}
