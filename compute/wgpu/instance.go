package wgpu

/*
#include "shim.h"
*/
import "C"

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"unsafe"
)

// Backend is a graphics API that wgpu-native can run on.
type Backend int

const (
	BackendUndefined Backend = iota
	BackendVulkan
	BackendMetal
	BackendD3D12
	BackendOpenGL
	BackendOther
)

func (b Backend) String() string {
	switch b {
	case BackendVulkan:
		return "vulkan"
	case BackendMetal:
		return "metal"
	case BackendD3D12:
		return "d3d12"
	case BackendOpenGL:
		return "gl"
	case BackendOther:
		return "other"
	}
	return "any"
}

// ParseBackend parses "vulkan", "metal", "d3d12", "gl" or "any"/"".
func ParseBackend(s string) (Backend, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "any", "all":
		return BackendUndefined, nil
	case "vulkan", "vk":
		return BackendVulkan, nil
	case "metal", "mtl":
		return BackendMetal, nil
	case "d3d12", "dx12":
		return BackendD3D12, nil
	case "gl", "opengl", "gles":
		return BackendOpenGL, nil
	}
	return 0, fmt.Errorf("wgpu: ParseBackend: unknown backend %q (want vulkan, metal, d3d12, gl or any)", s)
}

func (b Backend) instanceMask() uint64 {
	switch b {
	case BackendVulkan:
		return 1 << 0
	case BackendOpenGL:
		return 1 << 1
	case BackendMetal:
		return 1 << 2
	case BackendD3D12:
		return 1 << 3
	}
	return 0 // all
}

func backendFromC(t C.WGPUBackendType) Backend {
	switch t {
	case C.WGPUBackendType_Vulkan:
		return BackendVulkan
	case C.WGPUBackendType_Metal:
		return BackendMetal
	case C.WGPUBackendType_D3D12:
		return BackendD3D12
	case C.WGPUBackendType_OpenGL, C.WGPUBackendType_OpenGLES:
		return BackendOpenGL
	}
	return BackendOther
}

// Instance is the entry point of a WebGPU implementation.
type Instance struct {
	c C.WGPUInstance
	// backend is the one backend the instance was restricted to
	// (BackendUndefined: all).
	backend Backend
	impl    Impl
}

// Backend is the backend the instance was restricted to (BackendUndefined:
// all of them).
func (i *Instance) Backend() Backend {
	if i == nil {
		return BackendUndefined
	}
	return i.backend
}

// Impl is the implementation the instance belongs to.
func (i *Instance) Impl() Impl {
	if i == nil {
		return ImplDefault
	}
	return i.impl
}

// NewInstance creates an instance of the default implementation
// (DefaultImpl: $WGPU_PROF_IMPL, else wgpu-native); see NewInstanceImpl.
func NewInstance(b Backend) (*Instance, error) {
	return NewInstanceImpl(ImplDefault, b)
}

// NewInstanceImpl creates an instance of impl restricted to one backend,
// or all backends for BackendUndefined. It loads impl's library first
// (LoadImpl) and returns its error, wrapping ErrNoLibrary or ErrNoDawn when
// no library was found. Instances of one implementation only may be open
// at a time.
func NewInstanceImpl(impl Impl, b Backend) (*Instance, error) {
	impl, err := impl.Resolve()
	if err != nil {
		return nil, err
	}
	if err := LoadImpl(impl); err != nil {
		return nil, err
	}
	if err := acquireImpl(impl); err != nil {
		return nil, err
	}
	c := C.shim_create_instance(C.uint64_t(b.instanceMask()))
	if c == nil {
		releaseImpl(impl)
		return nil, fmt.Errorf("wgpu: CreateInstance: %s returned no instance", impl)
	}
	return &Instance{c: c, backend: b, impl: impl}, nil
}

// Release frees the instance. Adapters and devices obtained from it must be
// released first. Calling Release twice is harmless.
func (i *Instance) Release() {
	if i == nil || i.c == nil {
		return
	}
	C.wgpuInstanceRelease(i.c)
	i.c = nil
	releaseImpl(i.impl)
}

