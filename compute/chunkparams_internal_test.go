package compute

import (
	"encoding/binary"
	"testing"

	"github.com/wgpu-prof/wgpu-prof/internal/gputest"
)

// Blocks sit at i·uniformStride, words little-endian from the block's
// start; binding i names that block and its size; setAll reaches every
// block and flush accepts the whole host copy.
func TestChunkParamsLayout(t *testing.T) {
	d := gputest.Open(t)
	p, err := newChunkParams(d, "test params", 3, 8)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Release()
	if p.blocks() != 3 {
		t.Fatalf("blocks() = %d, want 3", p.blocks())
	}
	p.set(1, 10, 11, 12)
	p.setAll(7, 99)
	p.setWord(2, 0, 5)
	word := func(i, w int) uint32 { return binary.LittleEndian.Uint32(p.host[i*uniformStride+4*w:]) }
	for _, c := range []struct {
		i, w int
		want uint32
	}{{1, 0, 10}, {1, 1, 11}, {1, 2, 12}, {0, 7, 99}, {1, 7, 99}, {2, 7, 99}, {2, 0, 5}, {0, 0, 0}} {
		if got := word(c.i, c.w); got != c.want {
			t.Errorf("block %d word %d = %d, want %d", c.i, c.w, got, c.want)
		}
	}
	if b := p.binding(2); b.Binding != 0 || b.Offset != 2*uniformStride || b.Size != 32 || b.Buffer != p.buf {
		t.Errorf("binding(2) = %+v", b)
	}
	if len(p.host) != 2*uniformStride+32 {
		t.Errorf("host copy %d bytes, want %d", len(p.host), 2*uniformStride+32)
	}
	if err := p.flush(d); err != nil {
		t.Fatal(err)
	}
	for _, bad := range [][2]int{{0, 4}, {2, 0}, {1, uniformStride/4 + 1}} {
		if q, err := newChunkParams(d, "bad", bad[0], bad[1]); err == nil {
			q.Release()
			t.Errorf("newChunkParams(%d blocks, %d words) accepted", bad[0], bad[1])
		}
	}
	p.Release()
	p.Release()
}
