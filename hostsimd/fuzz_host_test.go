package hostsimd_test

import (
	"encoding/binary"
	"math"
	"sync/atomic"
	"testing"

	"github.com/wgpu-prof/wgpu-prof/hostsimd"
	"github.com/wgpu-prof/wgpu-prof/ops"
)

// FuzzHostEntryPoints calls hostsimd's exported entry points with any
// float32 bit patterns (NaN, ±Inf, subnormals, values near the float32
// limits), any shapes and any Host settings. Nothing may panic; an invalid
// Host is refused before any work; with finite inputs every cosine matches
// the float64 reference; SplitRows covers every row exactly once.
func FuzzHostEntryPoints(f *testing.F) {
	f.Add([]byte("0123456789abcdef0123456789abcdef"), uint8(4), 0, 0, int64(0), uint8(0))
	f.Add(make([]byte, 256), uint8(16), 2, 1, int64(1), uint8(1))
	f.Add([]byte{0, 0, 0x80, 0x7f, 0, 0, 0xc0, 0x7f, 1, 0, 0, 0, 0xff, 0xff, 0x7f, 0x7f, 0, 0, 0x80, 0x0d, 0, 0, 0, 0x80}, uint8(2), 20000, -3, int64(-1), uint8(7))
	f.Fuzz(func(t *testing.T, data []byte, d8 uint8, threads, exact int, minBytes int64, level uint8) {
		vals := make([]float32, len(data)/4)
		for i := range vals {
			vals[i] = math.Float32frombits(binary.LittleEndian.Uint32(data[4*i:]))
		}
		d := 1 + int(d8)%24
		h := hostsimd.Host{Threads: threads % 64, ExactThreads: exact % 64, MinBytesPerThread: minBytes, Level: hostsimd.Level(level % 5), FixLevel: level >= 5}
		valid := h.Validate() == nil
		if len(vals) < d {
			return
		}
		q := vals[:d]
		v := vals[d : d+(len(vals)-d)/d*d]
		n := len(v) / d
		out := make([]float32, n)
		err := h.CosineSingle(q, v, d, out)
		if valid != (err == nil) {
			t.Fatalf("Host %+v valid %v, CosineSingle err %v", h, valid, err)
		}
		if !valid {
			return
		}
		finite := true
		for _, x := range vals[:d+len(v)] {
			finite = finite && !math.IsNaN(float64(x)) && !math.IsInf(float64(x), 0)
		}
		check := func(what string, got []float32, qq []float32) {
			if !finite {
				return
			}
			for i := range got {
				want := refCos64(qq, v[i*d:(i+1)*d])
				if math.Abs(float64(got[i])-want) > 1e-4 {
					t.Fatalf("%s row %d: %v, want %v (q %v, row %v)", what, i, got[i], want, qq, v[i*d:(i+1)*d])
				}
			}
		}
		check("CosineSingle", out, q)
		if len(vals) >= 2*d {
			batch := make([]float32, 2*n)
			if err := h.CosineBatch(vals[:2*d], v, d, batch); err != nil {
				t.Fatal(err)
			}
			check("CosineBatch q0", batch[:n], vals[:d])
		}
		ids := make([]int32, n)
		for i := range ids {
			ids[i] = int32(i)
		}
		g := make([]float32, n)
		if err := h.Gather(q, v, d, ids, ops.Cosine, g); err != nil {
			t.Fatal(err)
		}
		check("Gather", g, q)
		for i := range n {
			c := h.Cosine(q, v[i*d:(i+1)*d])
			if finite && math.Abs(float64(c)-refCos64(q, v[i*d:(i+1)*d])) > 1e-4 {
				t.Fatalf("Cosine row %d: %v", i, c)
			}
		}
		norms := make([]float32, n)
		if err := h.RowNorms(v, d, norms); err != nil {
			t.Fatal(err)
		}
		if err := h.CosineSingleNorms(q, v, d, norms, out); err != nil {
			t.Fatal(err)
		}
		h.Dot(q, q)
		h.L2Squared(q, q)
		var covered atomic.Int64
		h.SplitRows(n, d, func(lo, hi int) { covered.Add(int64(hi - lo)) })
		if covered.Load() != int64(n) {
			t.Fatalf("SplitRows covered %d of %d rows", covered.Load(), n)
		}
		hostsimd.TopK(out, int(d8)-10)
		// A graph from the data: offsets and columns taken from the
		// values' bits (malformed ones included).
		nodes := 1 + int(d8)%8
		cg := &ops.CSR{Offsets: make([]int32, nodes+1)}
		for i := 1; i <= nodes; i++ {
			cg.Offsets[i] = cg.Offsets[i-1] + int32(data[i%len(data)]%3)
		}
		for e := int32(0); e < cg.Offsets[nodes]; e++ {
			cg.Cols = append(cg.Cols, int32(data[int(e)%len(data)])%int32(nodes+1))
			cg.Weights = append(cg.Weights, vals[int(e)%len(vals)])
		}
		a := make([]float32, nodes)
		copy(a, vals)
		h.Spread(cg, a, hostsimd.SpreadParams{Retention: vals[0], Decay: 0.5, Threshold: 0.01}, int(d8)%5, -1)
		h.SpreadStep(cg, a, make([]float32, nodes), hostsimd.SpreadParams{Retention: 0.5, Decay: 0.5})
	})
}

// refCos64 is the cosine of q and row in float64 (0 for a zero vector).
func refCos64(q, row []float32) float64 {
	var ab, aa, bb float64
	for i := range q {
		ab += float64(q[i]) * float64(row[i])
		aa += float64(q[i]) * float64(q[i])
		bb += float64(row[i]) * float64(row[i])
	}
	if aa == 0 || bb == 0 {
		return 0
	}
	return ab / math.Sqrt(aa*bb)
}
