package hostsimd

import (
	"os"
	"runtime"
	"strings"
	"testing"
)

// emulatorEnv names the emulator the tests run under; scripts/test.sh sets
// it when it runs the arm64 test binaries with qemu-aarch64.
const emulatorEnv = "WGPU_PROF_EMULATOR"

// emulated says why this process runs under a CPU emulator, or "" when
// nothing says it does. Either sign is enough: the variable scripts/test.sh
// sets, or an arm64 process whose /proc/cpuinfo describes an x86 CPU (a
// user-mode emulator such as qemu-aarch64 passes the host's file through).
func emulated() string {
	var signs []string
	if e := os.Getenv(emulatorEnv); e != "" {
		signs = append(signs, emulatorEnv+"="+e)
	}
	if runtime.GOARCH == "arm64" && runtime.GOOS == "linux" {
		if b, err := os.ReadFile("/proc/cpuinfo"); err == nil && strings.Contains(string(b), "vendor_id") {
			signs = append(signs, "/proc/cpuinfo of this arm64 process describes an x86 CPU")
		}
	}
	if len(signs) == 0 {
		return ""
	}
	return "running under a CPU emulator (" + strings.Join(signs, "; ") + ")"
}

// skipIfEmulated skips a test that times the kernels: under an emulator
// the times are the emulator's, and say nothing about this architecture's
// speed. The kernels' results are still checked by every other test.
func skipIfEmulated(t testing.TB) {
	t.Helper()
	if why := emulated(); why != "" {
		t.Skipf("%s: emulated timings say nothing about %s speed", why, runtime.GOARCH)
	}
}

// SkipIfEmulated is skipIfEmulated for the external tests.
var SkipIfEmulated = skipIfEmulated

// TestEmulatedDetection checks the two signs emulated reads.
func TestEmulatedDetection(t *testing.T) {
	t.Setenv(emulatorEnv, "test-emulator")
	if why := emulated(); !strings.Contains(why, emulatorEnv+"=test-emulator") {
		t.Errorf("with %s set: emulated() = %q, want it named", emulatorEnv, why)
	}
	t.Setenv(emulatorEnv, "")
	why := emulated()
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil && runtime.GOARCH == "arm64" && runtime.GOOS == "linux" {
		x86 := strings.Contains(string(b), "vendor_id")
		if x86 != (why != "") {
			t.Errorf("arm64 with an x86 /proc/cpuinfo: %v; emulated() = %q", x86, why)
		}
		t.Logf("emulated() = %q", why)
		return
	}
	if why != "" {
		t.Errorf("on %s/%s without %s: emulated() = %q, want \"\"", runtime.GOOS, runtime.GOARCH, emulatorEnv, why)
	}
}
