package workload

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/wgpu-prof/wgpu-prof/hostsimd"
	"github.com/wgpu-prof/wgpu-prof/internal/verify"
	"github.com/wgpu-prof/wgpu-prof/ops"
)

// TestSpreadDefaultGraphsStayLive checks what the spreading workload
// needs of its default graphs: a 0.1% seed set, activity that reaches the graph, and
// fewer than half the nodes saturated at the last step.
func TestSpreadDefaultGraphsStayLive(t *testing.T) {
	c := Config{}
	c.Defaults()
	for _, d := range []*Descriptor{SpreadUniform, SpreadRMAT} {
		pr, err := d.Prepare(c)
		if err != nil {
			t.Fatal(err)
		}
		cs := pr.At(pr.Size, Knobs{})
		get := func(k string) string {
			for _, p := range cs.Params {
				if p.Key == k {
					return p.Value
				}
			}
			t.Fatalf("%s: no %q param in %v", d.Name, k, cs.Params)
			return ""
		}
		nodes, _ := strconv.Atoi(get("nodes"))
		seeds, _ := strconv.Atoi(get("seeds"))
		if want := nodes / 1000; seeds != want {
			t.Errorf("%s: %d seeds, want %d (0.1%% of %d)", d.Name, seeds, want, nodes)
		}
		act := strings.Split(get("active"), "/")
		sat := strings.Split(get("saturated"), "/")
		last, _ := strconv.Atoi(act[len(act)-1])
		lastSat, _ := strconv.Atoi(sat[len(sat)-1])
		t.Logf("%s: nodes %d seeds %d active/step %s saturated/step %s", d.Name, nodes, seeds, get("active"), get("saturated"))
		if 2*lastSat >= nodes {
			t.Errorf("%s: %d of %d nodes saturated at the last step", d.Name, lastSat, nodes)
		}
		if last <= 10*seeds {
			t.Errorf("%s: only %d nodes active at the last step from %d seeds: the activation does not spread", d.Name, last, seeds)
		}
	}
}

// TestSpreadPlantedEdgeErrorCaught plants a single wrong edge weight in
// the graph an implementation runs and checks the reference rejects its
// output, for edges drawn at random.
func TestSpreadPlantedEdgeErrorCaught(t *testing.T) {
	const nodes, degree, steps = 20000, 16, 10
	g0, err := hostsimd.UniformGraph(nodes, degree, 7)
	if err != nil {
		t.Fatal(err)
	}
	g := normalizeInWeights(g0)
	a0 := spreadSeeds(nodes, 7)
	ref := verify.NewSpreadInterval(*g, a0)
	f := (1 - spreadParams.Retention) * spreadParams.Decay
	for s := 0; s < steps; s++ {
		ref.Step(spreadParams.Retention, f, spreadParams.Threshold)
	}
	good, _, err := hostsimd.Spread(g, a0, spreadParams, steps, -1)
	if err != nil {
		t.Fatal(err)
	}
	if err := ref.Check("correct", good); err != nil {
		t.Fatalf("correct graph rejected: %v", err)
	}
	r := rand.New(rand.NewPCG(3, 4))
	for trial := 0; trial < 10; trial++ {
		e := r.IntN(len(g.Cols))
		bad := &ops.CSR{Offsets: g.Offsets, Cols: g.Cols, Weights: append([]float32(nil), g.Weights...)}
		bad.Weights[e] *= 1.5 // one edge 50% heavier
		out, _, _ := hostsimd.Spread(bad, a0, spreadParams, steps, -1)
		if err := ref.Check("planted", out); err == nil {
			t.Errorf("edge %d weight ×1.5 not caught by verification", e)
		}
	}
}
