package dispatch

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// The ring's sorted copy always holds exactly its last values, sorted.
func TestRingSortedCopy(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, c := range []int{1, 4, 9, 0} {
		w := ring{cap: c}
		var all []float64
		for i := 0; i < 500; i++ {
			x := float64(r.IntN(7)) // repeats on purpose
			if i%50 == 49 {
				w.scale(1.5)
				for j := range all {
					all[j] *= 1.5
				}
			}
			w.add(x)
			all = append(all, x)
			k := w.size()
			last := append([]float64(nil), all[max(0, len(all)-k):]...)
			slices.Sort(last)
			if !slices.Equal(last, w.s[:w.n]) {
				t.Fatalf("cap %d after %d adds: sorted copy %v, want %v", c, i+1, w.s[:w.n], last)
			}
		}
	}
}
