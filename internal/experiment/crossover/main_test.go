package crossover

import (
	"os"
	"testing"
	"time"

	"github.com/wgpu-prof/wgpu-prof/internal/experiment/env"
	"github.com/wgpu-prof/wgpu-prof/internal/testmem"
	"github.com/wgpu-prof/wgpu-prof/timing"
)

// TestMain fails the package's tests when the process's peak resident
// set passed testmem.Limit.
func TestMain(m *testing.M) { os.Exit(testmem.Main(m)) }

// openEnv opens the default adapter with a short measurement budget.
func openEnv(t *testing.T) *env.Env {
	t.Helper()
	e, err := env.Open(env.AdapterSelect{Index: -1}, timing.MeasureOpts{Budget: 300 * time.Millisecond, MaxRuns: 30}, false)
	if err != nil {
		t.Fatalf("%v (run scripts/setup.sh)", err)
	}
	t.Cleanup(e.Close)
	return e
}
