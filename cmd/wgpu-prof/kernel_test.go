package main

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wgpu-prof/wgpu-prof/compute/wgpu"
)

// A saxpy run of the user-kernel command, at lavapipe's dispatch limit (65,535 workgroups
// per dimension: WG=128 × 32,768 covers the 4,194,304 elements).
func TestKernelSaxpyJSON(t *testing.T) {
	out, stderr, err := runCmd("kernel", "testdata/saxpy.wgsl", "--quick",
		"--buffer", "x=f32:4194304:rand", "--buffer", "y=f32:4194304:rand",
		"--const", "WG=128", "--dispatch", "32768", "--bytes", "50331648", "--format", "json")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	var rep struct {
		Ceilings struct {
			GPU map[string]float64 `json:"gpu"`
		} `json:"ceilings"`
		Measurements []struct {
			Samples     []float64 `json:"samples"`
			GBs         float64   `json:"gbs"`
			CeilingFrac float64   `json:"ceiling_frac"`
			Verified    bool      `json:"verified"`
			Bytes       float64   `json:"bytes"`
		} `json:"measurements"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Measurements) != 1 {
		t.Fatalf("%d measurements, want 1", len(rep.Measurements))
	}
	m := rep.Measurements[0]
	read := rep.Ceilings.GPU["read_gbs"]
	if len(m.Samples) < 10 || !(m.GBs > 0) || !(read > 0) || !m.Verified || m.Bytes != 50331648 {
		t.Fatalf("samples %d, GB/s %v, read ceiling %v, verified %v, bytes %v", len(m.Samples), m.GBs, read, m.Verified, m.Bytes)
	}
	if d := m.CeilingFrac - m.GBs/read; d > 1e-9 || d < -1e-9 {
		t.Fatalf("ceiling fraction %v, want GB/s / read ceiling = %v", m.CeilingFrac, m.GBs/read)
	}
}

func TestKernelSweepAndDispatchExpression(t *testing.T) {
	out, stderr, err := runCmd("kernel", "testdata/saxpy.wgsl", "--quick", "--budget", "50ms",
		"--buffer", "x=f32:4096:iota", "--buffer", "y=f32:4096",
		"--dispatch", "4096/WG", "--sweep", "WG=32,64,256")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	for _, want := range []string{"WG=32", "WG=64", "WG=256", "WG sweep: best"} {
		if !strings.Contains(out, want) {
			t.Fatalf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestKernelErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"testdata/syntax_error.wgsl", "--buffer", "y=f32:1024", "--dispatch", "16"}, ":5:"},
		{[]string{"testdata/saxpy.wgsl", "--buffer", "x=f32:1024", "--dispatch", "16"}, "--buffer y: main uses storage binding y"},
		{[]string{"testdata/saxpy.wgsl", "--buffer", "x=f32:1024", "--buffer", "y=u32:1024", "--dispatch", "16"}, "the shader declares y: array<f32>"},
		{[]string{"testdata/saxpy.wgsl", "--buffer", "x=f32:1024", "--buffer", "z=f32:1024", "--dispatch", "16"}, "no storage binding z"},
		{[]string{"testdata/saxpy.wgsl", "--buffer", "x=f32:1024", "--dispatch", "16/NOPE"}, "--dispatch 16/NOPE"},
		{[]string{"testdata/saxpy.wgsl", "--buffer", "x=f32:1024", "--dispatch", "16", "--const", "NOPE=3"}, "--const NOPE"},
		{[]string{"testdata/saxpy.wgsl", "--buffer", "x=f64:1024", "--dispatch", "16"}, `type "f64"`},
		{[]string{"testdata/saxpy.wgsl", "--buffer", "x=f32:0", "--dispatch", "16"}, `count "0"`},
		{[]string{"testdata/saxpy.wgsl", "--buffer", "x=f32:16:ones", "--dispatch", "16"}, `init "ones"`},
		{[]string{"testdata/saxpy.wgsl", "--buffer", "x=f32:16", "--buffer", "y=f32:16", "--dispatch", "70000"}, "maxComputeWorkgroupsPerDimension"},
		{[]string{"testdata/saxpy.wgsl", "--dispatch", "16"}, "declare the shader's storage buffers"},
		{[]string{"testdata/missing.wgsl", "--buffer", "x=f32:16", "--dispatch", "16"}, "missing.wgsl"},
		{[]string{"testdata/saxpy.wgsl", "extra.wgsl", "--buffer", "x=f32:16", "--dispatch", "16"}, "exactly one WGSL file"},
	} {
		_, stderr, err := runCmd(append([]string{"kernel"}, tc.args...)...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("kernel %v: got %v (stderr %q), want an error containing %q", tc.args, err, stderr, tc.want)
		}
	}
}

// A user's cosine kernel against cosine-single's CPU side: the kernel is
// fed the workload's rows, checked against its reference at every size,
// and the break-even is reported; a kernel that computes something else
// is refused as a wrong result.
func TestKernelCPUTwin(t *testing.T) {
	if testing.Short() {
		t.Skip("measures a break-even")
	}
	stdout, stderr, err := runCmd("kernel", "testdata/cosine_twin.wgsl", "--cpu-twin", "cosine-single", "--dispatch", "(N+63)/64",
		"--quick", "--search-budget", "5s", "--budget", "20ms", "--format", "json")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	for _, want := range []string{`"workload": "kernel:cosine_twin.wgsl vs cosine-single"`, `"model_a"`, `"model_b"`, `"search"`, "verified against the float64 reference"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %s", want)
		}
	}
	dir := t.TempDir()
	src, _ := os.ReadFile("testdata/cosine_twin.wgsl")
	wrong := filepath.Join(dir, "wrong.wgsl")
	os.WriteFile(wrong, []byte(strings.Replace(string(src), "s[i] = dot /", "s[i] = 0.5 * dot /", 1)), 0o644)
	_, _, err = runCmd("kernel", wrong, "--cpu-twin", "cosine-single", "--dispatch", "(N+63)/64", "--quick", "--search-budget", "5s", "--budget", "20ms")
	if err == nil || !strings.Contains(err.Error(), "wrong result") {
		t.Errorf("a wrong kernel: %v", err)
	}
	_, _, err = runCmd("kernel", "testdata/cosine_twin.wgsl", "--cpu-twin", "hnsw", "--dispatch", "N")
	if code, msg := exitStatus(err); code != 2 || !strings.Contains(msg, `--cpu-twin "hnsw"`) {
		t.Errorf("hnsw twin: %d %q", code, msg)
	}
}

// kernel --dump-shaders --out writes shaders.txt: through Dawn the
// kernel's WGSL and Tint's code for the backend, named in the report;
// without --out it is refused before anything runs.
func TestKernelDumpShaders(t *testing.T) {
	args := []string{"kernel", "testdata/saxpy.wgsl", "--quick", "--budget", "50ms", "--buffer", "x=f32:4096:iota", "--buffer", "y=f32:4096",
		"--dispatch", "4096/WG", "--dump-shaders"}
	if _, _, err := runCmd(args...); err == nil || !strings.Contains(err.Error(), "--dump-shaders needs --out") {
		t.Fatalf("--dump-shaders without --out: %v", err)
	}
	if err := wgpu.LoadImpl(wgpu.ImplDawn); errors.Is(err, wgpu.ErrNoDawn) {
		t.Skipf("Dawn is not installed: %v", err)
	}
	dir := filepath.Join(t.TempDir(), "out")
	out, stderr, err := runCmd(append(args, "--impl", "dawn", "--out", dir)...)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	b, err := os.ReadFile(filepath.Join(dir, "shaders.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"compiled from the WGSL modules of this run", "y[i] = A * x[i] + y[i];", "Dumped generated"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("shaders.txt lacks %q:\n%.2000s", want, b)
		}
	}
	if !strings.Contains(out, "compiled shaders: dawn's WGSL of") {
		t.Errorf("the report does not name the dump:\n%s", out)
	}
}
