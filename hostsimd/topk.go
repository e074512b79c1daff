package hostsimd

import (
	"container/heap"
	"slices"

	"github.com/wgpu-prof/wgpu-prof/ops"
)

// better reports whether x ranks before y: higher score first, equal
// scores by lower index, NaN after every number (NaNs by index).
func better(x, y ops.Pair) bool {
	xn, yn := x.Score != x.Score, y.Score != y.Score
	switch {
	case xn != yn:
		return yn
	case !xn && x.Score != y.Score:
		return x.Score > y.Score
	}
	return x.Index < y.Index
}

// worstHeap keeps the current top-k with the worst element at the root.
type worstHeap []ops.Pair

func (h worstHeap) Len() int           { return len(h) }
func (h worstHeap) Less(i, j int) bool { return better(h[j], h[i]) }
func (h worstHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *worstHeap) Push(x any)        { *h = append(*h, x.(ops.Pair)) }
func (h *worstHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// TopK returns the k best scores in order: descending score, ties broken
// by lower index, NaN scores after all numbers (so they are only returned
// when fewer than k numbers exist). -0 and +0 compare equal. k <= 0 gives
// an empty result and k > len(scores) returns all of them. Indices must
// fit in int32.
func TopK(scores []float32, k int) []ops.Pair {
	k = min(k, len(scores))
	if k <= 0 {
		return []ops.Pair{}
	}
	if k*8 >= len(scores) {
		all := make([]ops.Pair, len(scores))
		for i, s := range scores {
			all[i] = ops.Pair{Index: int32(i), Score: s}
		}
		slices.SortFunc(all, cmpPair)
		return all[:k:k]
	}
	h := make(worstHeap, 0, k)
	for i, s := range scores {
		p := ops.Pair{Index: int32(i), Score: s}
		if len(h) < k {
			heap.Push(&h, p)
		} else if better(p, h[0]) {
			h[0] = p
			heap.Fix(&h, 0)
		}
	}
	out := []ops.Pair(h)
	slices.SortFunc(out, cmpPair)
	return out
}

func cmpPair(x, y ops.Pair) int {
	if better(x, y) {
		return -1
	}
	if better(y, x) {
		return 1
	}
	return 0
}
