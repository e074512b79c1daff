package compute_test

import (
	"errors"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/wgpu-prof/wgpu-prof/compute/wgpu"
)

// dawnConformance are the tests that run a second time through Dawn: each
// workload's conformance test (every design against its float64
// reference), the top-k, stream, memory-vs-compute, f16 and user-kernel
// runners.
const dawnConformance = `^(TestCosineSingleConformance|TestCosineBatchConformance|TestGatherConformance|TestSpreadConformance|` +
	`TestTopKSingle|TestTopKTies|TestCosineBatchTopK|TestTopKQueue|TestRunStream|TestMeasureReadAt|` +
	`TestMemStreamVerifiesEveryVariant|TestMemComputeCosineSingle|TestCosineSingleF16|TestUserKernelGather|TestUserKernelRefusesNaN)$`

// TestConformanceOnDawn runs dawnConformance through Dawn, in a child
// test process with $WGPU_PROF_IMPL=dawn (one implementation per process
// at a time); this process runs them through wgpu-native. It is skipped,
// saying so, only when Dawn's library is absent (scripts/setup-dawn.sh
// installs it), and when this process already runs under $WGPU_PROF_IMPL.
func TestConformanceOnDawn(t *testing.T) {
	if v := os.Getenv(wgpu.ImplEnv); v != "" {
		t.Skipf("%s=%s: this process runs the tests through %s already", wgpu.ImplEnv, v, v)
	}
	if err := wgpu.LoadImpl(wgpu.ImplDawn); errors.Is(err, wgpu.ErrNoDawn) {
		t.Skipf("Dawn is not installed, its conformance run is skipped: %v", err)
	} else if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run", dawnConformance, "-test.count=1", "-test.v", "-test.timeout=10m")
	cmd.Env = append(os.Environ(), wgpu.ImplEnv+"=dawn")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the conformance tests through Dawn failed: %v\n%s", err, out)
	}
	passed := regexp.MustCompile(`(?m)^--- PASS: (Test\w+)`).FindAllStringSubmatch(string(out), -1)
	want := strings.Count(dawnConformance, "|") + 1
	if len(passed) != want {
		t.Fatalf("through Dawn %d of the %d conformance tests passed (a name in dawnConformance that no longer exists?):\n%s", len(passed), want, out)
	}
	t.Logf("through Dawn: %d conformance tests passed", len(passed))
}
