// Command vsearch is a small vector-search service, the worked example of
// wgpu-prof plan: requests from several clients each embed a query, score
// it against every vector of one of three collections (cosine
// similarity), and keep the best hits. It profiles itself (runtime/pprof)
// and, with -sizes, writes the sizes of its similarity calls with their
// counts, the batch mix plan reads.
//
// The similarity is the operation to port. -port picks how it runs:
// "none" (the service's own Go code), "simd" (wgpu-prof's host SIMD
// kernel, hostsimd, on one thread), "gpu" (every call on the GPU through
// a one-sided dispatch.Route) or "adaptive" (a dispatch.Route built from
// the plan, which sends each call to the side it expects to finish it
// first). Every request, from any client, carries its own query and
// scores to the side that serves it; the first requests of each
// collection are checked against the Go code.
//
// A CPU profile holds no GPU time: -bench FILE replays the similarity
// calls of the requests one after the other after serving them, on the
// same path, and writes their wall time as a Go benchmark
// (BenchmarkSimilarityReplay, with calls/op and gpu-calls/op), which plan
// --validate compares wall with wall (--wall-before, --wall-after).
//
//	go run ./examples/vsearch -cpuprofile before.pprof -sizes sizes.txt -bench before.txt
//	wgpu-prof plan --pprof before.pprof --op 'main\.similarity$=cosine-single@sizes.txt' --d 256 --format json --out plan
//	go run ./examples/vsearch -cpuprofile after.pprof -port adaptive -plan plan/plan.json -bench after.txt
//	wgpu-prof plan --pprof before.pprof --op 'main\.similarity$=cosine-single@sizes.txt' --d 256 --report plan/report.json \
//		--validate after.pprof --ported routed --wall-before before.txt --wall-after after.txt
//
// The service runs on one core (GOMAXPROCS 1, -procs), as the plan's
// host SIMD kernel does (--threads 1).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"runtime/pprof"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/wgpu-prof/wgpu-prof/compute"
	"github.com/wgpu-prof/wgpu-prof/compute/wgpu"
	"github.com/wgpu-prof/wgpu-prof/dispatch"
	"github.com/wgpu-prof/wgpu-prof/hostsimd"
)

const (
	dim   = 256 // vector dimension
	topK  = 10  // hits kept per request
	embed = 40  // rounds of the query embedding (its CPU cost)
)

// collectionSizes are the collections' rows; a request picks collection
// i with weight collectionWeights[i].
var (
	collectionSizes   = []int{2048, 8192, 32768}
	collectionWeights = []float64{0.5, 0.3, 0.2}
)

// request is one call of the similarity: its collection, its query and
// where its scores go.
type request struct {
	coll   int
	q      []float32
	scores []float32
}

type service struct {
	vecs  [][]float32 // per collection, rows × dim, row-major
	simd  bool        // the similarity on the host SIMD kernel
	route *dispatch.Route[request]
	gpu   []*compute.CosineSingle
	calls []atomic.Int64
}

// similarity scores the request's query against every vector of its
// collection: through the route when the service has one, else with the
// service's own code.
//
//go:noinline
func similarity(s *service, r request) (int, error) {
	if s.simd {
		return 0, similaritySIMD(s.vecs[r.coll], r.q, r.scores)
	}
	if s.route == nil {
		similarityCPU(s.vecs[r.coll], r.q, r.scores)
		return 0, nil
	}
	o, err := s.route.Do(r)
	return o.Side, err
}

// similarityCPU is the service's own code: cosine similarity of q with
// each row of v.
//
//go:noinline
func similarityCPU(v, q, out []float32) {
	var qq float32
	for _, x := range q {
		qq += x * x
	}
	for i := range out {
		row := v[i*dim : (i+1)*dim]
		var dot, vv float32
		for k, x := range row {
			dot += q[k] * x
			vv += x * x
		}
		out[i] = dot / float32(math.Sqrt(float64(qq)*float64(vv)))
	}
}

