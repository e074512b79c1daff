package hostsimd_test

import (
	"errors"
	"math"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/wgpu-prof/wgpu-prof/hostsimd"
	"github.com/wgpu-prof/wgpu-prof/ops"
)

// A panic in a SplitRows callback on a worker is re-raised on the caller's
// goroutine, where it can be recovered, after every range has finished.
func TestSplitRowsPanicReachesCaller(t *testing.T) {
	for _, th := range []int{2, 3} {
		h := hostsimd.Host{ExactThreads: th}
		got := func() (v any) {
			defer func() { v = recover() }()
			h.SplitRows(1000, 16, func(lo, hi int) {
				if lo > 0 {
					panic("worker range failed")
				}
			})
			return nil
		}()
		if got != "worker range failed" {
			t.Errorf("threads %d: recovered %v, want the worker's panic", th, got)
		}
		// The workers still run ranges afterwards.
		var covered atomic.Int64
		h.SplitRows(1000, 16, func(lo, hi int) { covered.Add(int64(hi - lo)) })
		if covered.Load() != 1000 {
			t.Errorf("threads %d: after the panic SplitRows covered %d of 1000 rows", th, covered.Load())
		}
	}
}

func TestHostValidate(t *testing.T) {
	for _, h := range []hostsimd.Host{
		{Threads: -1}, {Threads: hostsimd.MaxThreads() + 1}, {Threads: 20000}, {Threads: 1_000_000},
		{ExactThreads: -1}, {ExactThreads: 9000}, {MinBytesPerThread: -1}, {Level: 42, FixLevel: true},
	} {
		err := h.Validate()
		if !errors.Is(err, hostsimd.ErrHost) {
			t.Errorf("%+v: Validate() = %v, want ErrHost", h, err)
			continue
		}
		out := make([]float32, 2)
		if err := h.CosineSingle([]float32{1, 2}, []float32{1, 2, 3, 4}, 2, out); !errors.Is(err, hostsimd.ErrHost) {
			t.Errorf("%+v: CosineSingle err = %v, want ErrHost before any work", h, err)
		}
	}
	if err := (hostsimd.Host{Threads: 20000}).Validate(); err == nil || !strings.Contains(err.Error(), "Threads 20000") {
		t.Errorf("Threads 20000: %v, want the field and value named", err)
	}
	if err := (hostsimd.Host{Threads: hostsimd.MaxThreads(), ExactThreads: 2}).Validate(); err != nil {
		t.Errorf("MaxThreads: %v", err)
	}
}

// Exported functions return errors (or empty results) on bad input
// instead of panicking.
func TestNoPanicOnBadInput(t *testing.T) {
	for _, n := range []int{-1, 0, math.MinInt, math.MaxInt} {
		if s := hostsimd.HugeFloats(n); s != nil {
			t.Errorf("HugeFloats(%d) = %d floats, want nil", n, len(s))
		}
	}
	p := hostsimd.SpreadParams{Retention: 0.5, Decay: 0.5}
	if _, _, err := hostsimd.Spread(nil, nil, p, 3, 0); err == nil {
		t.Error("Spread(nil graph): no error")
	}
	if _, err := hostsimd.SpreadStep(nil, nil, nil, p); err == nil {
		t.Error("SpreadStep(nil graph): no error")
	}
	g := mustGraph(hostsimd.UniformGraph(10, 2, 1))
	if _, err := hostsimd.SpreadStep(g, make([]float32, 3), make([]float32, 10), p); err == nil {
		t.Error("SpreadStep with len(a) != N: no error")
	}
	bad := &ops.CSR{Offsets: []int32{0, 2, 3}, Cols: []int32{0, 99, 1}, Weights: []float32{1, 1, 1}}
	if _, err := hostsimd.SpreadStep(bad, make([]float32, 2), make([]float32, 2), p); err == nil || !strings.Contains(err.Error(), "malformed") {
		t.Errorf("SpreadStep with a column out of range: %v", err)
	}
	if _, _, err := hostsimd.Spread(bad, make([]float32, 2), p, 2, 0); err == nil {
		t.Error("Spread with a column out of range: no error")
	}
	for _, c := range [][2]int{{0, 1}, {-5, 1}, {10, -1}, {int(min(1<<31, math.MaxInt)), 1}, {1 << 30, 4}, {math.MaxInt, math.MaxInt}} {
		if _, err := hostsimd.UniformGraph(c[0], c[1], 1); err == nil {
			t.Errorf("UniformGraph(%d, %d): no error", c[0], c[1])
		}
	}
	for _, c := range [][2]int{{0, 1}, {31, 1}, {10, -1}, {30, 4}} {
		if _, err := hostsimd.RMATGraph(c[0], c[1], 1); err == nil {
			t.Errorf("RMATGraph(%d, %d): no error", c[0], c[1])
		}
	}
	out := make([]float32, 4)
	for _, err := range []error{
		hostsimd.CosineSingle(nil, nil, 0, out),
		hostsimd.CosineSingle([]float32{1}, []float32{1, 2}, -1, out),
		hostsimd.CosineBatch(nil, nil, math.MinInt, out),
		hostsimd.RowNorms([]float32{1, 2, 3}, 2, out),
		hostsimd.CosineSingleNorms([]float32{1}, []float32{1, 2}, 1, nil, out),
		hostsimd.CosineSingleF16([]float32{1}, []uint16{1, 2}, 1, nil),
		hostsimd.Gather([]float32{1}, []float32{1}, 1, []int32{5}, ops.Cosine, out),
		hostsimd.Gather([]float32{1}, []float32{1}, 1, []int32{0}, ops.Metric(99), out),
	} {
		if err == nil {
			t.Error("bad shape accepted")
		}
	}
	hostsimd.Host{}.SplitRows(-3, 5, func(lo, hi int) { t.Error("SplitRows(-3) called fn") })
	hostsimd.Host{}.SplitRows(3, 0, func(lo, hi int) { t.Error("SplitRows(d=0) called fn") })
	hostsimd.SplitRows(3, 1, nil)
	if got := hostsimd.TopK(nil, -1); len(got) != 0 {
		t.Errorf("TopK(nil, -1) = %v", got)
	}
	if got := hostsimd.TopK([]float32{1}, math.MaxInt); len(got) != 1 {
		t.Errorf("TopK(one score, MaxInt) = %v", got)
	}
}
