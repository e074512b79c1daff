package workload

import (
	"math"
	"math/rand/v2"
	"sort"
)

// hnswIndex is a hierarchical navigable small world graph (Malkov &
// Yashunin, "Efficient and robust approximate nearest neighbor search using
// Hierarchical Navigable Small World graphs", 2018): each node gets a
// random top level drawn from an exponential law (level ⌊-ln U · mL⌋ with
// mL = 1/ln M), is linked on every level up to it to neighbours chosen by
// the paper's heuristic (Algorithm 4) among efC candidates, and a search
// descends greedily from the entry point to level 1 and then runs a
// best-first search of breadth ef on level 0 (Algorithms 2 and 5).
//
// It exists so that --candidates hnsw replays the distance evaluations of
// a real index search; TestHNSWIndexRecall checks its searches find the
// true nearest neighbours.
type hnswIndex struct {
	dim  int
	m    int // links per node on levels ≥ 1
	m0   int // links per node on level 0 (2·m, as in the paper)
	efC  int // candidate breadth while inserting
	ml   float64
	vecs []float32
	dist func(a, b []float32) float32
	// links[node][level] are the node's neighbours on that level.
	links    [][][]int32
	entry    int32
	maxLevel int
	rng      *rand.Rand
	// visited[i] == epoch marks node i as seen by the current layer search.
	visited []uint32
	epoch   uint32
	// onEval, when set, is called with every node whose distance to a
	// search's query is computed (the search trace).
	onEval func(int32)
}

// newHNSWIndex returns an empty index over vectors of dim with m links per
// node (2m on level 0), efC candidates per insertion and dist as the
// distance (smaller is nearer). seed fixes the level draws.
func newHNSWIndex(dim, m, efC int, dist func(a, b []float32) float32, seed uint64) *hnswIndex {
	if m < 2 {
		m = 2
	}
	if efC < m {
		efC = m
	}
	return &hnswIndex{
		dim: dim, m: m, m0: 2 * m, efC: efC, ml: 1 / math.Log(float64(m)),
		dist: dist, entry: -1, rng: rand.New(rand.NewPCG(seed, 0x68707377)),
	}
}

// vec is node i's vector.
func (x *hnswIndex) vec(i int32) []float32 {
	return x.vecs[int(i)*x.dim : (int(i)+1)*x.dim : (int(i)+1)*x.dim]
}

// hnswCand is a node and its distance to the point being searched for.
type hnswCand struct {
	id int32
	d  float32
}

// add inserts v (len dim) as the next node and returns its id.
func (x *hnswIndex) add(v []float32) int32 {
	id := int32(len(x.links))
	x.vecs = append(x.vecs, v[:x.dim]...)
	x.visited = append(x.visited, 0)
	level := int(-math.Log(1-x.rng.Float64()) * x.ml) // 1-U is in (0, 1]
	x.links = append(x.links, make([][]int32, level+1))
	if x.entry < 0 {
		x.entry, x.maxLevel = id, level
		return id
	}
	q := x.vec(id)
	ep := hnswCand{x.entry, x.dist(q, x.vec(x.entry))}
	for l := x.maxLevel; l > level; l-- {
		ep = x.greedy(q, ep, l)
	}
	eps := []hnswCand{ep}
	for l := min(level, x.maxLevel); l >= 0; l-- {
		w := x.searchLayer(q, eps, x.efC, l)
		neigh := x.selectNeighbors(w, x.m)
		x.links[id][l] = ids(neigh)
		for _, e := range neigh {
			x.connect(e.id, id, l)
		}
		eps = w
	}
	if level > x.maxLevel {
		x.entry, x.maxLevel = id, level
	}
	return id
}

// maxLinks is the most neighbours a node keeps on level l.
func (x *hnswIndex) maxLinks(l int) int {
	if l == 0 {
		return x.m0
	}
	return x.m
}

// connect adds the link e→n on level l, pruning e's list with the
// neighbour heuristic when it grows past the level's maximum.
func (x *hnswIndex) connect(e, n int32, l int) {
	list := append(x.links[e][l], n)
	if len(list) <= x.maxLinks(l) {
		x.links[e][l] = list
		return
	}
	ev := x.vec(e)
	cs := make([]hnswCand, len(list))
	for i, c := range list {
		cs[i] = hnswCand{c, x.dist(x.vec(c), ev)}
	}
	sortCands(cs)
	x.links[e][l] = ids(x.selectNeighbors(cs, x.maxLinks(l)))
}

// selectNeighbors is the paper's heuristic (Algorithm 4, without keeping
// pruned links): walking cs nearest first, a candidate is kept when it is
// nearer to the base point than to every candidate kept so far, so the
// links spread in different directions instead of clustering. cs must be
// sorted nearest first.
func (x *hnswIndex) selectNeighbors(cs []hnswCand, m int) []hnswCand {
	if len(cs) <= m {
		return cs
	}
	kept := make([]hnswCand, 0, m)
	for _, c := range cs {
		if len(kept) == m {
			break
		}
		cv, good := x.vec(c.id), true
		for _, r := range kept {
			if x.dist(cv, x.vec(r.id)) < c.d {
				good = false
				break
			}
		}
		if good {
			kept = append(kept, c)
		}
	}
	return kept
}

