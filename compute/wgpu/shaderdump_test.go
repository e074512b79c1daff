package wgpu_test

import (
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/wgpu-prof/wgpu-prof/compute/wgpu"
	"github.com/wgpu-prof/wgpu-prof/internal/gputest"
)

// A device made with DumpShaders shows what its implementation compiled:
// through Dawn, each module's WGSL and the backend code Tint made of it,
// labels kept; through wgpu-native, an ErrNoShaderDump naming naga.
func TestShaderDump(t *testing.T) {
	d := gputest.OpenWith(t, wgpu.DeviceOptions{WaitTimeout: time.Minute, DumpShaders: true})
	m, err := d.CreateShaderModule("dump_me", vecAdd)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Release()
	p, err := d.CreatePipeline(m, "main", wgpu.Constants{"WG": 32})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Release()
	dump, err := d.ShaderDump()
	if d.Impl() != wgpu.ImplDawn {
		if !errors.Is(err, wgpu.ErrNoShaderDump) || !strings.Contains(err.Error(), "naga") || dump != "" {
			t.Fatalf("%s: ShaderDump = %q, %v; want ErrNoShaderDump naming naga", d.Impl(), dump, err)
		}
		t.Logf("%s: %v", d.Impl(), err)
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"arrayLength(&out)"} // the WGSL
	if d.Info.Backend == wgpu.BackendVulkan {
		want = append(want, "SPIR", "OpEntryPoint GLCompute") // Tint's SPIR-V, disassembled
	}
	for _, w := range want {
		if !strings.Contains(dump, w) {
			t.Errorf("Dawn's shader dump lacks %q:\n%s", w, dump)
		}
	}
	t.Logf("Dawn's shader dump: %d bytes", len(dump))
	plain := gputest.Open(t)
	if _, err := plain.ShaderDump(); !errors.Is(err, wgpu.ErrNoShaderDump) {
		t.Errorf("a Dawn device made without DumpShaders: %v, want ErrNoShaderDump", err)
	}
}

// TestShaderDumpOnDawn runs TestShaderDump through Dawn in a child test
// process (one implementation per process at a time); skipped, saying so,
// only when Dawn's library is absent or this process runs under
// $WGPU_PROF_IMPL already.
func TestShaderDumpOnDawn(t *testing.T) {
	if v := os.Getenv(wgpu.ImplEnv); v != "" {
		t.Skipf("%s=%s: this process runs TestShaderDump through %s already", wgpu.ImplEnv, v, v)
	}
	if err := wgpu.LoadImpl(wgpu.ImplDawn); errors.Is(err, wgpu.ErrNoDawn) {
		t.Skipf("Dawn is not installed: %v", err)
	} else if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run", "^TestShaderDump$", "-test.count=1", "-test.v", "-test.timeout=2m")
	cmd.Env = append(os.Environ(), wgpu.ImplEnv+"=dawn")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: TestShaderDump") || !strings.Contains(string(out), "Dawn's shader dump:") {
		t.Fatalf("TestShaderDump through Dawn: %v\n%s", err, out)
	}
}
