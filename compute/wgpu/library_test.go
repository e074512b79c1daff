package wgpu

// Tests of where LoadLibrary looks and what it says when it fails. The load
// happens once per process, so each case runs in a child process: the test
// binary itself, re-run with -test.run=^TestLoadLibraryChild$ and the
// environment of the case.

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

const childEnv = "WGPUPROF_LOAD_LIBRARY_CHILD"

// TestLoadLibraryChild is the child's side: it loads and prints the result.
func TestLoadLibraryChild(t *testing.T) {
	if os.Getenv(childEnv) != "1" {
		t.Skip("run by TestLoadLibrary* in a child process")
	}
	err := LoadLibrary()
	v, _ := LoadedVersion()
	fmt.Printf("path=%s\nversion=%s\nnolib=%v\nerr=%v\n", LibraryPath(), v, errors.Is(err, ErrNoLibrary), err)
}

type childResult struct {
	path, version, err string
	noLibrary          bool
}

// runChild runs exe (the test binary or a copy) as a child with env added
// to a copy of this environment from which every variable that steers the
// search was removed; home is its HOME and XDG_CACHE_HOME.
func runChild(t *testing.T, exe, home string, env ...string) childResult {
	t.Helper()
	var base []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case LibraryEnv, "HOME", "XDG_CACHE_HOME", "LocalAppData", "LOCALAPPDATA", childEnv:
			continue
		}
		base = append(base, kv)
	}
	base = append(base, childEnv+"=1", "HOME="+home, "XDG_CACHE_HOME="+home, "LocalAppData="+home)
	cmd := exec.Command(exe, "-test.run=^TestLoadLibraryChild$", "-test.count=1")
	cmd.Env = append(base, env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	var r childResult
	for _, line := range strings.Split(string(out), "\n") {
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		switch k {
		case "path":
			r.path = v
		case "version":
			r.version = v
		case "nolib":
			r.noLibrary = v == "true"
		case "err":
			if v != "<nil>" {
				r.err = v
			}
		}
	}
	return r
}

// realLibrary is the library this process loads: the one set-up installed.
func realLibrary(t *testing.T) string {
	t.Helper()
	if err := LoadLibrary(); err != nil {
		t.Fatalf("%v", err)
	}
	return LibraryPath()
}

func copyFile(t *testing.T, src, dst string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, mode)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

// fakeLibrary builds a shared library exporting the given functions, each
// doing nothing, and wgpuGetVersion returning version.
func fakeLibrary(t *testing.T, dir string, funcs []string, version uint32) string {
	t.Helper()
	var src strings.Builder
	for _, f := range funcs {
		if f != "wgpuGetVersion" {
			fmt.Fprintf(&src, "void %s(void) {}\n", f)
		}
	}
	fmt.Fprintf(&src, "unsigned wgpuGetVersion(void) { return %du; }\n", version)
	c := filepath.Join(dir, "fake.c")
	if err := os.WriteFile(c, []byte(src.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	lib := filepath.Join(dir, libraryFileName(runtime.GOOS))
	cc := ccCommand()
	cmd := exec.Command(cc[0], append(cc[1:], "-shared", "-fPIC", "-o", lib, c)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(cmd.Args, " "), err, out)
	}
	return lib
}

func TestPinnedVersionMatchesLock(t *testing.T) {
	lock, err := os.ReadFile(filepath.Join("..", "..", "scripts", "wgpu-native.lock"))
	if err != nil {
		t.Fatal(err)
	}
	var locked string
	for _, line := range strings.Split(string(lock), "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "WGPU_NATIVE_VERSION="); ok {
			locked = v
		}
	}
	if locked == "" {
		t.Fatal("scripts/wgpu-native.lock has no WGPU_NATIVE_VERSION= line")
	}
	if locked != PinnedVersion {
		t.Fatalf("scripts/wgpu-native.lock pins wgpu-native %s, compute.PinnedVersion is %s: update both (and check wgpu_abi.h with TestABIHeader)", locked, PinnedVersion)
	}
}

func TestLibrarySearchPaths(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the cache folder variables checked here are Linux's")
	}
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	s := searchPaths("linux")
	want := []string{
		filepath.Join(filepath.Dir(exe), "libwgpu_native.so"),
		filepath.Join(filepath.Dir(exe), "lib", "libwgpu_native.so"),
		filepath.Join(cache, "wgpu-prof", "wgpu-native", PinnedVersion, "libwgpu_native.so"),
	}
	if strings.Join(s.paths, "\n") != strings.Join(want, "\n") || len(s.skipped) != 0 {
		t.Fatalf("search paths\n  %s\nskipped %q, want\n  %s", strings.Join(s.paths, "\n  "), s.skipped, strings.Join(want, "\n  "))
	}
	for goos, name := range map[string]string{"linux": "libwgpu_native.so", "freebsd": "libwgpu_native.so", "darwin": "libwgpu_native.dylib", "windows": "wgpu_native.dll"} {
		if got := libraryFileName(goos); got != name {
			t.Errorf("libraryFileName(%s) = %s, want %s", goos, got, name)
		}
	}
	t.Setenv("XDG_CACHE_HOME", "relative")
	if s := searchPaths("linux"); len(s.paths) != 2 || len(s.skipped) != 1 || !strings.Contains(s.skipped[0], "relative") {
		t.Fatalf("with a relative XDG_CACHE_HOME: paths %q, skipped %q", s.paths, s.skipped)
	}
}