// similaritySIMD is the similarity on wgpu-prof's host SIMD kernel, on
// the service's one thread.
//
//go:noinline
func similaritySIMD(v, q, out []float32) error {
	return hostsimd.Host{ExactThreads: 1}.CosineSingle(q, v, dim, out)
}

// embedQuery turns a request's tokens into its query vector: a few
// rounds of mixing, the service's CPU work outside the similarity.
//
//go:noinline
func embedQuery(r *rand.Rand, q []float32) {
	for i := range q {
		q[i] = float32(r.NormFloat64())
	}
	for range embed {
		for i := range q {
			q[i] = float32(math.Tanh(float64(q[i] + 0.5*q[(i+1)%dim])))
		}
	}
}

// best returns the indices of the k highest scores, best first.
//
//go:noinline
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
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "vsearch:", err)
		var u usageError
		if errors.As(err, &u) {
			os.Exit(2)
		}
		os.Exit(1)
	}
}

type usageError struct{ error }

func run() error {
	cfg, err := parseFlags()
	if err != nil {
		return err
	}
	opts, err := cosineOptions(cfg.variant)
	if err != nil {
		return usageError{err}
	}
	runtime.GOMAXPROCS(cfg.procs)
	r := rand.New(rand.NewPCG(7, 11))
	s := newService(r)
	s.simd = cfg.port == "simd"
	if cfg.port == "gpu" || cfg.port == "adaptive" {
		dev, err := s.openGPU(opts)
		if err != nil {
			return err
		}
		defer dev.Release()
		defer func() {
			for _, g := range s.gpu {
				g.Release()
			}
		}()
		if err := s.buildRoute(cfg.port, cfg.planPath); err != nil {
			return err
		}
		if err := s.check(r); err != nil {
			return err
		}
	}
	colls := drawRequests(r, cfg.requests)
	served, onSide, elapsed, err := s.serveProfiled(colls, cfg.clients, cfg.profile)
	if err != nil {
		return err
	}
	if cfg.sizes != "" {
		if err := s.writeSizes(cfg.sizes); err != nil {
			return err
		}
	}
	if cfg.bench != "" {
		if err := s.replayBench(r, colls, cfg.bench); err != nil {
			return err
		}
	}
	fmt.Printf("vsearch: %d requests from %d clients in %.3f s (port %s; similarity calls answered by side: %v); checksum %d; CPU profile in %s\n",
		cfg.requests, cfg.clients, elapsed.Seconds(), cfg.port, onSide, served, cfg.profile)
	return nil
}

// config is the command line.
type config struct {
	profile, sizes, port, planPath, variant, bench string
	requests, clients, procs                       int
}

// parseFlags reads and checks the command line; a bad one is a usageError.
func parseFlags() (config, error) {
	var c config
	flag.StringVar(&c.profile, "cpuprofile", "", "write the CPU profile here (required)")
	flag.StringVar(&c.sizes, "sizes", "", "write the similarity calls' sizes here, as 'size count' lines")
	flag.StringVar(&c.port, "port", "none", "how the similarity runs: none (own code), simd (the host SIMD kernel), gpu (every call on the GPU), adaptive (routed by the plan)")
	flag.StringVar(&c.bench, "bench", "", "after serving, replay the similarity calls one after the other and write their wall time here as a Go benchmark")
	flag.StringVar(&c.planPath, "plan", "", "with -port adaptive: the plan (wgpu-prof plan --format json, or its --out plan.json)")
	flag.IntVar(&c.requests, "requests", 2400, "requests served")
	flag.IntVar(&c.clients, "clients", 8, "client goroutines sending the requests")
	flag.IntVar(&c.procs, "procs", 1, "GOMAXPROCS: the cores the service's Go code runs on")
	flag.StringVar(&c.variant, "variant", "row-per-inv-wg256", "the GPU kernel variant: the plan's gpu_variant (wg-per-row-wgN or row-per-inv-wgN)")
	flag.Parse()
	switch {
	case c.profile == "":
		return c, usageError{errors.New("-cpuprofile FILE is required")}
	case c.port != "none" && c.port != "simd" && c.port != "gpu" && c.port != "adaptive":
		return c, usageError{fmt.Errorf("-port %q: want none, simd, gpu or adaptive", c.port)}
	case c.port == "adaptive" && c.planPath == "":
		return c, usageError{errors.New("-port adaptive needs -plan plan.json")}
	case c.requests < 1 || c.clients < 1 || c.procs < 1:
		return c, usageError{fmt.Errorf("-requests %d, -clients %d, -procs %d: each must be ≥ 1", c.requests, c.clients, c.procs)}
	}
	return c, nil
}

