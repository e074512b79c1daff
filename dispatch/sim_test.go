package dispatch_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/wgpu-prof/wgpu-prof/dispatch"
)

// sim is a simulated executor: a + b·n seconds, times a factor, with
// relative noise; it fails while fail is set.
type sim struct {
	a, b   float64
	factor float64
	noise  float64
	r      *rand.Rand
	fail   bool
	calls  int
	spike  float64 // probability of a 100× call (a preempted call)
}

func (s *sim) Run(n int) (time.Duration, error) {
	s.calls++
	if s.fail {
		return 10 * time.Microsecond, errors.New("device lost")
	}
	f := s.factor
	if f == 0 {
		f = 1
	}
	t := (s.a + s.b*float64(n)) * f * (1 + s.noise*(2*s.r.Float64()-1))
	if s.spike > 0 && s.r.Float64() < s.spike {
		t *= 100
	}
	return time.Duration(t * 1e9), nil
}

func (s *sim) model() dispatch.Model { return dispatch.Linear(s.a, s.b) }

// pair: A has low overhead and high per-item cost, B the opposite;
// crossover at (20−2)/(0.1−0.01) µs = 200 items.
func pair(seed uint64) (*sim, *sim) {
	r := rand.New(rand.NewPCG(seed, 1))
	return &sim{a: 2e-6, b: 100e-9, noise: 0.05, r: r}, &sim{a: 20e-6, b: 10e-9, noise: 0.05, r: r}
}

func sizes(seed uint64, count int) []int {
	r := rand.New(rand.NewPCG(seed, 2))
	out := make([]int, count)
	for i := range out {
		out[i] = int(math.Exp(r.Float64() * math.Log(20000)))
	}
	return out
}

// logSize draws a size log-uniform over [1, 300].
func logSize(r *rand.Rand) int { return int(math.Round(math.Exp(r.Float64() * math.Log(300)))) }

// prof2 is two sides' models and their measured crossover (0: none).
type prof2 struct {
	Models    [2]dispatch.Model
	Crossover float64
}

// newP returns a dispatcher over two sides a and b named names, with
// models and crossover from p.
func newP(a, b dispatch.Executor, names [2]string, p prof2, cfg dispatch.Config) (*dispatch.Dispatcher, error) {
	return dispatch.New([]dispatch.Side{{Name: names[0], Exec: a, Model: p.Models[0]}, {Name: names[1], Exec: b, Model: p.Models[1]}},
		dispatch.Profile{Crossover: p.Crossover}, cfg)
}

// new2 is newP with the models and crossover given apart.
func new2(a, b dispatch.Executor, names [2]string, ma, mb dispatch.Model, crossover float64, cfg dispatch.Config) (*dispatch.Dispatcher, error) {
	return newP(a, b, names, prof2{Models: [2]dispatch.Model{ma, mb}, Crossover: crossover}, cfg)
}

// modeled is a simulated side with the model it is profiled by.
type modeled interface {
	dispatch.Executor
	model() dispatch.Model
}

// newD returns a dispatcher over a and b profiled by their models, with
// the default configuration.
func newD(t *testing.T, a, b modeled) *dispatch.Dispatcher {
	t.Helper()
	d, err := new2(a, b, [2]string{"A", "B"}, a.model(), b.model(), 0, dispatch.Config{})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// wakeSim pays a wake-up on a call that follows more than after (default
// 2) calls of the other side (a parked worker thread, an idle GPU): twenty times
// its time.
type wakeSim struct {
	*sim
	clock *int // calls of both sides so far
	last  int  // clock at this side's latest call
	after int
	// cool > 0: a call after a gap of 9 to after calls is this factor
	// slower (a worker that yielded its core, caches the other side used).
	cool float64
}

func (w *wakeSim) Run(n int) (time.Duration, error) {
	*w.clock++
	gap := *w.clock - w.last
	w.last = *w.clock
	t, err := w.sim.Run(n)
	switch {
	case gap > max(w.after, 2):
		t *= 20
	case w.cool > 0 && gap > 8:
		t = time.Duration(float64(t) * w.cool)
	}
	return t, err
}

// coldSim runs its first cold calls of sizes ≥ from at factor× their time
// (data not yet in the caches), then as sim.
type coldSim struct {
	*sim
	from, cold int
	factor     float64
}

func (c *coldSim) Run(n int) (time.Duration, error) {
	t, err := c.sim.Run(n)
	if n >= c.from && c.cold > 0 {
		c.cold--
		t = time.Duration(float64(t) * c.factor)
	}
	return t, err
}

// coldPair: A threads=1-like, B threads=2-like (crossover near 17
// items), B's first cold calls at sizes from `from` up three times their time.
func coldPair(seed uint64, from, cold int) (*sim, *coldSim) {
	r := rand.New(rand.NewPCG(seed, 1))
	return &sim{a: 0.3e-6, b: 40e-9, noise: 0.05, r: r}, &coldSim{sim: &sim{a: 0.6e-6, b: 22e-9, noise: 0.05, r: r}, from: from, cold: cold, factor: 3}
}