// TestLoadLibraryErrors: a library that cannot be loaded gives an error
// naming its path and why.
func TestLoadLibraryErrors(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	h, err := parseABIHeader("wgpu_abi.h")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	empty := t.TempDir()
	notLib := filepath.Join(dir, "text", libraryFileName(runtime.GOOS))
	if err := os.MkdirAll(filepath.Dir(notLib), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(notLib, []byte("not a shared library\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	mkdir := func(name string) string {
		d := filepath.Join(dir, name)
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
		return d
	}
	missing := filepath.Join(dir, "missing", libraryFileName(runtime.GOOS))
	noFuncs := fakeLibrary(t, mkdir("nofuncs"), []string{"wgpuGetVersion"}, 29<<24)
	v30 := fakeLibrary(t, mkdir("v30"), h.funcNames, 30<<24)
	cases := []struct {
		name  string
		lib   string
		want  []string
		noLib bool
	}{
		{"nonexistent file", missing, []string{LibraryEnv + "=" + missing, "no such file"}, true},
		{"not a library", notLib, []string{LibraryEnv + ": load " + notLib + ": dlopen: "}, false},
		{"missing function", noFuncs, []string{LibraryEnv + ": load " + noFuncs + ": no function " + h.funcNames[0]}, false},
		{"other major version", v30, []string{LibraryEnv + ": load " + v30 + ": wgpu-native 30.0.0.0", "needs a 29.x library"}, false},
	}
	// A loadable library in the cache folder, which must not be used
	// instead of the broken one named.
	home := t.TempDir()
	cache := home
	if runtime.GOOS == "darwin" {
		cache = filepath.Join(home, "Library", "Caches")
	}
	good := filepath.Join(cache, "wgpu-prof", "wgpu-native", PinnedVersion)
	if err := os.MkdirAll(good, 0o755); err != nil {
		t.Fatal(err)
	}
	fakeLibrary(t, good, h.funcNames, 0)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := runChild(t, exe, home, LibraryEnv+"="+c.lib)
			if r.err == "" {
				t.Fatalf("%s=%s loaded (%s, version %s)", LibraryEnv, c.lib, r.path, r.version)
			}
			t.Log(r.err)
			for _, w := range c.want {
				if !strings.Contains(r.err, w) {
					t.Errorf("error %q does not say %q", r.err, w)
				}
			}
			if r.noLibrary != c.noLib {
				t.Errorf("errors.Is(err, ErrNoLibrary) = %v, want %v: %s", r.noLibrary, c.noLib, r.err)
			}
			if r.path != "" {
				t.Errorf("LibraryPath() = %q after a failed load", r.path)
			}
		})
	}

	t.Run("none found", func(t *testing.T) {
		r := runChild(t, exe, empty)
		cacheDir := filepath.Join(empty, "wgpu-prof", "wgpu-native", PinnedVersion)
		name := libraryFileName(runtime.GOOS)
		want := []string{
			filepath.Join(filepath.Dir(exe), name),
			filepath.Join(filepath.Dir(exe), "lib", name),
			filepath.Join(cacheDir, name),
			"run scripts/setup.sh (it fills " + cacheDir + ") or set WGPU_NATIVE_LIB to the path of libwgpu_native",
		}
		if !r.noLibrary {
			t.Fatalf("error %q is not ErrNoLibrary", r.err)
		}
		t.Log(r.err)
		for _, w := range want {
			if !strings.Contains(r.err, w) {
				t.Errorf("error %q does not say %q", r.err, w)
			}
		}
	})

	t.Run("version 0.0.0.0 is taken on trust", func(t *testing.T) {
		v0 := fakeLibrary(t, mkdir("v0"), h.funcNames, 0)
		r := runChild(t, exe, empty, LibraryEnv+"="+v0)
		if r.err != "" || r.path != v0 || r.version != "0.0.0.0" {
			t.Fatalf("got path %q version %q error %q", r.path, r.version, r.err)
		}
	})
}

// TestLoadLibraryPlaces: each place of the search order is used, with the
// cache folder empty unless it is the one tested.
func TestLoadLibraryPlaces(t *testing.T) {
	lib := realLibrary(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	name := libraryFileName(runtime.GOOS)
	t.Run("WGPU_NATIVE_LIB", func(t *testing.T) {
		r := runChild(t, exe, t.TempDir(), LibraryEnv+"="+lib)
		if r.err != "" || r.path != lib || r.version != PinnedVersion {
			t.Fatalf("got path %q version %q error %q, want %s %s", r.path, r.version, r.err, lib, PinnedVersion)
		}
	})
	for _, sub := range []string{".", "lib"} {
		t.Run("next to the executable/"+sub, func(t *testing.T) {
			dir := t.TempDir()
			copyExe := filepath.Join(dir, filepath.Base(exe))
			copyFile(t, exe, copyExe, 0o755)
			want := filepath.Join(dir, sub, name)
			copyFile(t, lib, want, 0o644)
			r := runChild(t, copyExe, t.TempDir())
			if r.err != "" || r.path != want || r.version != PinnedVersion {
				t.Fatalf("got path %q version %q error %q, want %s %s", r.path, r.version, r.err, want, PinnedVersion)
			}
		})
	}
	t.Run("user cache folder", func(t *testing.T) {
		home := t.TempDir()
		cache := home
		if runtime.GOOS == "darwin" {
			cache = filepath.Join(home, "Library", "Caches")
		}
		want := filepath.Join(cache, "wgpu-prof", "wgpu-native", PinnedVersion, name)
		copyFile(t, lib, want, 0o644)
		r := runChild(t, exe, home)
		if r.err != "" || r.path != want || r.version != PinnedVersion {
			t.Fatalf("got path %q version %q error %q, want %s %s", r.path, r.version, r.err, want, PinnedVersion)
		}
	})
}
