package dispatch

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// The ring's sorted copy always holds exactly its last values, sorted.
func TestRingSortedCopy(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var w ring
	var all []float32
	for i := 0; i < 500; i++ {
		x := float32(r.IntN(7)) // repeats on purpose
		if i%50 == 49 {
			w.scale(1.5)
			for j := range all {
				all[j] = float32(float64(all[j]) * 1.5)
			}
		}
		w.add(float64(x))
		all = append(all, x)
		last := append([]float32(nil), all[max(0, len(all)-ringSize):]...)
		slices.Sort(last)
		if !slices.Equal(last, w.s[:w.n]) {
			t.Fatalf("after %d adds: sorted copy %v, want %v", i+1, w.s[:w.n], last)
		}
	}
}

// The shock windows' bit registers agree with their ratios.
func TestWindowTests(t *testing.T) {
	var w window
	for i, r := range []float64{1, 2, 2, 2, 2, 2, 2, 1, 2} { // 7 of 9 slower than 1.6
		w.addSlow(r, r > 1.6)
		if ok, _ := w.slowDown(); ok != (i == 8) {
			t.Fatalf("after %d calls: slow-down %v", i+1, ok)
		}
	}
	if _, med := w.slowDown(); med != 2 {
		t.Errorf("median %v, want 2", med)
	}
	w = window{}
	for i, r := range []float64{0.5, 1, 0.4, 0.3} { // 3 of 4 faster than 1/1.6
		w.addFast(r, r < 1/1.6)
		if ok, _ := w.recovery(); ok != (i == 3) {
			t.Fatalf("after %d calls: recovery %v", i+1, ok)
		}
	}
	if _, med := w.recovery(); med != 0.5 {
		t.Errorf("third smallest %v, want 0.5", med)
	}
}
