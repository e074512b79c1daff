// Command recall is a small memory-recall loop on the CPU, the kind of
// application wgpu-prof plan is for: each step stores a new memory vector,
// scores a query against every stored vector (cosine similarity), spreads
// activation from the best hits over the memories' association graph for
// a few steps, and measures the distances from the query to a batch of
// candidate memories. It writes its own CPU profile (runtime/pprof) and,
// with -sizes, the batch sizes of its similarity calls as "size count"
// lines, the batch mix plan reads.
//
//	go run ./examples/recall -cpuprofile recall.pprof -sizes recall-sizes.txt
//	wgpu-prof plan --pprof recall.pprof --op 'main\.recallScores$=cosine-single@recall-sizes.txt' ...
package main

import (
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"runtime/pprof"
	"sort"
	"time"
)

const (
	dim        = 256 // memory vector dimension
	degree     = 8   // associations per memory
	steps      = 10  // spreading steps per recall
	candidates = 32  // candidate memories re-ranked per recall
)

// memory is the store: vectors and, per memory, the memories it is
// associated with (in-edges, as a CSR) and their weights.
type memory struct {
	vecs    []float32
	offsets []int32
	from    []int32
	weight  []float32
}

func (m *memory) n() int { return len(m.vecs) / dim }

// store adds a vector associated with degree random earlier memories.
func (m *memory) store(r *rand.Rand, v []float32) {
	n := m.n()
	m.vecs = append(m.vecs, v...)
	if len(m.offsets) == 0 {
		m.offsets = append(m.offsets, 0)
	}
	for range min(degree, n) {
		m.from = append(m.from, int32(r.IntN(n)))
		m.weight = append(m.weight, 1/float32(degree))
	}
	m.offsets = append(m.offsets, int32(len(m.from)))
}

// recallScores is the cosine similarity of q against every stored vector.
//
//go:noinline
func recallScores(m *memory, q, out []float32) {
	var qq float32
	for _, x := range q {
		qq += x * x
	}
	for i := range m.n() {
		row := m.vecs[i*dim : (i+1)*dim]
		var dot, vv float32
		for k, x := range row {
			dot += q[k] * x
			vv += x * x
		}
		out[i] = dot / float32(math.Sqrt(float64(qq)*float64(vv)))
	}
}

// spreadActivation spreads activation over the association graph:
// a' = 0.5·a + 0.4·Σ w·a(from), clamped to [0, 1].
//
//go:noinline
func spreadActivation(m *memory, a, next []float32) []float32 {
	for range steps {
		for v := range m.n() {
			var s float32
			for e := m.offsets[v]; e < m.offsets[v+1]; e++ {
				s += m.weight[e] * a[m.from[e]]
			}
			next[v] = min(1, 0.5*a[v]+0.4*s)
		}
		a, next = next, a
	}
	return a
}

// candidateDistances is the squared L2 distance from q to each candidate.
//
//go:noinline
func candidateDistances(m *memory, q []float32, ids []int32, out []float32) {
	for i, id := range ids {
		row := m.vecs[int(id)*dim : (int(id)+1)*dim]
		var d float32
		for k, x := range row {
			t := q[k] - x
			d += t * t
		}
		out[i] = d
	}
}

// best returns the indices of the k highest scores, best first.
func best(scores []float32, k int) []int32 {
	top := make([]int32, 0, k+1)
	for i, s := range scores {
		if len(top) == k && s <= scores[top[k-1]] {
			continue
		}
		j := len(top)
		top = append(top, int32(i))
		for j > 0 && scores[top[j-1]] < s {
			top[j] = top[j-1]
			j--
		}
		top[j] = int32(i)
		if len(top) > k {
			top = top[:k]
		}
	}
	return top
}

func main() {
	profile := flag.String("cpuprofile", "", "write the CPU profile here (required)")
	sizes := flag.String("sizes", "", "write the batch sizes of the similarity calls here, as 'size count' lines")
	seconds := flag.Float64("seconds", 2, "how long to run")
	flag.Parse()
	if *profile == "" {
		fmt.Fprintln(os.Stderr, "recall: -cpuprofile FILE is required")
		os.Exit(2)
	}
	f, err := os.Create(*profile)
	if err != nil {
		fmt.Fprintln(os.Stderr, "recall:", err)
		os.Exit(1)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		fmt.Fprintln(os.Stderr, "recall:", err)
		os.Exit(1)
	}
	r := rand.New(rand.NewPCG(1, 2))
	randVec := func() []float32 {
		v := make([]float32, dim)
		for i := range v {
			v[i] = float32(r.NormFloat64())
		}
		return v
	}
	m := &memory{}
	for range 1024 {
		m.store(r, randVec())
	}
	calls := map[int]int{}
	var checksum float64
	for end := time.Now().Add(time.Duration(*seconds * float64(time.Second))); time.Now().Before(end); {
		m.store(r, randVec())
		n := m.n()
		q := randVec()
		scores := make([]float32, n)
		recallScores(m, q, scores)
		calls[n]++
		// The best hits seed the activation.
		idx := best(scores, candidates)
		a := make([]float32, n)
		for _, i := range idx[:8] {
			a[i] = 1
		}
		a = spreadActivation(m, a, make([]float32, n))
		dists := make([]float32, candidates)
		candidateDistances(m, q, idx[:candidates], dists)
		checksum += float64(a[idx[0]]) + float64(dists[0])
	}
	pprof.StopCPUProfile()
	f.Close()
	if *sizes != "" {
		out, err := os.Create(*sizes)
		if err != nil {
			fmt.Fprintln(os.Stderr, "recall:", err)
			os.Exit(1)
		}
		ns := make([]int, 0, len(calls))
		for n := range calls {
			ns = append(ns, n)
		}
		sort.Ints(ns)
		for _, n := range ns {
			fmt.Fprintf(out, "%d %d\n", n, calls[n])
		}
		out.Close()
	}
	fmt.Printf("recall: %d memories, %d recalls (checksum %.3g); CPU profile in %s\n", m.n(), m.n()-1024, checksum, *profile)
}
