package workload

import (
	"fmt"
	"slices"
	"testing"

	"github.com/wgpu-prof/wgpu-prof/hostsimd"
	"github.com/wgpu-prof/wgpu-prof/internal/dataset"
)

// manyRows is more stored rows than any workload ever capped them at
// (cosine-batch once scored only the first 8192).
const manyRows = 3*8192 + 5

// Every workload that reads --vectors scores all of the file's rows: the
// case at the default size names n = the file's rows, moves and computes
// for all of them, and both sides, their outputs poisoned, verify against
// the reference over every row. A workload that does not read --vectors
// has no parameter for it (the command line refuses the file for it,
// naming the workloads that do).
func TestEveryWorkloadHonoursAllFileRows(t *testing.T) {
	const dim = 8
	v := &dataset.Vectors{Rows: manyRows, Dim: dim, Data: make([]float32, manyRows*dim)}
	for i := range v.Data {
		v.Data[i] = float32((i*7)%23) - 11 + 0.25
	}
	g := openGPU(t)
	readers := 0
	for _, d := range All() {
		t.Run(d.Name, func(t *testing.T) {
			if !d.Has(ParamVectors.Name) {
				return
			}
			readers++
			c := Config{Dim: dim, N: manyRows, Q: 3, K: 4, Vectors: v, Seed: 5}
			c.Defaults()
			if err := d.Check(c); err != nil {
				t.Fatalf("%d rows refused: %v", manyRows, err)
			}
			pr, err := d.Prepare(c)
			if err != nil {
				t.Fatal(err)
			}
			cs := pr.At(pr.Size, Knobs{})
			if got := paramOf(cs, "n"); got != fmt.Sprint(manyRows) {
				t.Fatalf("case n = %q, want all %d rows of the file", got, manyRows)
			}
			if fx := fixedOf(pr, "n"); fx != "" && fx != fmt.Sprint(manyRows) {
				t.Fatalf("fixed n = %q, want %d", fx, manyRows)
			}
			if h, ok := pr.Cases.(*hnswData); ok {
				// A gather reads its candidates, drawn from every row.
				if top := slices.Max(h.ids); int(top) < 2*manyRows/3 {
					t.Errorf("candidates reach row %d of %d: not drawn from all rows", top, manyRows)
				}
			} else if min := float64(4 * manyRows * dim); cs.Bytes < min {
				t.Errorf("bytes %.0f: fewer than the %.0f the %d rows take", cs.Bytes, min, manyRows)
			}
			gs, err := cs.GPU.BuildGPU(g)
			if err != nil {
				t.Fatal(err)
			}
			if err := runSide(gs); err != nil {
				t.Errorf("gpu over %d rows: %v", manyRows, err)
			}
			cpu, err := cs.CPU.BuildCPU(hostsimd.Host{})
			if err != nil {
				t.Fatal(err)
			}
			if err := runSide(cpu); err != nil {
				t.Errorf("cpu over %d rows: %v", manyRows, err)
			}
		})
	}
	if readers < 3 {
		t.Errorf("%d workloads read --vectors; want cosine-single, cosine-topk and cosine-batch at least", readers)
	}
}

func paramOf(c Case, key string) string {
	for _, p := range c.Params {
		if p.Key == key {
			return p.Value
		}
	}
	return ""
}

func fixedOf(pr *Prepared, key string) string {
	for _, p := range pr.Fixed {
		if p.Key == key {
			return p.Value
		}
	}
	return ""
}

// The CPU-only suite's shapes take the sizes they are given: no shape
// cuts the cache-resident rows short.
func TestHostShapesHonourTheirSizes(t *testing.T) {
	h := HostSizes{Dim: 64, N: 300_000, NCached: 5000, Q: 8, Seed: 1}
	for _, d := range All() {
		for _, s := range d.Host(h) {
			if d == CosineBatch && s.Config.N != 4*h.NCached {
				t.Errorf("cosine-batch host shape: %d rows, want 4 × n-cached = %d", s.Config.N, 4*h.NCached)
			}
			if d == CosineSingle && s.Cache == "resident" && s.Config.N != h.NCached {
				t.Errorf("cosine-single resident host shape: %d rows, want n-cached %d", s.Config.N, h.NCached)
			}
		}
	}
}
