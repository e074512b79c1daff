package compute

import (
	"encoding/binary"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/wgpu-prof/wgpu-prof/compute/wgpu"
	"github.com/wgpu-prof/wgpu-prof/timing/clock"
)

// DefaultWorkgroup is the workgroup size of every kernel runner whose
// options leave it at 0; the one place it is set.
const DefaultWorkgroup = 64

// DefaultTile is the tiled cosine-batch kernel's tile side when
// CosineBatchOptions.Tile is 0.
const DefaultTile = 32

// CheckTile checks a tile side of the tiled cosine-batch kernel against
// the device's limits (invocations and workgroup memory) on the host.
func CheckTile(d *wgpu.Device, tile int) error {
	_, err := checkTile(d, tile, 0)
	return err
}

// Timing is what one run of a kernel runner measured.
type Timing struct {
	// Kernel is the GPU time of the run's passes, from timestamp queries
	// (summed over passes). Zero with KernelValid false when the run had no
	// timer or the timestamps were not plausible.
	Kernel      time.Duration
	KernelValid bool
	Passes      []wgpu.PassTime
	// EndToEnd is the host clock around what an application pays per call:
	// upload of the per-call inputs, dispatch, wait and readback. Stored
	// data (V, the graph) is resident on the GPU and not part of it.
	EndToEnd time.Duration
}

func timingFrom(passes []wgpu.PassTime, start time.Time) Timing {
	t := Timing{EndToEnd: clock.Since(start), Passes: passes}
	if len(passes) > 0 {
		t.KernelValid = true
		for _, p := range passes {
			if !p.Valid {
				t.KernelValid = false
			}
			t.Kernel += p.Duration
		}
		if !t.KernelValid {
			t.Kernel = 0
		}
	}
	return t
}

// grid2D spreads n workgroups over x and y so that neither exceeds max.
func grid2D(n, max uint32) (x, y uint32) {
	if n <= max {
		return n, 1
	}
	y = (n + max - 1) / max
	x = (n + y - 1) / y
	return x, y
}

// checkRows validates stored vectors V of N rows of dim floats,
// row-major: dim a positive multiple of 4 (the shaders load vec4s) and
// len(V) a positive multiple of dim.
func checkRows(v []float32, dim int) error {
	if dim <= 0 || dim%4 != 0 {
		return fmt.Errorf("dimension %d: must be a positive multiple of 4 (vec4 loads)", dim)
	}
	if len(v) == 0 || len(v)%dim != 0 {
		return fmt.Errorf("len(V) = %d is not a positive multiple of dimension %d", len(v), dim)
	}
	return nil
}

// checkFinite returns an error naming the first NaN or Inf in s.
func checkFinite(what string, s []float32) error {
	for i, x := range s {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return fmt.Errorf("%s[%d] = %v: inputs must be finite", what, i, x)
		}
	}
	return nil
}

// uniformStride is the spacing of per-chunk parameter blocks in one
// uniform buffer (WebGPU's minimum uniform offset alignment is at most 256).
const uniformStride = 256

// chunkRows is how many rows of rowBytes fit one storage binding (and one
// buffer: maxBufferSize bounds a chunk's buffer too), rounded down to a
// multiple of 64 so per-chunk output offsets stay aligned.
func chunkRows(d *wgpu.Device, rowBytes uint64) (uint64, error) {
	lim := min(d.Limits.MaxStorageBufferBindingSize, d.Limits.MaxBufferSize)
	r := lim / rowBytes
	r -= r % 64
	if r == 0 {
		return 0, fmt.Errorf("64 rows of %d bytes do not fit maxStorageBufferBindingSize %d and maxBufferSize %d: %w", rowBytes, d.Limits.MaxStorageBufferBindingSize, d.Limits.MaxBufferSize, wgpu.ErrLimit)
	}
	return r, nil
}

// releaseAll releases every non-nil object.
func releaseAll[T interface{ Release() }](xs []T) {
	for _, x := range xs {
		x.Release()
	}
}

// chunkParams is a uniform buffer of parameter blocks, one per chunk of a
// runner's stored data (or per dispatch), block i at i·uniformStride and
// bound at binding 0 of that chunk's dispatch. A block is a run of
// little-endian 32-bit words kept in a host copy: set, setWord and setAll
// change the copy, flush writes every block in one queue write. Runners
// build their blocks only through it (TestChunkParamsLayout).
type chunkParams struct {
	buf        *wgpu.Buffer
	host       []byte
	blockBytes uint64
}

