package experiment

import (
	"strings"
	"testing"

	"github.com/wgpu-prof/wgpu-prof/internal/workload"
)

// --batches and the adaptive search apply one bound (searchCap): a batch
// past it is refused naming it, one up to it is accepted even past --n.
func TestBatchesAndSearchShareTheBound(t *testing.T) {
	w := workload.CosineSingle
	cfg := RunConfig{}
	cfg.Config.Defaults()
	cfg.N = 64
	limit, why, grows := SearchCap(w, cfg, cfg.N, 0)
	if !grows || limit != 64*DefaultMaxGrow || !strings.Contains(why, "64×") {
		t.Fatalf("searchCap(n=64) = %d, %q, %v", limit, why, grows)
	}
	cfg.Batches = []int{1, 16, limit}
	if err := cfg.CheckBatches([]*workload.Descriptor{w}); err != nil {
		t.Errorf("--batches up to the search's bound %d refused: %v", limit, err)
	}
	cfg.Batches = []int{1, 16, limit + 1}
	err := cfg.CheckBatches([]*workload.Descriptor{w})
	if err == nil || !strings.Contains(err.Error(), why) {
		t.Errorf("--batches past the bound: %v, want the bound's reason %q", err, why)
	}
	if l, _, _ := SearchCap(w, cfg, 1<<62, 0); l <= 0 {
		t.Errorf("searchCap overflowed: %d", l)
	}
}