// newService makes the service with its collections of random vectors.
func newService(r *rand.Rand) *service {
	s := &service{calls: make([]atomic.Int64, len(collectionSizes))}
	for _, n := range collectionSizes {
		v := make([]float32, n*dim)
		for i := range v {
			v[i] = float32(r.NormFloat64())
		}
		s.vecs = append(s.vecs, v)
	}
	return s
}

// drawRequests draws the requests' collections up front (by
// collectionWeights), so every run of the service serves the same ones.
func drawRequests(r *rand.Rand, n int) []int {
	colls := make([]int, n)
	for i := range colls {
		x, c := r.Float64(), 0
		for c < len(collectionWeights)-1 && x >= collectionWeights[c] {
			x -= collectionWeights[c]
			c++
		}
		colls[i] = c
	}
	return colls
}

// serveProfiled serves colls under the CPU profiler, writing the profile
// to path, and returns serve's results and the time it took.
func (s *service) serveProfiled(colls []int, clients int, path string) (int64, []int64, time.Duration, error) {
	f, err := os.Create(path)
	if err != nil {
		return 0, nil, 0, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		return 0, nil, 0, err
	}
	t0 := time.Now()
	served, onSide, err := s.serve(colls, clients)
	elapsed := time.Since(t0)
	pprof.StopCPUProfile()
	if err := f.Close(); err != nil {
		return 0, nil, 0, err
	}
	return served, onSide, elapsed, err
}

// serve runs the requests from clients goroutines and returns a checksum
// of their best hits and how many similarity calls each side answered.
func (s *service) serve(colls []int, clients int) (int64, []int64, error) {
	var next, sum atomic.Int64
	sides := make([]atomic.Int64, 2)
	var wg sync.WaitGroup
	errs := make(chan error, clients)
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(c), 3))
			q := make([]float32, dim)
			scores := make([][]float32, len(collectionSizes))
			for i, n := range collectionSizes {
				scores[i] = make([]float32, n)
			}
			for {
				i := int(next.Add(1)) - 1
				if i >= len(colls) {
					return
				}
				k := colls[i]
				embedQuery(r, q)
				side, err := similarity(s, request{coll: k, q: q, scores: scores[k]})
				if err != nil {
					errs <- err
					return
				}
				s.calls[k].Add(1)
				sides[side].Add(1)
				sum.Add(int64(best(scores[k], topK)[0]))
			}
		}()
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return 0, nil, err
	}
	return sum.Load(), []int64{sides[0].Load(), sides[1].Load()}, nil
}

// openGPU opens the default adapter and stores each collection on it.
func (s *service) openGPU(opts compute.CosineOptions) (*compute.Device, error) {
	dev, err := compute.Open(context.Background(), compute.Options{Device: wgpu.DeviceOptions{WaitTimeout: time.Minute}})
	if err != nil {
		return nil, fmt.Errorf("GPU: %w (libwgpu_native: run scripts/setup.sh)", err)
	}
	for i, n := range collectionSizes {
		g, err := compute.NewCosineSingle(dev.Device, s.vecs[i], dim, opts)
		if err != nil {
			dev.Release()
			return nil, fmt.Errorf("GPU: collection of %d rows: %w", n, err)
		}
		s.gpu = append(s.gpu, g)
	}
	return dev, nil
}