// greedy walks level l from ep to the nearest node to q it can reach by
// always moving to a nearer neighbour (a search of breadth 1).
func (x *hnswIndex) greedy(q []float32, ep hnswCand, l int) hnswCand {
	for moved := true; moved; {
		moved = false
		for _, n := range x.links[ep.id][l] {
			if d := x.evalDist(q, n); d < ep.d {
				ep, moved = hnswCand{n, d}, true
			}
		}
	}
	return ep
}

// evalDist is the distance from q to node n, reported to onEval.
func (x *hnswIndex) evalDist(q []float32, n int32) float32 {
	if x.onEval != nil {
		x.onEval(n)
	}
	return x.dist(q, x.vec(n))
}

// searchLayer is the best-first search of level l from eps (Algorithm 2):
// it returns up to ef nodes nearest to q found, nearest first.
func (x *hnswIndex) searchLayer(q []float32, eps []hnswCand, ef, l int) []hnswCand {
	x.epoch++
	if x.epoch == 0 { // wrapped: clear the marks
		clear(x.visited)
		x.epoch = 1
	}
	var cand minHeap
	var res maxHeap
	for _, e := range eps {
		if x.visited[e.id] == x.epoch {
			continue
		}
		x.visited[e.id] = x.epoch
		cand.push(e)
		res.push(e)
		if len(res) > ef {
			res.pop()
		}
	}
	for len(cand) > 0 {
		c := cand.pop()
		if len(res) >= ef && c.d > res[0].d {
			break
		}
		for _, n := range x.links[c.id][l] {
			if x.visited[n] == x.epoch {
				continue
			}
			x.visited[n] = x.epoch
			d := x.evalDist(q, n)
			if len(res) < ef || d < res[0].d {
				cand.push(hnswCand{n, d})
				res.push(hnswCand{n, d})
				if len(res) > ef {
					res.pop()
				}
			}
		}
	}
	out := []hnswCand(res)
	sortCands(out)
	return out
}

// search returns the k nodes nearest to q that a search of breadth ef
// finds, nearest first.
func (x *hnswIndex) search(q []float32, k, ef int) []hnswCand {
	if x.entry < 0 || k < 1 {
		return nil
	}
	ep := hnswCand{x.entry, x.evalDist(q, x.entry)}
	for l := x.maxLevel; l > 0; l-- {
		ep = x.greedy(q, ep, l)
	}
	w := x.searchLayer(q, []hnswCand{ep}, max(ef, k), 0)
	if len(w) > k {
		w = w[:k]
	}
	return w
}

func ids(cs []hnswCand) []int32 {
	out := make([]int32, len(cs))
	for i, c := range cs {
		out[i] = c.id
	}
	return out
}

// sortCands orders cs nearest first (ties by id, so builds are
// deterministic).
func sortCands(cs []hnswCand) {
	sort.Slice(cs, func(i, j int) bool {
		if cs[i].d != cs[j].d {
			return cs[i].d < cs[j].d
		}
		return cs[i].id < cs[j].id
	})
}

// minHeap pops the nearest candidate first; maxHeap the farthest.
type minHeap []hnswCand
type maxHeap []hnswCand

func (h *minHeap) push(c hnswCand) { *h = append(*h, c); siftUp(*h, len(*h)-1, lessNear) }
func (h *minHeap) pop() hnswCand   { return popHeap((*[]hnswCand)(h), lessNear) }
func (h *maxHeap) push(c hnswCand) { *h = append(*h, c); siftUp(*h, len(*h)-1, lessFar) }
func (h *maxHeap) pop() hnswCand   { return popHeap((*[]hnswCand)(h), lessFar) }

func lessNear(a, b hnswCand) bool { return a.d < b.d || (a.d == b.d && a.id < b.id) }
func lessFar(a, b hnswCand) bool  { return lessNear(b, a) }

func siftUp(h []hnswCand, i int, less func(a, b hnswCand) bool) {
	for i > 0 {
		p := (i - 1) / 2
		if !less(h[i], h[p]) {
			return
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
}

func popHeap(hp *[]hnswCand, less func(a, b hnswCand) bool) hnswCand {
	h := *hp
	top := h[0]
	last := len(h) - 1
	h[0] = h[last]
	h = h[:last]
	for i := 0; ; {
		l, r, s := 2*i+1, 2*i+2, i
		if l < len(h) && less(h[l], h[s]) {
			s = l
		}
		if r < len(h) && less(h[r], h[s]) {
			s = r
		}
		if s == i {
			break
		}
		h[i], h[s] = h[s], h[i]
		i = s
	}
	*hp = h
	return top
}
