package compute

import "testing"

// dot4Chain on hand-checked words: bytes are two's complement, low first.
func TestDot4Chain(t *testing.T) {
	for _, c := range []struct {
		w    uint32
		dots int
		want uint32
	}{
		{0x01020301, 0, 0x01020301},
		{0x01020301, 1, 15},            // 1 + 9 + 4 + 1
		{0x01020301, 2, 15},            // 15·1 + 0·3 + 0·2 + 0·1
		{0x000000ff, 1, 1},             // (−1)·(−1)
		{0x80808080, 1, 4 * 128 * 128}, // 4·(−128)²
		{0x0000fe01, 1, 5},             // 1·1 + (−2)·(−2)
		{0x0000fe01, 2, 5},             // 5·1 + 0·(−2)
	} {
		if got := dot4Chain(c.w, c.dots); got != c.want {
			t.Errorf("dot4Chain(%#x, %d) = %#x, want %#x", c.w, c.dots, got, c.want)
		}
	}
}
