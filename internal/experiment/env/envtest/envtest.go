// Package envtest opens the environment the experiment rooms' tests run
// in. Only tests import it: it imports testing, which a command must not
// carry.
package envtest

import (
	"testing"
	"time"

	"github.com/wgpu-prof/wgpu-prof/internal/experiment/env"
	"github.com/wgpu-prof/wgpu-prof/timing"
)

// Open opens the default adapter with a short measurement budget (300 ms
// and at most 30 runs a case) and closes it when t's test ends. A host
// without an adapter fails t, naming the set-up that provides one.
func Open(t testing.TB) *env.Env {
	t.Helper()
	e, err := env.Open(env.AdapterSelect{Index: -1}, timing.MeasureOpts{Budget: 300 * time.Millisecond, MaxRuns: 30}, false)
	if err != nil {
		t.Fatalf("%v (run scripts/setup.sh)", err)
	}
	t.Cleanup(e.Close)
	return e
}
