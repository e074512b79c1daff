package dispatch

import "testing"

// The slow-down test counts nine calls: an empty window declares nothing
// before its ninth call, however slow the first eight, and declares on the
// ninth; a full window of calls on their estimates declares on the
// seventh slow call (all but two of the last nine), not the sixth, and
// rescales by the median of the nine.
func TestWindowCountsNineCalls(t *testing.T) {
	var w window
	for i := 1; i <= 9; i++ {
		w.addSlow(3, true)
		ok, med := w.slowDown()
		if want := i == 9; ok != want {
			t.Fatalf("empty window, slow call %d: slow-down %v, want %v", i, ok, want)
		}
		if ok && med != 3 {
			t.Errorf("median %v, want 3", med)
		}
	}
	w = window{}
	for range 20 {
		w.addSlow(1, false)
	}
	for i := 1; i <= 7; i++ {
		w.addSlow(2+float64(i), true)
		ok, med := w.slowDown()
		if want := i == 7; ok != want {
			t.Fatalf("full window, slow call %d: slow-down %v, want %v", i, ok, want)
		}
		// Ratios 1, 1, 3 … 9: the fifth of nine is 5.
		if ok && med != 5 {
			t.Errorf("median %v, want 5", med)
		}
	}
}