// Adapters lists every adapter of the instance's backends.
func (i *Instance) Adapters() ([]*Adapter, error) {
	if i == nil || i.c == nil {
		return nil, fmt.Errorf("wgpu: Adapters: %w", ErrReleased)
	}
	n := C.wgpuInstanceEnumerateAdapters(i.c, nil, nil)
	if n == 0 {
		return nil, nil
	}
	buf := (*C.WGPUAdapter)(C.calloc(n, C.size_t(unsafe.Sizeof(C.WGPUAdapter(nil)))))
	defer C.free(unsafe.Pointer(buf))
	n = C.wgpuInstanceEnumerateAdapters(i.c, nil, buf)
	raw := unsafe.Slice(buf, int(n))
	out := make([]*Adapter, 0, len(raw))
	for idx, c := range raw {
		a, err := newAdapter(i, c, idx)
		if err != nil {
			for _, o := range out {
				o.Release()
			}
			for _, rest := range raw[idx+1:] {
				C.wgpuAdapterRelease(rest)
			}
			return nil, err
		}
		out = append(out, a)
	}
	return out, nil
}

// AdapterQuery selects an adapter: by backend, then by Index among the
// matches, or by a case-insensitive substring of its name. A query with no
// Backend takes that of the instance the adapters came from (an instance
// made for OpenGL is asked for its OpenGL adapters).
type AdapterQuery struct {
	Backend Backend
	Index   int    // -1: the default (best) adapter
	Name    string // substring of Info.Name; empty: any
}

// SelectAdapter picks one adapter from list according to q and releases
// nothing; the caller keeps ownership of all adapters. The default choice
// prefers a discrete GPU, then integrated, then others, then CPU adapters.
func SelectAdapter(list []*Adapter, q AdapterQuery) (*Adapter, error) {
	for i, a := range list {
		if a == nil {
			return nil, fmt.Errorf("wgpu: SelectAdapter: adapter %d is nil: %w", i, ErrReleased)
		}
	}
	instBackend := BackendUndefined
	for i, a := range list {
		b := a.inst.Backend()
		if i > 0 && b != instBackend {
			instBackend = BackendUndefined
			break
		}
		instBackend = b
	}
	if q.Backend == BackendUndefined {
		q.Backend = instBackend
	} else if instBackend != BackendUndefined && q.Backend != instBackend {
		return nil, fmt.Errorf("wgpu: SelectAdapter: %w: the query asks for the %s backend but the adapters come from an instance made for %s only (NewInstance(%s)); ask for %s or make the instance for %s or for all backends",
			ErrNoAdapter, q.Backend, instBackend, instBackend, instBackend, q.Backend)
	}
	var cands []*Adapter
	for _, a := range list {
		if q.Backend != BackendUndefined && a.Info.Backend != q.Backend {
			continue
		}
		if q.Name != "" && !strings.Contains(strings.ToLower(a.Info.Name), strings.ToLower(q.Name)) {
			continue
		}
		cands = append(cands, a)
	}
	if len(cands) == 0 {
		if hint := backendOSHint(q.Backend); hint != "" {
			return nil, fmt.Errorf("wgpu: SelectAdapter: %w: %s", ErrNoAdapter, hint)
		}
		if len(list) == 0 {
			if q.Backend == BackendOpenGL {
				return nil, fmt.Errorf("wgpu: SelectAdapter: %w: no OpenGL adapter: wgpu's GL backend needs an OpenGL 4.3 or GLES 3.1 driver with EGL (on Debian: apt-get install libegl1 libgl1-mesa-dri)", ErrNoAdapter)
			}
			return nil, fmt.Errorf("wgpu: SelectAdapter: %w: install a Vulkan, Metal or D3D12 driver (on Debian: apt-get install mesa-vulkan-drivers libvulkan1)", ErrNoAdapter)
		}
		return nil, fmt.Errorf("wgpu: SelectAdapter: %w matching backend %q name %q among %d adapters", ErrNoAdapter, q.Backend, q.Name, len(list))
	}
	if q.Index >= 0 {
		if q.Index >= len(cands) {
			return nil, fmt.Errorf("wgpu: SelectAdapter: adapter index %d out of range: %d adapters match", q.Index, len(cands))
		}
		return cands[q.Index], nil
	}
	best := cands[0]
	for _, a := range cands[1:] {
		if a.Info.Type.rank() < best.Info.Type.rank() ||
			(a.Info.Type.rank() == best.Info.Type.rank() && a.Info.Backend.rank() < best.Info.Backend.rank()) {
			best = a
		}
	}
	if best.Info.Backend == BackendOpenGL && q.Backend != BackendOpenGL {
		// Only OpenGL answered: a Vulkan/Metal/D3D12 driver is missing.
		// Say so rather than measure through GL (no timestamps, another
		// compiler) without being asked to.
		return nil, fmt.Errorf("wgpu: SelectAdapter: %w: only an OpenGL adapter (%s) was found, so the Vulkan, Metal or D3D12 driver is missing (on Debian: apt-get install mesa-vulkan-drivers libvulkan1); ask for the gl backend to measure through OpenGL anyway", ErrNoAdapter, best.Info.Name)
	}
	return best, nil
}

