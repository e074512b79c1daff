package ops_test

import (
	"testing"

	"github.com/wgpu-prof/wgpu-prof/internal/errconv"
	"github.com/wgpu-prof/wgpu-prof/ops"
)

// The package's errors read "ops: Func: …".
func TestErrorConvention(t *testing.T) {
	var nilG *ops.CSR
	_, errMetric := ops.ParseMetric("hamming")
	for _, err := range []error{
		errMetric,
		nilG.Validate(),
		(&ops.CSR{Offsets: []int32{0, 1}, Cols: []int32{3}, Weights: []float32{1}}).Validate(),
	} {
		if !errconv.Prefixed(err, "ops") {
			t.Errorf("%v: want \"ops: Func: …\"", err)
		}
	}
}