// newChunkParams creates blocks blocks of words words each; a block must
// fit in uniformStride bytes.
func newChunkParams(d *wgpu.Device, label string, blocks, words int) (*chunkParams, error) {
	if blocks < 1 || words < 1 || 4*words > uniformStride {
		return nil, fmt.Errorf("%s: %d blocks of %d words: want ≥ 1 block of 1..%d words", label, blocks, words, uniformStride/4)
	}
	buf, err := d.CreateBuffer(label, uint64(uniformStride*blocks), wgpu.UsageUniform|wgpu.UsageCopyDst)
	if err != nil {
		return nil, err
	}
	return &chunkParams{buf: buf, host: make([]byte, uniformStride*(blocks-1)+4*words), blockBytes: uint64(4 * words)}, nil
}

// blocks is how many parameter blocks p holds.
func (p *chunkParams) blocks() int { return (len(p.host)-int(p.blockBytes))/uniformStride + 1 }

// binding binds block i at binding 0.
func (p *chunkParams) binding(i int) wgpu.BufferBinding {
	return wgpu.BufferBinding{Binding: 0, Buffer: p.buf, Offset: uint64(i * uniformStride), Size: p.blockBytes}
}

// set writes words into block i from its first word on.
func (p *chunkParams) set(i int, words ...uint32) {
	for w, v := range words {
		p.setWord(i, w, v)
	}
}

// setWord sets word w of block i.
func (p *chunkParams) setWord(i, w int, v uint32) {
	binary.LittleEndian.PutUint32(p.host[i*uniformStride+4*w:], v)
}

// setAll sets word w of every block.
func (p *chunkParams) setAll(w int, v uint32) {
	for i := range p.blocks() {
		p.setWord(i, w, v)
	}
}

// flush writes the host copy of every block to the GPU in one write.
func (p *chunkParams) flush(d *wgpu.Device) error { return d.Write(p.buf, 0, p.host) }

// Release frees the buffer; idempotent and safe on nil.
func (p *chunkParams) Release() {
	if p == nil {
		return
	}
	p.buf.Release()
	p.buf = nil
}

// checkDevice refuses a nil device before any of its fields is read.
func checkDevice(op string, d *wgpu.Device) error {
	if d == nil {
		return fmt.Errorf("%s: nil device: %w", op, wgpu.ErrReleased)
	}
	return nil
}

// runnerGuard is the state every runner shares: the lock that serialises
// its calls (they share its GPU buffers) and the flag its Release sets.
// A runner embeds it and implements free; lockLive is then the preamble
// of each of its methods that uses GPU objects and releaseRunner its
// Release, so that every runner refuses a nil or released receiver the
// same way (TestNilDeviceAndRunners, TestRunAfterReleaseIsAnError).
type runnerGuard struct {
	mu       sync.Mutex
	released bool
}

func (g *runnerGuard) guard() *runnerGuard { return g }

// guarded is a pointer to a runner that embeds runnerGuard; free releases
// its GPU objects and is called once, under its lock.
type guarded[T any] interface {
	*T
	guard() *runnerGuard
	free()
}

// lockLive refuses a nil or released runner with op's error wrapping
// wgpu.ErrReleased; otherwise it returns with the runner locked and the
// caller defers the returned unlock.
func lockLive[T any, R guarded[T]](op string, r R) (unlock func(), err error) {
	if r == nil {
		return nil, fmt.Errorf("%s: %w", op, wgpu.ErrReleased)
	}
	g := r.guard()
	g.mu.Lock()
	if g.released {
		g.mu.Unlock()
		return nil, fmt.Errorf("%s: %w", op, wgpu.ErrReleased)
	}
	return g.mu.Unlock, nil
}

// releaseRunner is every runner's Release: safe on nil and idempotent; it
// frees the GPU objects once, under the runner's lock, after which the
// runner's methods fail with wgpu.ErrReleased.
func releaseRunner[T any, R guarded[T]](r R) {
	if r == nil {
		return
	}
	g := r.guard()
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.released {
		return
	}
	g.released = true
	r.free()
}
