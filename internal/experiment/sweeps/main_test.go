package sweeps

import (
	"os"
	"testing"

	"github.com/wgpu-prof/wgpu-prof/internal/experiment/env/envtest"
	"github.com/wgpu-prof/wgpu-prof/internal/testmem"
)

// TestMain fails the package's tests when the process's peak resident
// set passed testmem.Limit.
func TestMain(m *testing.M) { os.Exit(testmem.Main(m)) }

// openEnv opens the default adapter with a short measurement budget.
var openEnv = envtest.Open