// cosineOptions parses a cosine-single variant name (wgpu-prof's
// labels): its design and workgroup size.
func cosineOptions(v string) (compute.CosineOptions, error) {
	for _, design := range []string{"wg-per-row", "row-per-inv"} {
		if wg, ok := strings.CutPrefix(v, design+"-wg"); ok {
			n, err := strconv.Atoi(wg)
			if err == nil && n > 0 {
				return compute.CosineOptions{Workgroup: n, RowPerInvocation: design == "row-per-inv"}, nil
			}
		}
	}
	return compute.CosineOptions{}, fmt.Errorf("-variant %q: want wg-per-row-wgN or row-per-inv-wgN (the plan's gpu_variant)", v)
}

// buildRoute builds the similarity's route: the GPU alone ("gpu"), or
// both sides from the plan ("adaptive").
func (s *service) buildRoute(port, planPath string) error {
	cpu := func(r request) error { similarityCPU(s.vecs[r.coll], r.q, r.scores); return nil }
	gpu := func(r request) error { _, err := s.gpu[r.coll].Run(r.q, r.scores, nil); return err }
	size := func(r request) int { return len(r.scores) }
	var err error
	if port == "gpu" {
		// One side: every call on the GPU; its model only orders nothing.
		s.route, err = dispatch.NewRoute([]dispatch.RouteSide[request]{{Name: "gpu", Serve: gpu, Model: dispatch.Linear(0, 1)}}, size, dispatch.Profile{}, dispatch.Config{})
		return err
	}
	s.route, err = dispatch.RouteFromReport(planPath, "cosine-single", cpu, gpu, size)
	return err
}

// check compares the GPU's scores with the service's own code on two
// fresh queries per collection (relative tolerance of float32 sums over
// dim terms), the scores poisoned first.
func (s *service) check(r *rand.Rand) error {
	q := make([]float32, dim)
	for i, n := range collectionSizes {
		for range 2 {
			embedQuery(r, q)
			want, got := make([]float32, n), make([]float32, n)
			for j := range got {
				got[j] = float32(math.NaN())
			}
			similarityCPU(s.vecs[i], q, want)
			if _, err := s.gpu[i].Run(q, got, nil); err != nil {
				return err
			}
			for j := range got {
				if !(math.Abs(float64(got[j]-want[j])) <= 1e-4) {
					return fmt.Errorf("GPU: collection %d row %d: score %v, the Go code's %v", i, j, got[j], want[j])
				}
			}
		}
	}
	return nil
}

// replayBench replays the similarity calls of colls one after the other
// (fresh queries, the same collections) on the service's path and writes
// their wall time as a Go benchmark of one op: the calls, and those the
// GPU answered.
func (s *service) replayBench(r *rand.Rand, colls []int, path string) error {
	q := make([]float32, dim)
	scores := make([][]float32, len(collectionSizes))
	for i, n := range collectionSizes {
		scores[i] = make([]float32, n)
	}
	var wall time.Duration
	gpu, gpuSide := 0, -1 // the route's last side is the GPU
	if s.route != nil {
		gpuSide = len(s.route.Share()) - 1
	}
	for _, k := range colls {
		embedQuery(r, q)
		t0 := time.Now()
		side, err := similarity(s, request{coll: k, q: q, scores: scores[k]})
		wall += time.Since(t0)
		if err != nil {
			return err
		}
		if side == gpuSide {
			gpu++
		}
	}
	line := fmt.Sprintf("BenchmarkSimilarityReplay 1 %d ns/op %d calls/op %d gpu-calls/op\n", wall.Nanoseconds(), len(colls), gpu)
	return os.WriteFile(path, []byte(line), 0o644)
}

// writeSizes writes the similarity calls' sizes with their counts.
func (s *service) writeSizes(path string) error {
	out, err := os.Create(path)
	if err != nil {
		return err
	}
	idx := make([]int, len(collectionSizes))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool { return collectionSizes[idx[a]] < collectionSizes[idx[b]] })
	for _, i := range idx {
		if c := s.calls[i].Load(); c > 0 {
			fmt.Fprintf(out, "%d %d\n", collectionSizes[i], c)
		}
	}
	return out.Close()
}
