package workload

import (
	"math/rand/v2"
	"sort"
	"testing"
)

func l2sq(a, b []float32) float32 {
	var s float32
	for i := range a {
		d := a[i] - b[i]
		s += d * d
	}
	return s
}

func buildTestIndex(t *testing.T, n, dim, m, efC int, seed uint64) (*hnswIndex, []float32) {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 1))
	v := make([]float32, n*dim)
	for i := range v {
		v[i] = float32(r.NormFloat64())
	}
	x := newHNSWIndex(dim, m, efC, l2sq, seed)
	for i := 0; i < n; i++ {
		if id := x.add(v[i*dim : (i+1)*dim]); id != int32(i) {
			t.Fatalf("add %d returned id %d", i, id)
		}
	}
	return x, v
}

// TestHNSWIndexRecall checks the index is a working nearest-neighbour
// index: searches at breadth 64 find nearly all of the true 10 nearest
// neighbours (brute force) of fresh queries, and a search of breadth 1 on
// the same graph finds fewer, so breadth matters as it should.
func TestHNSWIndexRecall(t *testing.T) {
	const n, dim, k = 3000, 16, 10
	x, v := buildTestIndex(t, n, dim, 16, 64, 7)
	r := rand.New(rand.NewPCG(99, 2))
	q := make([]float32, dim)
	recall := func(ef int) float64 {
		var hit, total int
		for s := 0; s < 50; s++ {
			for i := range q {
				q[i] = float32(r.NormFloat64())
			}
			type nd struct {
				id int32
				d  float32
			}
			all := make([]nd, n)
			for i := range all {
				all[i] = nd{int32(i), l2sq(q, v[i*dim:(i+1)*dim])}
			}
			sort.Slice(all, func(i, j int) bool { return all[i].d < all[j].d })
			truth := map[int32]bool{}
			for _, a := range all[:k] {
				truth[a.id] = true
			}
			got := x.search(q, k, ef)
			if len(got) != k {
				t.Fatalf("search returned %d, want %d", len(got), k)
			}
			for i, g := range got {
				if i > 0 && got[i-1].d > g.d {
					t.Fatalf("results not nearest first: %v", got)
				}
				if g.d != l2sq(q, v[int(g.id)*dim:(int(g.id)+1)*dim]) {
					t.Fatalf("result %d: distance %v is not its node's", g.id, g.d)
				}
				if truth[g.id] {
					hit++
				}
			}
			total += k
		}
		return float64(hit) / float64(total)
	}
	hi, lo := recall(64), recall(1)
	if hi < 0.9 {
		t.Errorf("recall@10 at ef=64 is %.3f, want ≥ 0.9", hi)
	}
	if !(lo < hi) {
		t.Errorf("recall@10 at ef=1 (%.3f) not below ef=64 (%.3f)", lo, hi)
	}
}

// TestHNSWIndexGraph checks the graph's invariants: no node has more links
// than its level allows, links point to existing nodes on levels both
// have, nobody links to itself, and every node is reachable on level 0
// from the entry point (so no part of the set is lost to searches).
func TestHNSWIndexGraph(t *testing.T) {
	x, _ := buildTestIndex(t, 2000, 8, 6, 24, 3)
	levels := map[int]int{}
	for id, ls := range x.links {
		levels[len(ls)-1]++
		for l, list := range ls {
			if len(list) > x.maxLinks(l) {
				t.Fatalf("node %d level %d has %d links, max %d", id, l, len(list), x.maxLinks(l))
			}
			for _, n := range list {
				if int(n) == id {
					t.Fatalf("node %d links to itself", id)
				}
				if int(n) >= len(x.links) || len(x.links[n]) <= l {
					t.Fatalf("node %d level %d links to %d, which is not on that level", id, l, n)
				}
			}
		}
	}
	if len(x.links[x.entry])-1 != x.maxLevel {
		t.Fatalf("entry %d is not on the top level %d", x.entry, x.maxLevel)
	}
	// Level sizes fall geometrically (by about 1/m per level).
	if x.maxLevel < 1 || levels[0] < 2*levels[1] {
		t.Errorf("top levels per node: %v", levels)
	}
	seen := make([]bool, len(x.links))
	stack := []int32{x.entry}
	seen[x.entry] = true
	for len(stack) > 0 {
		c := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, n := range x.links[c][0] {
			if !seen[n] {
				seen[n] = true
				stack = append(stack, n)
			}
		}
	}
	for id, s := range seen {
		if !s {
			t.Fatalf("node %d is not reachable on level 0 from the entry", id)
		}
	}
}

// TestHNSWIndexDeterministic: the same seed builds the same graph, so a
// replayed trace is the same on every run.
func TestHNSWIndexDeterministic(t *testing.T) {
	a, _ := buildTestIndex(t, 500, 8, 8, 32, 11)
	b, _ := buildTestIndex(t, 500, 8, 8, 32, 11)
	if a.entry != b.entry || a.maxLevel != b.maxLevel {
		t.Fatal("entry points differ")
	}
	for id := range a.links {
		for l := range a.links[id] {
			if len(a.links[id][l]) != len(b.links[id][l]) {
				t.Fatalf("node %d level %d differs", id, l)
			}
			for i := range a.links[id][l] {
				if a.links[id][l][i] != b.links[id][l][i] {
					t.Fatalf("node %d level %d differs", id, l)
				}
			}
		}
	}
}
