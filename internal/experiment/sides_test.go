package experiment

import (
	"errors"
	"testing"

	"github.com/wgpu-prof/wgpu-prof/internal/experiment/env"
)

func TestParseSides(t *testing.T) {
	p, err := ParseSides("cpu:threads=1, cpu:threads=2")
	if err != nil || p[0].Threads != 1 || p[1].Threads != 2 || p[0].Label != "cpu:threads=1" {
		t.Fatalf("%+v %v", p, err)
	}
	p, err = ParseSides("gpu:wg=64:data=shipped,cpu")
	if err != nil || !p[0].IsGPU() || p[0].Workgroup != 64 || !p[0].Shipped || p[1].IsGPU() {
		t.Fatalf("%+v %v", p, err)
	}
	for _, bad := range []string{"gpu", "gpu,cpu,cpu", "cpu,cpu", "tpu,cpu", "cpu:threads=0,gpu", "gpu:wg=48,cpu",
		"cpu:wg=64,gpu", "gpu:data=remote,cpu", "cpu:level=nosuch,gpu", "cpu:threads,gpu"} {
		var pe *env.ParamError
		if _, err := ParseSides(bad); err == nil || !errors.As(err, &pe) || pe.Name != "sides" {
			t.Errorf("%q: %v", bad, err)
		}
	}
}
