package ops

import (
	"fmt"
	"math"
	"strings"
)

// Pair is one top-k result: a row index and its score.
type Pair struct {
	Index int32
	Score float32
}

// Metric selects what a candidate-distance batch computes per (query,
// candidate) pair.
type Metric int

const (
	// L2Sq is the squared Euclidean distance ‖q−v‖².
	L2Sq Metric = iota
	// InnerProduct is q·v (a similarity: larger is closer).
	InnerProduct
	// Cosine is q·v / (‖q‖·‖v‖), 0 when either vector is zero.
	Cosine
)

func (m Metric) String() string {
	switch m {
	case L2Sq:
		return "l2sq"
	case InnerProduct:
		return "ip"
	case Cosine:
		return "cosine"
	}
	return fmt.Sprintf("Metric(%d)", int(m))
}

// Valid reports whether m is one of the defined metrics.
func (m Metric) Valid() bool { return m == L2Sq || m == InnerProduct || m == Cosine }

// ParseMetric parses "l2sq", "ip" or "cosine".
func ParseMetric(s string) (Metric, error) {
	for _, m := range []Metric{L2Sq, InnerProduct, Cosine} {
		if strings.EqualFold(strings.TrimSpace(s), m.String()) {
			return m, nil
		}
	}
	return 0, fmt.Errorf("ops: ParseMetric: metric %q: want l2sq, ip or cosine", s)
}

// CSR is a weighted directed graph in compressed sparse rows, stored by
// destination: the edges into node i are Cols[Offsets[i]:Offsets[i+1]]
// (their source nodes) with weights Weights[Offsets[i]:Offsets[i+1]].
type CSR struct {
	Offsets []int32 // N+1 entries, Offsets[0] = 0, non-decreasing, Offsets[N] = len(Cols)
	Cols    []int32 // source node of each edge, in [0,N)
	Weights []float32
}

// N returns the number of nodes, len(Offsets)-1.
func (g *CSR) N() int { return max(0, len(g.Offsets)-1) }

// Validate checks the structure: at least one node, offsets starting at 0
// and non-decreasing up to len(Cols), one finite weight per edge, every
// source in range. The error names the first offending entry.
func (g *CSR) Validate() error {
	if err := g.validate(); err != nil {
		return fmt.Errorf("ops: CSR.Validate: %w", err)
	}
	return nil
}

func (g *CSR) validate() error {
	if g == nil {
		return fmt.Errorf("graph is nil")
	}
	if len(g.Offsets) < 2 {
		return fmt.Errorf("len(Offsets) = %d: a graph needs at least one node (N+1 offsets)", len(g.Offsets))
	}
	n := len(g.Offsets) - 1
	if n >= math.MaxInt32 {
		return fmt.Errorf("%d nodes: at most %d", n, math.MaxInt32-1)
	}
	if g.Offsets[0] != 0 {
		return fmt.Errorf("Offsets[0] = %d, want 0", g.Offsets[0])
	}
	for i := 1; i <= n; i++ {
		if g.Offsets[i] < g.Offsets[i-1] {
			return fmt.Errorf("Offsets[%d] = %d < Offsets[%d] = %d: offsets must be non-decreasing", i, g.Offsets[i], i-1, g.Offsets[i-1])
		}
	}
	if int(g.Offsets[n]) != len(g.Cols) {
		return fmt.Errorf("Offsets[%d] = %d, want len(Cols) = %d", n, g.Offsets[n], len(g.Cols))
	}
	if len(g.Weights) != len(g.Cols) {
		return fmt.Errorf("len(Weights) = %d, want len(Cols) = %d", len(g.Weights), len(g.Cols))
	}
	for e, c := range g.Cols {
		if c < 0 || int(c) >= n {
			return fmt.Errorf("Cols[%d] = %d out of range [0,%d)", e, c, n)
		}
	}
	for e, w := range g.Weights {
		if math.IsNaN(float64(w)) || math.IsInf(float64(w), 0) {
			return fmt.Errorf("Weights[%d] = %v: inputs must be finite", e, w)
		}
	}
	return nil
}
