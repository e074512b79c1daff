package workload

import (
	"testing"

	"github.com/wgpu-prof/wgpu-prof/hostsimd"
	"github.com/wgpu-prof/wgpu-prof/internal/dataset"
)

// A workload given file data scores the file's rows (a prefix of them at
// smaller batches) with the file's first query, and its CPU side verifies
// against the reference built from them.
func TestFileDataBothCosineCPU(t *testing.T) {
	const rows, dim = 50, 8
	v := &dataset.Vectors{Rows: rows, Dim: dim, Data: make([]float32, rows*dim)}
	for i := range v.Data {
		v.Data[i] = float32(i%11) - 5
	}
	q := &dataset.Vectors{Rows: 2, Dim: dim, Data: make([]float32, 2*dim)}
	for i := range q.Data {
		q.Data[i] = float32(i%5) - 2
	}
	c := Config{Dim: dim, N: rows, Q: 2, K: 5, Vectors: v, Queries: q}
	c.Defaults()
	for _, w := range []*Descriptor{CosineSingle, CosineTopK, CosineBatch} {
		pr, err := w.Prepare(c)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range []int{1, pr.Size} {
			cs := pr.At(n, Knobs{})
			s, err := cs.CPU.BuildCPU(hostsimd.Host{})
			if err != nil {
				t.Fatal(err)
			}
			s.Poison()
			if _, err := s.Run(); err != nil {
				t.Fatal(err)
			}
			if err := s.Verify(); err != nil {
				t.Errorf("%s at %d: %v", w.Name, n, err)
			}
		}
	}
	d := c.cosineData(1)
	if &d.v[0] != &v.Data[0] || &d.q[0] != &q.Data[0] {
		t.Error("cosineData does not use the file's rows and first query")
	}
}