// backendOSHint says why backend b cannot exist on this OS ("" when it
// can).
func backendOSHint(b Backend) string {
	switch {
	case b == BackendMetal && runtime.GOOS != "darwin":
		return fmt.Sprintf("the metal backend exists only on macOS, not on %s: use vulkan (or any)", runtime.GOOS)
	case b == BackendD3D12 && runtime.GOOS != "windows":
		return fmt.Sprintf("the d3d12 backend exists only on Windows, not on %s: use vulkan (or any)", runtime.GOOS)
	}
	return ""
}

func (b Backend) rank() int {
	switch b {
	case BackendVulkan, BackendMetal, BackendD3D12:
		return 0
	case BackendOpenGL:
		return 2
	}
	return 1
}

func init() {
	// Mesa's Vulkan WSI complains on stderr, once per probe, when
	// XDG_RUNTIME_DIR is unset (as in CI and containers). Compute never
	// presents to a window; give it a private directory to quiet it.
	if runtime.GOOS == "linux" && os.Getenv("XDG_RUNTIME_DIR") == "" {
		dir := filepath.Join(os.TempDir(), fmt.Sprintf("wgpu-prof-xdg-%d", os.Getuid()))
		if os.MkdirAll(dir, 0o700) == nil {
			os.Setenv("XDG_RUNTIME_DIR", dir)
		}
	}
}

// DefaultReason says why a, SelectAdapter's default choice among list
// (Index -1, no name), is the one picked: the order is discrete GPU,
// integrated GPU, other, CPU; among equals Vulkan, Metal or D3D12 before
// OpenGL; then the first listed.
func DefaultReason(list []*Adapter, a *Adapter) string {
	if len(list) == 1 {
		return "the only adapter"
	}
	var beatsType, beatsBackend, tie []string
	for _, o := range list {
		if o == a {
			continue
		}
		switch {
		case a.Info.Type.rank() < o.Info.Type.rank():
			beatsType = append(beatsType, fmt.Sprintf("[%d] %s", o.Index, o.Info.Type))
		case a.Info.Backend.rank() < o.Info.Backend.rank():
			beatsBackend = append(beatsBackend, fmt.Sprintf("[%d] %s", o.Index, o.Info.Backend))
		default:
			tie = append(tie, fmt.Sprintf("[%d]", o.Index))
		}
	}
	var why []string
	if len(beatsType) > 0 {
		why = append(why, fmt.Sprintf("a %s adapter ranks before %s (discrete, integrated, other, cpu)", a.Info.Type, strings.Join(beatsType, ", ")))
	}
	if len(beatsBackend) > 0 {
		why = append(why, fmt.Sprintf("%s ranks before %s (Vulkan, Metal, D3D12, then OpenGL)", a.Info.Backend, strings.Join(beatsBackend, ", ")))
	}
	if len(tie) > 0 {
		why = append(why, fmt.Sprintf("listed before %s, which rank the same", strings.Join(tie, ", ")))
	}
	return strings.Join(why, "; ")
}
