package wgpu

// The WebGPU implementations the binding can load: wgpu-native and Dawn.
// Both are reached through the same Go API; the differences of their C
// ABIs live in dawn.c (dawn_abi.h lists them). Each is loaded once per
// process; one is in use at a time (the forwarders of loader.c call its
// functions), and the binding switches between them only while no
// instance of the other is open.

/*
#include <stdlib.h>
#include "loader.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"unsafe"
)

// Impl is a WebGPU implementation.
type Impl int

const (
	// ImplDefault is the implementation $WGPU_PROF_IMPL names, else
	// wgpu-native (DefaultImpl).
	ImplDefault Impl = iota
	ImplWGPUNative
	ImplDawn
)

// ImplEnv names the implementation NewInstance and compute.Open use when
// none is given ("wgpu-native" or "dawn"); the test command runs the
// conformance tests under both.
const ImplEnv = "WGPU_PROF_IMPL"

// DawnPinnedVersion is the Dawn that scripts/setup-dawn.sh installs
// (DAWN_VERSION in scripts/dawn.lock: the Chromium version it was built
// from) and the cache folder it is looked for in.
const DawnPinnedVersion = "133.0.6940.0"

// DawnLibraryEnv names a Dawn library file to load instead of searching.
const DawnLibraryEnv = "WGPU_PROF_DAWN_LIB"

// ErrNoDawn: no Dawn library was found where LoadImpl(ImplDawn) looks.
var ErrNoDawn = errors.New("Dawn library not found")

func (i Impl) String() string {
	switch i {
	case ImplWGPUNative:
		return "wgpu-native"
	case ImplDawn:
		return "dawn"
	}
	return "default"
}

// ParseImpl parses "wgpu-native" (or "wgpu", "native") or "dawn".
func ParseImpl(s string) (Impl, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "wgpu-native", "wgpu", "native", "wgpu_native":
		return ImplWGPUNative, nil
	case "dawn":
		return ImplDawn, nil
	}
	return ImplDefault, fmt.Errorf("wgpu: ParseImpl: unknown implementation %q (want wgpu-native or dawn)", s)
}

// ParseImpls parses a comma-separated list ("wgpu-native,dawn"); each
// implementation at most once, in the order given.
func ParseImpls(s string) ([]Impl, error) {
	var out []Impl
	for _, part := range strings.Split(s, ",") {
		i, err := ParseImpl(part)
		if err != nil {
			return nil, err
		}
		for _, o := range out {
			if o == i {
				return nil, fmt.Errorf("wgpu: ParseImpls: implementation %s named twice in %q", i, s)
			}
		}
		out = append(out, i)
	}
	return out, nil
}

// DefaultImpl is $WGPU_PROF_IMPL's implementation, else wgpu-native. An
// unknown name is an error when an instance is made (NewInstance).
func DefaultImpl() (Impl, error) {
	v := os.Getenv(ImplEnv)
	if v == "" {
		return ImplWGPUNative, nil
	}
	i, err := ParseImpl(v)
	if err != nil {
		return ImplDefault, fmt.Errorf("%s=%s: %w", ImplEnv, v, err)
	}
	return i, nil
}

// Resolve turns ImplDefault into DefaultImpl's answer.
func (i Impl) Resolve() (Impl, error) {
	if i == ImplDefault {
		return DefaultImpl()
	}
	if i != ImplWGPUNative && i != ImplDawn {
		return ImplDefault, fmt.Errorf("wgpu: Impl.Resolve: no implementation %d", int(i))
	}
	return i, nil
}

func (i Impl) cImpl() C.int {
	if i == ImplDawn {
		return C.wgpuprof_impl_dawn
	}
	return C.wgpuprof_impl_native
}

var dawnLib struct {
	once sync.Once
	path string
	err  error
}

// LoadImpl loads impl's library, once per process (LoadLibrary for
// wgpu-native). For Dawn it looks, in order, at $WGPU_PROF_DAWN_LIB; next to
// the executable and in a lib folder next to it; the user cache folder
// scripts/setup-dawn.sh fills (os.UserCacheDir()/wgpu-prof/dawn/<DawnPinnedVersion>/).
// The file is libwebgpu_dawn.so, libwebgpu_dawn.dylib or webgpu_dawn.dll.
func LoadImpl(impl Impl) error {
	impl, err := impl.Resolve()
	if err != nil {
		return err
	}
	if impl == ImplWGPUNative {
		return LoadLibrary()
	}
	dawnLib.once.Do(func() { dawnLib.path, dawnLib.err = loadDawn() })
	return dawnLib.err
}

// ImplLibraryPath is the file impl was loaded from ("" if it cannot be).
func ImplLibraryPath(impl Impl) string {
	impl, err := impl.Resolve()
	if err != nil {
		return ""
	}
	if impl == ImplWGPUNative {
		return LibraryPath()
	}
	if LoadImpl(ImplDawn) != nil {
		return ""
	}
	return dawnLib.path
}

// ImplVersion is the version of impl's loaded library: wgpu-native's
// wgpuGetVersion; for Dawn (which has no such function) the Chromium
// version written beside the library by scripts/setup-dawn.sh after it
// checked the library's checksum, or "unknown" for a library from
// elsewhere.
func ImplVersion(impl Impl) (string, error) {
	impl, err := impl.Resolve()
	if err != nil {
		return "", err
	}
	if impl == ImplWGPUNative {
		return LoadedVersion()
	}
	if err := LoadImpl(ImplDawn); err != nil {
		return "", err
	}
	b, err := os.ReadFile(filepath.Join(filepath.Dir(dawnLib.path), "VERSION"))
	if err != nil {
		return "unknown", nil
	}
	v := strings.TrimSpace(string(b))
	if v == "" || strings.ContainsAny(v, " \t\n") || len(v) > 64 {
		return "unknown", nil
	}
	return v, nil
}

// ImplVersionString is ImplVersion, or "unavailable: <reason>".
func ImplVersionString(impl Impl) string {
	v, err := ImplVersion(impl)
	if err != nil {
		return "unavailable: " + err.Error()
	}
	return v
}

func dawnFileName(goos string) string {
	switch goos {
	case "windows":
		return "webgpu_dawn.dll"
	case "darwin", "ios":
		return "libwebgpu_dawn.dylib"
	}
	return "libwebgpu_dawn.so"
}

// DawnCacheDir is where scripts/setup-dawn.sh installs the pinned Dawn.
func DawnCacheDir() (string, error) {
	dir, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no user cache folder: %w", err)
	}
	return filepath.Join(dir, "wgpu-prof", "dawn", DawnPinnedVersion), nil
}

func loadDawn() (string, error) {
	if p, ok := os.LookupEnv(DawnLibraryEnv); ok && p != "" {
		abs, err := filepath.Abs(p)
		if err != nil {
			return "", fmt.Errorf("wgpu: LoadImpl: %s=%s: %w", DawnLibraryEnv, p, err)
		}
		if _, err := os.Stat(abs); err != nil {
			return "", fmt.Errorf("wgpu: LoadImpl: %s=%s: %w: %w", DawnLibraryEnv, p, ErrNoDawn, err)
		}
		if err := loadDawnFile(abs); err != nil {
			return "", fmt.Errorf("wgpu: %s: %w", DawnLibraryEnv, err)
		}
		return abs, nil
	}
	name := dawnFileName(runtime.GOOS)
	var paths []string
	if exe, err := os.Executable(); err == nil {
		dir := filepath.Dir(exe)
		paths = append(paths, filepath.Join(dir, name), filepath.Join(dir, "lib", name))
	}
	if dir, err := DawnCacheDir(); err == nil {
		paths = append(paths, filepath.Join(dir, name))
	}
	for _, p := range paths {
		if _, err := os.Stat(p); err != nil {
			continue
		}
		if err := loadDawnFile(p); err != nil {
			return "", fmt.Errorf("wgpu: LoadImpl: %w (set %s to the path of another Dawn library, or remove this one)", err, DawnLibraryEnv)
		}
		return p, nil
	}
	return "", fmt.Errorf("wgpu: LoadImpl: %w (tried %s): run scripts/setup-dawn.sh (or scripts/setup.sh --with-dawn) to install the pinned Dawn %s, or set %s to the path of a Dawn library",
		ErrNoDawn, strings.Join(paths, ", "), DawnPinnedVersion, DawnLibraryEnv)
}

func loadDawnFile(path string) error {
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	var buf [1024]C.char
	if C.wgpuprof_load(C.wgpuprof_impl_dawn, cpath, &buf[0], C.size_t(len(buf))) != 0 {
		return fmt.Errorf("load %s: %s", path, C.GoString(&buf[0]))
	}
	return nil
}

// inUse counts the open instances of each implementation; inUseImpl is
// the one the forwarders call.
var implState struct {
	mu    sync.Mutex
	open  [3]int
	inUse Impl
}

// acquireImpl makes impl the implementation in use for a new instance; it
// fails while an instance of the other implementation is open, since
// loader.c's forwarders call one implementation at a time.
func acquireImpl(impl Impl) error {
	implState.mu.Lock()
	defer implState.mu.Unlock()
	for other, n := range implState.open {
		if Impl(other) != impl && n > 0 {
			return fmt.Errorf("wgpu: NewInstanceImpl: cannot open a %s instance while %d %s instance(s) are open: one implementation at a time in a process; release the other's devices, adapters and instance first",
				impl, n, Impl(other))
		}
	}
	if implState.inUse != impl {
		if C.wgpuprof_use(impl.cImpl()) != 0 {
			return fmt.Errorf("wgpu: NewInstanceImpl: %s is not loaded", impl)
		}
		implState.inUse = impl
	}
	implState.open[impl]++
	return nil
}

func releaseImpl(impl Impl) {
	implState.mu.Lock()
	defer implState.mu.Unlock()
	if implState.open[impl] > 0 {
		implState.open[impl]--
	}
}

// Impl is the implementation the device belongs to.
func (d *Device) Impl() Impl {
	if d == nil {
		return ImplDefault
	}
	return d.inst.Impl()
}

// ImplVersion is the version of the device's implementation (ImplVersion).
func (d *Device) ImplVersion() string { return ImplVersionString(d.Impl()) }

// NoAdapterHint says why impl may list no adapter for backend b where
// the other implementation lists one; "" when it has no such gap. Dawn
// offers its OpenGL (ES) backend only to WebGPU's compatibility feature
// level, which the binding does not request (its limits are below what
// the kernels assume), so a Dawn instance for gl lists none.
func (i Impl) NoAdapterHint(b Backend) string {
	if r, err := i.Resolve(); err == nil && r == ImplDawn && b == BackendOpenGL {
		return "Dawn offers its OpenGL ES backend only at WebGPU's compatibility level, which wgpu-prof does not request: use --backend vulkan with --impl dawn, or --impl wgpu-native for gl"
	}
	return ""
}

var (
	reSubgroupUse    = regexp.MustCompile(`\b(subgroup[A-Z]\w*\s*\(|subgroup_(id|size|invocation_id)\b|num_subgroups\b)`)
	reSubgroupEnable = regexp.MustCompile(`(?m)^\s*enable\s+[^;]*\bsubgroups\b`)
)

// dialect is src as impl's WGSL compiler takes it. The modules are
// written for both; the one difference is that Dawn's Tint wants
// "enable subgroups;" before subgroup builtins and functions, which
// wgpu-native's naga refuses ("not yet supported"). The directive goes on
// the first line, so the positions of compiler messages stay right.
func (i Impl) dialect(src string) string {
	if i != ImplDawn || !reSubgroupUse.MatchString(src) || reSubgroupEnable.MatchString(src) {
		return src
	}
	return "enable subgroups; " + src
}
