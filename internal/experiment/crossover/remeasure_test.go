package crossover

import (
	"testing"

	"github.com/wgpu-prof/wgpu-prof/internal/experiment"

	"github.com/wgpu-prof/wgpu-prof/internal/workload"
)

// measureAgain, the second measurement of a disputed size, builds and
// verifies both sides and returns both interleaved measurements (the GPU
// side with its kernel time when timestamps work).
func TestMeasureAgain(t *testing.T) {
	e := openEnv(t)
	pr, err := workload.CosineSingle.Prepare(workload.Config{Dim: 64, N: 1024, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	cpu, _ := experiment.ParseSide("cpu")
	gpu, _ := experiment.ParseSide("gpu")
	r, err := MeasureAgain(e, [2]experiment.SideSpec{cpu, gpu}, pr.At(512, workload.Knobs{}))
	if err != nil {
		t.Fatal(err)
	}
	for i, res := range r {
		if res.Host.N < 10 || !(res.Host.Median > 0) {
			t.Errorf("side %d: %+v", i, res.Host)
		}
	}
	if e.Timer != nil && r[1].Kernel == nil {
		t.Error("GPU side without its kernel time")
	}
}
