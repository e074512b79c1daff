package dispatch

import (
	"errors"
	"math"
	"testing"
	"time"
)

// A GPU side whose fit puts its fixed cost (1 µs) below its measured
// round trip (60 µs) wins every size on the fits alone; with the round
// trip as its floor its prior at small sizes is the round trip, and the
// first small calls go to the CPU before any call was observed. Above the
// sizes where the fit passes the floor, the fit stands.
func TestFloorRoutesSmallCallsToCPU(t *testing.T) {
	const rt = 60e-6
	cpu, gpu := Linear(2e-6, 10e-9), Linear(1e-6, 0.5e-9)
	build := func(floor float64, prof Profile) (*Dispatcher, *[2]int) {
		var calls [2]int
		side := func(s int, m Model) Executor {
			return Func(func(n int) (time.Duration, error) {
				calls[s]++
				return time.Duration(m(float64(n)) * 1e9), nil
			})
		}
		d, err := New([]Side{{Name: "cpu", Exec: side(0, cpu), Model: cpu}, {Name: "gpu", Exec: side(1, Linear(rt, 0.5e-9)), Model: gpu, Floor: floor}}, prof, Config{})
		if err != nil {
			t.Fatal(err)
		}
		return d, &calls
	}
	bare, _ := build(0, Profile{})
	if s := bare.Choose(16); s != 1 {
		t.Fatalf("without a floor: n=16 goes to side %d, want the GPU (its fit's fixed cost is 1 µs)", s)
	}
	d, calls := build(rt, Profile{})
	for _, n := range []int{1, 16, 1000} {
		if p := d.est.models[1](float64(n)); p != rt {
			t.Errorf("GPU prior at n=%d: %v s, want the round trip %v s", n, p, rt)
		}
	}
	if p, want := d.est.models[1](1e6), gpu(1e6); p != want {
		t.Errorf("GPU prior at n=1e6: %v s, want the fit's %v s (above the floor)", p, want)
	}
	for i := range 8 {
		out, err := d.Do(16)
		if err != nil {
			t.Fatal(err)
		}
		if !out.Probe && out.Side != 0 {
			t.Fatalf("call %d of n=16: side %d, want the CPU (2.2 µs against the GPU's 60 µs round trip)", i, out.Side)
		}
	}
	if calls[0] == 0 {
		t.Error("no small call reached the CPU")
	}
	if s := d.Choose(1 << 20); s != 1 {
		t.Errorf("n=2^20: side %d, want the GPU (its fit, above the floor, is faster there)", s)
	}

	// The floor holds after the crossover scaling, which would otherwise
	// take the GPU's prior further down.
	sc, _ := build(rt, Profile{Crossover: 100})
	if p := sc.est.models[1](1); p != rt {
		t.Errorf("with a measured crossover: GPU prior at n=1 = %v s, want the round trip %v s", p, rt)
	}

	for _, f := range []float64{-1, math.NaN(), math.Inf(1)} {
		_, err := New([]Side{{Exec: Func(nil), Model: cpu}, {Exec: Func(nil), Model: gpu, Floor: f}}, Profile{}, Config{})
		var ce *ConfigError
		if !errors.As(err, &ce) || ce.Field != "sides[1].Floor" {
			t.Errorf("Floor %v: %v, want a ConfigError naming sides[1].Floor", f, err)
		}
	}
}
