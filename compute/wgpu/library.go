package wgpu

// Finding and loading libwgpu_native at run time. The binary does not link
// against it: loader.c dlopen()s the file chosen here, once per process,
// the first time NewInstance or a version function needs it.

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
	"runtime"
	"strconv"
	"strings"
	"sync"
	"unsafe"
)

// PinnedVersion is the wgpu-native release whose C ABI wgpu_abi.h mirrors
// and that scripts/setup.sh installs (WGPU_NATIVE_VERSION in
// scripts/wgpu-native.lock). It also names the cache folder searched.
const PinnedVersion = "29.0.1.1"

// LibraryEnv is the environment variable naming the wgpu-native library
// file to load instead of searching for one.
const LibraryEnv = "WGPU_NATIVE_LIB"

// ErrNoLibrary: no wgpu-native library file was found where LoadLibrary
// looks. The wrapping error lists every path tried.
var ErrNoLibrary = errors.New("wgpu-native library not found")

var library struct {
	once sync.Once
	path string
	err  error
}

// LoadLibrary loads wgpu-native, once per process; later calls return the
// first call's result. NewInstance and the version functions call it, so
// calling it directly is only needed to report a missing library early.
//
// Where it looks, in order:
//  1. the file named by $WGPU_NATIVE_LIB, if set; if that file does not
//     load, that is the error (nothing else is tried);
//  2. next to the executable, then in a lib folder next to it;
//  3. the user cache folder that scripts/setup.sh fills:
//     os.UserCacheDir()/wgpu-prof/wgpu-native/<PinnedVersion>/.
//
// The file name is libwgpu_native.so (Linux and other Unix systems),
// libwgpu_native.dylib (macOS) or wgpu_native.dll (Windows). The first file
// that exists is loaded; if it fails to load, LoadLibrary reports that
// rather than trying the next place.
func LoadLibrary() error {
	library.once.Do(func() {
		library.path, library.err = loadLibrary()
	})
	return library.err
}

// LibraryPath returns the path of the loaded wgpu-native library, loading
// it if that has not happened yet; "" if it cannot be loaded.
func LibraryPath() string {
	if LoadLibrary() != nil {
		return ""
	}
	return library.path
}

// LoadedVersion returns the version of the loaded wgpu-native library
// ("29.0.1.1"), as reported by its wgpuGetVersion, loading it if needed.
func LoadedVersion() (string, error) {
	if err := LoadLibrary(); err != nil {
		return "", err
	}
	return formatVersion(uint32(C.wgpuprof_native_version())), nil
}

// Version returns LoadedVersion's version, or "unavailable: <reason>" when
// the library cannot be loaded.
func Version() string {
	v, err := LoadedVersion()
	if err != nil {
		return "unavailable: " + err.Error()
	}
	return v
}

// formatVersion turns wgpuGetVersion's 0xMMmmppbb into "MM.mm.pp.bb".
func formatVersion(v uint32) string {
	return itoa(int(v>>24)) + "." + itoa(int(v>>16&0xff)) + "." + itoa(int(v>>8&0xff)) + "." + itoa(int(v&0xff))
}

// libraryFileName is the file name wgpu-native's builds use on goos.
func libraryFileName(goos string) string {
	switch goos {
	case "windows":
		return "wgpu_native.dll"
	case "darwin", "ios":
		return "libwgpu_native.dylib"
	}
	return "libwgpu_native.so"
}

// CacheLibraryDir is the folder scripts/setup.sh installs the pinned
// library into: os.UserCacheDir()/wgpu-prof/wgpu-native/<PinnedVersion>.
func CacheLibraryDir() (string, error) {
	dir, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no user cache folder: %w", err)
	}
	return filepath.Join(dir, "wgpu-prof", "wgpu-native", PinnedVersion), nil
}

// librarySearch is where LoadLibrary looks when $WGPU_NATIVE_LIB is unset.
type librarySearch struct {
	paths    []string // candidate files, in order
	skipped  []string // places that could not be searched, with why
	cacheDir string   // CacheLibraryDir, "" if there is none
}

func searchPaths(goos string) librarySearch {
	var s librarySearch
	name := libraryFileName(goos)
	if exe, err := os.Executable(); err == nil {
		dir := filepath.Dir(exe)
		s.paths = append(s.paths, filepath.Join(dir, name), filepath.Join(dir, "lib", name))
	} else {
		s.skipped = append(s.skipped, fmt.Sprintf("the executable's folder (%v)", err))
	}
	if dir, err := CacheLibraryDir(); err == nil {
		s.cacheDir = dir
		s.paths = append(s.paths, filepath.Join(dir, name))
	} else {
		s.skipped = append(s.skipped, fmt.Sprintf("the user cache folder (%v)", err))
	}
	return s
}

// loadLibrary picks the file and loads it; it returns the path loaded.
func loadLibrary() (string, error) {
	if p, ok := os.LookupEnv(LibraryEnv); ok && p != "" {
		abs, err := filepath.Abs(p)
		if err != nil {
			return "", fmt.Errorf("wgpu: LoadLibrary: %s=%s: %w", LibraryEnv, p, err)
		}
		if _, err := os.Stat(abs); err != nil {
			return "", fmt.Errorf("wgpu: LoadLibrary: %s=%s: %w: %w", LibraryEnv, p, ErrNoLibrary, err)
		}
		if err := loadFile(abs); err != nil {
			return "", fmt.Errorf("wgpu: %s: %w", LibraryEnv, err)
		}
		return abs, nil
	}
	s := searchPaths(runtime.GOOS)
	for _, p := range s.paths {
		if _, err := os.Stat(p); err != nil {
			continue
		}
		if err := loadFile(p); err != nil {
			return "", fmt.Errorf("wgpu: LoadLibrary: %w (set %s to the path of another libwgpu_native, or remove this one)", err, LibraryEnv)
		}
		return p, nil
	}
	fills := "the user cache folder"
	if s.cacheDir != "" {
		fills = s.cacheDir
	}
	tried := strings.Join(s.paths, ", ")
	if len(s.skipped) > 0 {
		tried += "; not searched: " + strings.Join(s.skipped, ", ")
	}
	return "", fmt.Errorf("wgpu: LoadLibrary: %w (tried %s): run scripts/setup.sh (it fills %s) or set %s to the path of libwgpu_native",
		ErrNoLibrary, tried, fills, LibraryEnv)
}

// loadFile dlopen()s path and resolves every function; it refuses a
// library whose major version differs from PinnedVersion's, since the
// structs of wgpu_abi.h change between major versions. Builds from
// wgpu-native's sources outside its release process report 0.0.0.0 and
// are taken on trust.
func loadFile(path string) error {
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	var buf [1024]C.char
	if C.wgpuprof_load(C.wgpuprof_impl_native, cpath, &buf[0], C.size_t(len(buf))) != 0 {
		return fmt.Errorf("load %s: %s", path, C.GoString(&buf[0]))
	}
	got := formatVersion(uint32(C.wgpuprof_native_version()))
	if got != "0.0.0.0" && major(got) != major(PinnedVersion) {
		return fmt.Errorf("load %s: wgpu-native %s; this build of wgpu-prof speaks the C ABI of %s (compute/wgpu/wgpu_abi.h) and needs a %s.x library",
			path, got, PinnedVersion, major(PinnedVersion))
	}
	return nil
}

func major(v string) string {
	m, _, _ := strings.Cut(v, ".")
	if _, err := strconv.Atoi(m); err != nil {
		return v
	}
	return m
}
