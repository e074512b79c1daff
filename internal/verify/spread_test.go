package verify

import (
	"math"
	"testing"

	"github.com/wgpu-prof/wgpu-prof/ops"
)

// NaN never passes the spreading interval check, wherever it is; values
// inside the interval pass and values outside fail.
func TestSpreadIntervalRefusesNaN(t *testing.T) {
	g := ops.CSR{Offsets: []int32{0, 1, 2, 2}, Cols: []int32{1, 0}, Weights: []float32{1, 1}}
	s := NewSpreadInterval(g, []float32{0.5, 0.25, 0})
	s.Step(0.5, 0.4, 0.01)
	mid := make([]float32, 3)
	for i := range mid {
		mid[i] = float32((s.Lo[i] + s.Hi[i]) / 2)
	}
	if err := s.Check("mid", mid); err != nil {
		t.Fatalf("the interval's midpoints rejected: %v", err)
	}
	for i := range mid {
		bad := append([]float32(nil), mid...)
		bad[i] = float32(math.NaN())
		if err := s.Check("nan", bad); err == nil {
			t.Errorf("NaN at node %d passed the interval check", i)
		}
		bad[i] = float32(s.Hi[i] + 0.1)
		if err := s.Check("above", bad); err == nil {
			t.Errorf("node %d above its interval passed", i)
		}
	}
}
