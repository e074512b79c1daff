package ops_test

import (
	"math"
	"strings"
	"testing"

	"github.com/wgpu-prof/wgpu-prof/ops"
)

func TestCSRValidate(t *testing.T) {
	good := func() *ops.CSR {
		return &ops.CSR{Offsets: []int32{0, 1, 3, 3}, Cols: []int32{1, 0, 2}, Weights: []float32{0.5, 1, 0.25}}
	}
	if err := good().Validate(); err != nil {
		t.Fatal(err)
	}
	if n := good().N(); n != 3 {
		t.Fatalf("N = %d, want 3", n)
	}
	cases := []struct {
		mut  func(g *ops.CSR)
		want string
	}{
		{func(g *ops.CSR) { g.Offsets = g.Offsets[:1] }, "len(Offsets) = 1"},
		{func(g *ops.CSR) { g.Offsets[0] = 1 }, "Offsets[0] = 1"},
		{func(g *ops.CSR) { g.Offsets[2] = 0 }, "Offsets[2] = 0"},
		{func(g *ops.CSR) { g.Offsets[3] = 2; g.Offsets[2] = 2 }, "Offsets[3] = 2"},
		{func(g *ops.CSR) { g.Weights = g.Weights[:2] }, "len(Weights) = 2"},
		{func(g *ops.CSR) { g.Cols[1] = 3 }, "Cols[1] = 3"},
		{func(g *ops.CSR) { g.Cols[2] = -1 }, "Cols[2] = -1"},
		{func(g *ops.CSR) { g.Weights[2] = float32(math.NaN()) }, "Weights[2] = NaN"},
		{func(g *ops.CSR) { g.Weights[0] = float32(math.Inf(1)) }, "Weights[0] = +Inf"},
	}
	for _, c := range cases {
		g := good()
		c.mut(g)
		if err := g.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("want error with %q, got %v", c.want, err)
		}
	}
	var nilG *ops.CSR
	if err := nilG.Validate(); err == nil {
		t.Error("a nil graph validated")
	}
}

func TestMetric(t *testing.T) {
	for _, m := range []ops.Metric{ops.L2Sq, ops.InnerProduct, ops.Cosine} {
		got, err := ops.ParseMetric(m.String())
		if err != nil || got != m || !m.Valid() {
			t.Fatalf("%v: parse %v %v", m, got, err)
		}
	}
	if _, err := ops.ParseMetric("l1"); err == nil {
		t.Fatal("unknown metric accepted")
	}
	if ops.Metric(7).Valid() {
		t.Fatal("Metric(7) is valid")
	}
}
