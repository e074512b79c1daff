package hostsimd

import (
	"fmt"
	"runtime"
	"sync"

	"github.com/wgpu-prof/wgpu-prof/ops"
)

// SpreadParams are the spreading-activation parameters.
type SpreadParams struct {
	Retention float32 // r: share of a node's own activation it keeps
	Decay     float32 // δ: factor on incoming activation
	Threshold float32 // θ: results below it become 0
}

// SpreadStep computes one spreading-activation step on the N-node graph g:
//
//	out[i] = clamp01(r*a[i] + (1−r)*δ*Σ_{j→i} w_ji*a[j]), then 0 if < θ
//
// and returns max_i |out[i]−a[i]|. Sums are float32 in edge order. a and
// out must not overlap. It returns an error for a nil graph, len(a) != N
// or len(out) < N; g's structure is not validated (call Validate once for
// untrusted graphs), but an edge outside the arrays gives an error, not a
// crash. A NaN in a propagates to the nodes it reaches (clamp01 keeps
// NaN), and the returned change is then NaN. It runs with the zero Host.
func SpreadStep(g *ops.CSR, a, out []float32, p SpreadParams) (float32, error) {
	return Host{}.SpreadStep(g, a, out, p)
}

// SpreadStep is the package-level SpreadStep run with h's threads.
func (h Host) SpreadStep(g *ops.CSR, a, out []float32, p SpreadParams) (change float32, err error) {
	if g == nil {
		return 0, fmt.Errorf("hostsimd: SpreadStep: nil graph")
	}
	n := g.N()
	if len(a) != n || len(out) < n {
		return 0, fmt.Errorf("hostsimd: SpreadStep: graph has %d nodes but len(a)=%d, len(out)=%d", n, len(a), len(out))
	}
	if len(g.Offsets) > 0 && (int(g.Offsets[n]) > len(g.Cols) || int(g.Offsets[n]) > len(g.Weights)) {
		return 0, fmt.Errorf("hostsimd: SpreadStep: offsets end at %d past %d columns, %d weights", g.Offsets[n], len(g.Cols), len(g.Weights))
	}
	hr, err := h.resolve()
	if err != nil {
		return 0, err
	}
	// A malformed graph (an offset or column out of range) makes a
	// range's loop index outside the arrays: that runtime error becomes
	// the call's error.
	defer func() {
		if v := recover(); v != nil {
			re, ok := v.(runtime.Error)
			if !ok {
				panic(v)
			}
			change, err = 0, fmt.Errorf("hostsimd: SpreadStep: malformed graph (see ops.CSR.Validate): %v", re)
		}
	}()
	return hr.spreadStep(g, a, out, p), nil
}

func (hr *run) spreadStep(g *ops.CSR, a, out []float32, p SpreadParams) float32 {
	n := g.N()
	r := p.Retention
	f := (1 - p.Retention) * p.Decay
	th := p.Threshold
	off, cols, ws := g.Offsets, g.Cols, g.Weights
	avgDeg := 1
	if n > 0 {
		avgDeg = max(1, len(cols)/n)
	}
	var mu sync.Mutex
	var change float32
	hr.parallelFor(n, 2*avgDeg, 1024, func(lo, hi int) {
		var local float32
		for i := lo; i < hi; i++ {
			e0, e1 := off[i], off[i+1]
			var s float32
			for e := e0; e < e1; e++ {
				s += ws[e] * a[cols[e]]
			}
			x := r*a[i] + f*s
			if x < 0 {
				x = 0
			} else if x > 1 {
				x = 1
			}
			if x < th {
				x = 0
			}
			out[i] = x
			dlt := x - a[i]
			if dlt < 0 {
				dlt = -dlt
			}
			if dlt > local || dlt != dlt {
				local = dlt
			}
		}
		mu.Lock()
		if local > change || local != local {
			change = local
		}
		mu.Unlock()
	})
	return change
}

// Spread runs up to steps SpreadSteps from a (which is not modified) and
// returns the final activations and the number of steps run. It stops
// early after the first step whose maximum change is ≤ eps; eps < 0 always
// runs all steps. It validates g first (ops.CSR.Validate) and returns an
// error for an invalid graph or len(a) != N. It runs with the zero Host.
func Spread(g *ops.CSR, a []float32, p SpreadParams, steps int, eps float32) (final []float32, stepsRun int, err error) {
	return Host{}.Spread(g, a, p, steps, eps)
}

// Spread is the package-level Spread run with h's threads.
func (h Host) Spread(g *ops.CSR, a []float32, p SpreadParams, steps int, eps float32) (final []float32, stepsRun int, err error) {
	if g == nil {
		return nil, 0, fmt.Errorf("hostsimd: Spread: nil graph")
	}
	if err := g.Validate(); err != nil {
		return nil, 0, fmt.Errorf("hostsimd: Spread: %w", err)
	}
	if len(a) != g.N() {
		return nil, 0, fmt.Errorf("hostsimd: Spread: graph has %d nodes but len(a)=%d", g.N(), len(a))
	}
	hr, err := h.resolve()
	if err != nil {
		return nil, 0, err
	}
	cur := append([]float32(nil), a...)
	next := make([]float32, len(a))
	for stepsRun < steps {
		c := hr.spreadStep(g, cur, next, p)
		cur, next = next, cur
		stepsRun++
		if eps >= 0 && c <= eps {
			break
		}
	}
	return cur, stepsRun, nil
}
