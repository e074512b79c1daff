package hostsimd_test

import (
	"errors"
	"testing"

	"github.com/wgpu-prof/wgpu-prof/hostsimd"
	"github.com/wgpu-prof/wgpu-prof/internal/errconv"
	"github.com/wgpu-prof/wgpu-prof/ops"
)

// Every error of the package reads "hostsimd: Func: …" (the checks run
// before any work, so these calls are cheap) and wraps the sentinel of its
// cause.
func TestErrorConvention(t *testing.T) {
	out := make([]float32, 4)
	for _, c := range []struct {
		name string
		err  func() error
		want error
	}{
		{"CosineSingle", func() error { return hostsimd.CosineSingle(make([]float32, 3), make([]float32, 8), 4, out) }, nil},
		{"CosineBatch", func() error { return hostsimd.CosineBatch(nil, make([]float32, 8), 0, out) }, nil},
		{"Gather", func() error {
			return hostsimd.Gather(make([]float32, 4), make([]float32, 8), 4, []int32{5}, ops.L2Sq, out)
		}, nil},
		{"RowNorms", func() error { return hostsimd.RowNorms(make([]float32, 6), 4, out) }, nil},
		{"UniformGraph", func() error { _, err := hostsimd.UniformGraph(0, 1, 1); return err }, nil},
		{"RMATGraph", func() error { _, err := hostsimd.RMATGraph(40, 1, 1); return err }, nil},
		{"SpreadStep", func() error { _, err := hostsimd.SpreadStep(nil, nil, nil, hostsimd.SpreadParams{}); return err }, nil},
		{"Spread", func() error { _, _, err := hostsimd.Spread(nil, nil, hostsimd.SpreadParams{}, 1, 0); return err }, nil},
		{"ParseLevel", func() error { _, err := hostsimd.ParseLevel("sse9"); return err }, nil},
		{"Calibrate", func() error { _, err := hostsimd.Calibrate("sometimes"); return err }, nil},
		{"Host.Validate", func() error { return hostsimd.Host{Threads: -1}.Validate() }, hostsimd.ErrHost},
		{"MeasureCeilings", func() error { _, err := hostsimd.Host{Threads: -1}.MeasureCeilings(hostsimd.CeilingOpts{}); return err }, hostsimd.ErrHost},
		{"MeasureRead", func() error { _, err := hostsimd.MeasureRead(0, 1, 1); return err }, nil},
		{"MeasureReadUntil", func() error {
			_, err := hostsimd.MeasureReadUntil(1<<20, 1, 3, func() bool { return true })
			return err
		}, hostsimd.ErrStopped},
		{"RunStream", func() error { _, err := hostsimd.RunStream(hostsimd.StreamOpts{Threads: -1}); return err }, nil},
	} {
		err := c.err()
		if !errconv.Prefixed(err, "hostsimd") || (c.want != nil && !errors.Is(err, c.want)) {
			t.Errorf("%s: %v; want \"hostsimd: Func: …\" wrapping %v", c.name, err, c.want)
		}
	}
}
