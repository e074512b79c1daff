package compute

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/wgpu-prof/wgpu-prof/compute/wgpu"
	"github.com/wgpu-prof/wgpu-prof/hostsimd"

	"github.com/wgpu-prof/wgpu-prof/timing/clock"
	"github.com/wgpu-prof/wgpu-prof/wgsl"
)

// ErrVerify is wrapped by the error of a kernel whose output did not match
// the host's reference: the measurement that produced it must not be used.
// It is hostsimd.ErrVerify, so one errors.Is finds a failed check on either
// side.
var ErrVerify = hostsimd.ErrVerify

// CeilingOptions configures MeasureCeilings.
type CeilingOptions struct {
	// Bytes is the size of each buffer the bandwidth kernels stream
	// (0: min(256 MiB, maxStorageBufferBindingSize)). Rounded down to a
	// multiple of 16 (vec4).
	Bytes uint64
	// Runs is how many times each kernel runs (0: 7). The first run is a
	// warm-up and is excluded; the best of the others is kept
	// (STREAM-style). Values below 2 are raised to 2.
	Runs int
	// Workgroup is the number of threads per workgroup (a power of two;
	// 0: 256).
	Workgroup int
	// Intensities are the FMA chain's arithmetic intensities in flop/byte
	// (0: 0.25, 1, 4, 16, 64, 256). Each is rounded to a multiple of 0.25
	// (whole vec4 FMA steps per element).
	Intensities []float64
	// Stop, when set, is polled before each kernel is built and before
	// each run: once it returns true MeasureCeilings returns an error
	// wrapping ErrStopped.
	Stop func() bool
}

// ErrStopped is wrapped by the error of a measurement its Stop function
// ended; it is hostsimd.ErrStopped.
var ErrStopped = hostsimd.ErrStopped

// CeilingDesign is one design tried for a ceiling and its rate.
type CeilingDesign struct {
	Name string
	GBs  float64
}

// CeilingFailure is a ceiling design left out because its output failed
// verification: its kind (read, write, copy, fma), name and the check's
// error.
type CeilingFailure struct {
	Kind, Name string
	Err        error
}

// FailedLines are warnings naming each design in Failed, one line each.
func (c Ceilings) FailedLines() []string {
	var out []string
	for _, f := range c.Failed {
		out = append(out, fmt.Sprintf("gpu %s ceiling: design %s failed verification and was left out: %v", f.Kind, f.Name, f.Err))
	}
	return out
}

// FMAPoint is one point of the empirical roofline.
type FMAPoint struct {
	// Intensity is flops per byte moved (read + written).
	Intensity float64
	GFLOPs    float64
	GBs       float64
}

// Ceilings are the measured limits of a device: the bandwidth of
// read-only, write-only and copy kernels and the arithmetic rate of FMA
// chains over a range of intensities. Every number comes from a run whose
// output was verified against the host.
type Ceilings struct {
	ReadGBs, WriteGBs, CopyGBs float64 // 1 GB = 1e9 bytes; copy counts read + written
	FMA                        []FMAPoint
	PeakGFLOPs                 float64 // max over FMA
	Bytes                      uint64  // buffer size streamed by read, fill and copy
	Workgroup                  int
	// ReadDesign names the read kernel design that set ReadGBs, the
	// fastest of ReadTried (each verified): a ceiling is the best this
	// adapter does, not what one design does.
	ReadDesign string
	ReadTried  []CeilingDesign
	// WriteDesign and CopyDesign name the designs that set WriteGBs and
	// CopyGBs, the best of WriteTried and CopyTried.
	WriteDesign, CopyDesign string
	WriteTried, CopyTried   []CeilingDesign
	// FMADesign names the FMA chain that set PeakGFLOPs, the fastest of
	// FMATried (each verified; CeilingDesign.GBs holds its GFLOP/s): the
	// plain fma() chain at every intensity, the other designs
	// (x*a+b, four interleaved elements) at the highest.
	FMADesign string
	FMATried  []CeilingDesign
	// Failed are the designs whose output failed verification, left out
	// of every ceiling above; a kind with no verified design is an error
	// of MeasureCeilings instead.
	Failed []CeilingFailure
	// Timed is "timestamps" when every number is GPU kernel time from
	// timestamp queries, "host clock" when timestamps were unavailable or
	// implausible for any kernel (then every number is host time around
	// submit and wait).
	Timed string
}

const (
	timedTimestamps = "timestamps"
	timedHost       = "host clock"
	eps32           = 1.0 / (1 << 23)
	// FMA chain coefficients: x ← x·a + b keeps |x| ≤ 1 for x₀ in [-1, 1)
	// and rounds at every step (a is not a power of two).
	fmaA = float32(1 - 1.0/1024 - 1.0/(1<<20))
	fmaB = float32(1.0 / 1024)
)

// microKernel is one ceiling kernel ready to run: a single timed pass,
// with hooks to poison outputs before a run and verify them after.
type microKernel struct {
	name    string
	pass    wgpu.Pass
	bytes   float64 // moved per run
	flops   float64 // per run
	prepare func(run int) error
	verify  func(run int) error
}

// runTimes is what repeated runs of a kernel measured, warm-up excluded.
type runTimes struct {
	host, kernel time.Duration // best of runs
	kernelValid  bool
	failed       error // the design's output failed verification: left out
}

// ceilingBench holds the buffers shared by the micro-kernels.
type ceilingBench struct {
	d       *wgpu.Device
	stop    func() bool // polled before each pipeline and run (nil: never)
	wg      int
	n4      uint64 // vec4 elements in src and dst
	srcHost []float32
	absSum  float64 // Σ|src|
	sum     float64 // Σ src
	src     *wgpu.Buffer
	dst     *wgpu.Buffer
	partial *wgpu.Buffer
	extra   []*wgpu.Buffer // partial sums of the other read designs
	params  *chunkParams
	groups  []*wgpu.BindGroup
}

func (b *ceilingBench) release() {
	if b == nil {
		return
	}
	releaseAll(b.groups)
	b.src.Release()
	b.dst.Release()
	b.partial.Release()
	releaseAll(b.extra)
	b.extra = nil
	b.params.Release()
	b.groups = nil
}

// MeasureCeilings measures the device's bandwidth and arithmetic ceilings
// with micro-kernels over buffers of opts.Bytes. Every run's output is
// checked (sum within a rounding bound, samples of written data exact or
// within the FMA chain's rounding bound); a failed check fails the whole
// measurement with ErrVerify.
func MeasureCeilings(d *wgpu.Device, opts CeilingOptions) (Ceilings, error) {
	const op = "compute: MeasureCeilings"
	if err := checkDevice(op, d); err != nil {
		return Ceilings{}, err
	}
	wg, err := ceilingDefaults(d, &opts)
	if err != nil {
		return Ceilings{}, fmt.Errorf("%s: %w", op, err)
	}
	b, err := newCeilingBench(d, opts.Bytes, wg)
	if err != nil {
		return Ceilings{}, fmt.Errorf("%s: %w", op, err)
	}
	defer b.release()
	b.stop = opts.Stop
	var timer *wgpu.Timer
	if d.HasTimestamps() {
		if timer, err = d.NewTimer(1); err != nil {
			return Ceilings{}, fmt.Errorf("%s: %w", op, err)
		}
		defer timer.Release()
	}
	ks, err := b.ceilingKernels(opts.Intensities)
	if err != nil {
		return Ceilings{}, fmt.Errorf("%s: %w", op, err)
	}
	times := make([]runTimes, len(ks.all))
	allKernel := timer != nil
	for i, k := range ks.all {
		if opts.Stop != nil && opts.Stop() {
			return Ceilings{}, fmt.Errorf("%s: %w", op, ErrStopped)
		}
		times[i], err = b.measure(k, opts.Runs, timer)
		if errors.Is(err, ErrVerify) {
			// A design whose output is wrong sets no ceiling; the
			// verified designs of its kind still do, and Failed names it.
			times[i].failed = err
			continue
		}
		if err != nil {
			return Ceilings{}, fmt.Errorf("%s: %w", op, err)
		}
		allKernel = allKernel && times[i].kernelValid
	}
	c, err := ks.ceilings(times, allKernel, opts.Bytes, wg)
	if err != nil {
		return Ceilings{}, fmt.Errorf("%s: %w", op, err)
	}
	return c, nil
}

// ceilingDefaults fills opts' defaults, checks it against d's limits and
// returns the checked workgroup size.
func ceilingDefaults(d *wgpu.Device, opts *CeilingOptions) (int, error) {
	if opts.Bytes == 0 {
		opts.Bytes = min(256<<20, d.Limits.MaxStorageBufferBindingSize, d.Limits.MaxBufferSize)
	}
	opts.Bytes &^= 15
	if opts.Bytes < 4096 {
		return 0, fmt.Errorf("Bytes %d: need at least 4096", opts.Bytes)
	}
	if opts.Bytes > d.Limits.MaxStorageBufferBindingSize {
		return 0, fmt.Errorf("Bytes %d > maxStorageBufferBindingSize %d: %w", opts.Bytes, d.Limits.MaxStorageBufferBindingSize, wgpu.ErrLimit)
	}
	if opts.Runs == 0 {
		opts.Runs = 7
	}
	opts.Runs = max(opts.Runs, 2)
	if opts.Workgroup == 0 {
		opts.Workgroup = 256
	}
	wg, err := validWorkgroup(d, opts.Workgroup)
	if err != nil {
		return 0, err
	}
	if opts.Intensities == nil {
		opts.Intensities = []float64{0.25, 1, 4, 16, 64, 256}
	}
	for _, x := range opts.Intensities {
		if !(x >= 0.25 && x <= 1<<20) {
			return 0, fmt.Errorf("intensity %v flop/byte: must be in [0.25, 2^20]", x)
		}
	}
	return wg, nil
}

// ceilingSet is every kernel MeasureCeilings times, in order: read, fill
// and copy, the FMA kernels at each intensity (up to nbase), the other
// read designs (to nreads), write designs (to nwrites), copy designs (to
// ncopies) and the other FMA designs at the top intensity (to the end).
type ceilingSet struct {
	all                             []*microKernel
	nbase, nreads, nwrites, ncopies int
}

// ceilingChunkDesigns are the (workgroup, chunk) designs tried for fill
// and copy.
var ceilingChunkDesigns = []struct {
	wg    int
	chunk uint64
}{{64, 256}, {256, 64}, {64, 1024}}

func (b *ceilingBench) ceilingKernels(intensities []float64) (ceilingSet, error) {
	kernels := make([]*microKernel, 0, 3+len(intensities))
	for _, mk := range []func() (*microKernel, error){b.readKernel, b.fillKernel, b.copyKernel} {
		k, err := mk()
		if err != nil {
			return ceilingSet{}, err
		}
		kernels = append(kernels, k)
	}
	reads, err := b.readDesigns()
	if err != nil {
		return ceilingSet{}, err
	}
	var writes, copies []*microKernel
	for _, x := range ceilingChunkDesigns {
		w, err := b.chunkDesign(kernels[1], "micro_fill", []wgpu.BufferBinding{b.params.binding(0), {Binding: 1, Buffer: b.dst}}, x.wg, x.chunk)
		if err != nil {
			return ceilingSet{}, err
		}
		c, err := b.chunkDesign(kernels[2], "micro_copy", []wgpu.BufferBinding{{Binding: 0, Buffer: b.src}, {Binding: 1, Buffer: b.dst}}, x.wg, x.chunk)
		if err != nil {
			return ceilingSet{}, err
		}
		if w != nil {
			writes = append(writes, w)
		}
		if c != nil {
			copies = append(copies, c)
		}
	}
	for _, x := range intensities {
		k, err := b.fmaKernel(max(1, int(math.Round(4*x))), fmaDesigns[0])
		if err != nil {
			return ceilingSet{}, err
		}
		kernels = append(kernels, k)
	}
	// The other designs at the highest intensity, where the peak is.
	top := slices.Max(intensities)
	var fmaAlt []*microKernel
	for _, d := range fmaDesigns[1:] {
		k, err := b.fmaKernel(max(1, int(math.Round(4*top))), d)
		if err != nil {
			return ceilingSet{}, err
		}
		fmaAlt = append(fmaAlt, k)
	}
	var s ceilingSet
	s.nbase = len(kernels)
	kernels = append(kernels, reads...)
	s.nreads = len(kernels)
	kernels = append(kernels, writes...)
	s.nwrites = len(kernels)
	kernels = append(kernels, copies...)
	s.ncopies = len(kernels)
	s.all = append(kernels, fmaAlt...)
	return s, nil
}

// ceilings turns the kernels' times into rates (the kernel clock when
// every kernel had valid timestamps, else the host clock) and picks the
// best design of each ceiling.
func (s ceilingSet) ceilings(times []runTimes, allKernel bool, bytes uint64, wg int) (Ceilings, error) {
	kernels := s.all
	c := Ceilings{Bytes: bytes, Workgroup: wg, Timed: timedHost}
	if allKernel {
		c.Timed = timedTimestamps
	}
	rate := func(i int, amount float64) float64 {
		t := times[i].host
		if allKernel {
			t = times[i].kernel
		}
		return amount / t.Seconds() / 1e9
	}
	fail := func(kind string, i int) {
		c.Failed = append(c.Failed, CeilingFailure{Kind: kind, Name: kernels[i].name, Err: times[i].failed})
	}
	// best is the fastest verified design of base and from..to.
	best := func(kind string, base, from, to int) (float64, string, []CeilingDesign, error) {
		var r float64
		var name string
		var tried []CeilingDesign
		var first error
		for _, i := range append([]int{base}, seq(from, to)...) {
			if times[i].failed != nil {
				fail(kind, i)
				first = cmp.Or(first, times[i].failed)
				continue
			}
			x := rate(i, kernels[i].bytes)
			tried = append(tried, CeilingDesign{kernels[i].name, x})
			if name == "" || x > r {
				r, name = x, kernels[i].name
			}
		}
		if name == "" {
			return 0, "", nil, fmt.Errorf("no %s design passed verification (%d tried), the first: %w", kind, 1+to-from, first)
		}
		return r, name, tried, nil
	}
	var err error
	if c.ReadGBs, c.ReadDesign, c.ReadTried, err = best("read", 0, s.nbase, s.nreads); err != nil {
		return Ceilings{}, err
	}
	if c.WriteGBs, c.WriteDesign, c.WriteTried, err = best("write", 1, s.nreads, s.nwrites); err != nil {
		return Ceilings{}, err
	}
	if c.CopyGBs, c.CopyDesign, c.CopyTried, err = best("copy", 2, s.nwrites, s.ncopies); err != nil {
		return Ceilings{}, err
	}
	if err := s.fmaCeilings(&c, times, rate, fail); err != nil {
		return Ceilings{}, err
	}
	return c, nil
}

// fmaCeilings fills c's FMA points, tried designs and peak from the
// verified FMA kernels: the plain chain at each intensity, then the other
// designs at the top intensity raising its point where faster.
func (s ceilingSet) fmaCeilings(c *Ceilings, times []runTimes, rate func(int, float64) float64, fail func(string, int)) error {
	kernels := s.all
	var first error
	for i := 3; i < s.nbase; i++ {
		k := kernels[i]
		if times[i].failed != nil {
			fail("fma", i)
			first = cmp.Or(first, times[i].failed)
			continue
		}
		p := FMAPoint{Intensity: k.flops / k.bytes, GFLOPs: rate(i, k.flops), GBs: rate(i, k.bytes)}
		c.FMA = append(c.FMA, p)
		c.FMATried = append(c.FMATried, CeilingDesign{k.name, p.GFLOPs})
	}
	for i := s.ncopies; i < len(kernels); i++ {
		k := kernels[i]
		if times[i].failed != nil {
			fail("fma", i)
			first = cmp.Or(first, times[i].failed)
			continue
		}
		g := rate(i, k.flops)
		c.FMATried = append(c.FMATried, CeilingDesign{k.name, g})
		for j := range c.FMA {
			if c.FMA[j].Intensity == k.flops/k.bytes && g > c.FMA[j].GFLOPs {
				c.FMA[j].GFLOPs, c.FMA[j].GBs = g, rate(i, k.bytes)
			}
		}
	}
	if len(c.FMATried) == 0 {
		return fmt.Errorf("no fma design passed verification, the first: %w", first)
	}
	for _, d := range c.FMATried {
		if d.GBs > c.PeakGFLOPs {
			c.PeakGFLOPs, c.FMADesign = d.GBs, d.Name
		}
	}
	return nil
}

// seq is from, from+1, …, to-1.
func seq(from, to int) []int {
	out := make([]int, 0, max(0, to-from))
	for i := from; i < to; i++ {
		out = append(out, i)
	}
	return out
}

func newCeilingBench(d *wgpu.Device, bytes uint64, wg int) (*ceilingBench, error) {
	b := &ceilingBench{d: d, wg: wg, n4: bytes / 16}
	ok := false
	defer func() {
		if !ok {
			b.release()
		}
	}()
	// Random data in [-1, 1): never time on zeros.
	r := rand.New(rand.NewPCG(0x5eed, bytes))
	b.srcHost = make([]float32, 4*b.n4)
	for i := range b.srcHost {
		x := float32(r.Uint32()>>8)*(1.0/(1<<23)) - 1
		b.srcHost[i] = x
		b.sum += float64(x)
		b.absSum += math.Abs(float64(x))
	}
	var err error
	if b.src, err = d.CreateBuffer("ceiling src", bytes, wgpu.UsageStorage|wgpu.UsageCopyDst|wgpu.UsageCopySrc); err != nil {
		return nil, err
	}
	if err = d.Write(b.src, 0, wgpu.Bytes(b.srcHost)); err != nil {
		return nil, err
	}
	if b.dst, err = d.CreateBuffer("ceiling dst", bytes, wgpu.UsageStorage|wgpu.UsageCopyDst|wgpu.UsageCopySrc); err != nil {
		return nil, err
	}
	// Block 0: the fill kernel's seed, set per run; block 1: the FMA constants.
	if b.params, err = newChunkParams(d, "ceiling params", 2, 4); err != nil {
		return nil, err
	}
	b.params.set(1, math.Float32bits(fmaA), math.Float32bits(fmaB))
	if err = b.params.flush(d); err != nil {
		return nil, err
	}
	ok = true
	return b, nil
}

// repReadBytes is how much a read design over a small buffer reads per
// dispatch (main_chunk_rep: the buffer, repeatedly).
const repReadBytes = 64 << 20

// streamGroups is the 1-D grid for a grid-stride kernel over n4 vec4s with
// about perThread elements per invocation.
func (b *ceilingBench) streamGroups(n4 uint64, perThread uint64) uint32 {
	g := (n4 + uint64(b.wg)*perThread - 1) / (uint64(b.wg) * perThread)
	return uint32(max(1, min(g, uint64(b.d.Limits.MaxComputeWorkgroupsPerDimension))))
}

func (b *ceilingBench) pipeline(name string, consts wgpu.Constants) (*wgpu.Pipeline, error) {
	return b.pipelineAt(name, "main", consts)
}

// pipelineAt is pipeline with another entry point of the module.
func (b *ceilingBench) pipelineAt(name, entry string, consts wgpu.Constants) (*wgpu.Pipeline, error) {
	if b.stopped() {
		return nil, ErrStopped
	}
	consts["WG"] = float64(b.wg)
	return b.d.Pipeline(name, wgsl.MustSource(name), entry, consts)
}

func (b *ceilingBench) bind(p *wgpu.Pipeline, bindings []wgpu.BufferBinding) (*wgpu.BindGroup, error) {
	bg, err := b.d.CreateBindGroup(p, 0, bindings)
	if err != nil {
		return nil, err
	}
	b.groups = append(b.groups, bg)
	return bg, nil
}

// sampleStarts returns the first vec4 index of count blocks of blk vec4s
// spread evenly over n4 vec4s, the first and the last block included.
func sampleStarts(n4, blk uint64, count int) []uint64 {
	if n4 <= blk*uint64(count) {
		var out []uint64
		for s := uint64(0); s < n4; s += blk {
			out = append(out, s)
		}
		return out
	}
	out := make([]uint64, count)
	last := n4 - blk
	for i := range out {
		out[i] = last * uint64(i) / uint64(count-1)
	}
	return out
}

var nanBits = math.Float32frombits(0x7fc00bad)

// poison writes NaN over the sampled blocks of buf.
func (b *ceilingBench) poison(buf *wgpu.Buffer, starts []uint64, blk, n4 uint64) error {
	nan := make([]float32, 4*blk)
	for i := range nan {
		nan[i] = nanBits
	}
	for _, s := range starts {
		n := min(blk, n4-s)
		if err := b.d.Write(buf, 16*s, wgpu.Bytes(nan[:4*n])); err != nil {
			return err
		}
	}
	return nil
}

// readSamples reads the sampled blocks of buf back, calling check for
// every element (vec4 index i, lane l).
func (b *ceilingBench) readSamples(buf *wgpu.Buffer, starts []uint64, blk, n4 uint64, check func(i uint64, got [4]float32) error) error {
	tmp := make([]float32, 4*blk)
	for _, s := range starts {
		n := min(blk, n4-s)
		if err := b.d.Read(buf, 16*s, wgpu.Bytes(tmp[:4*n])); err != nil {
			return err
		}
		for j := uint64(0); j < n; j++ {
			if err := check(s+j, [4]float32(tmp[4*j:4*j+4])); err != nil {
				return err
			}
		}
	}
	return nil
}

func (b *ceilingBench) readKernel() (*microKernel, error) {
	p, err := b.pipeline("micro_read", wgpu.Constants{})
	if err != nil {
		return nil, err
	}
	// More elements per invocation than the other kernels: each workgroup
	// ends in log2(WG) barriers, which CPU drivers (lavapipe) pay dearly.
	groups := b.streamGroups(b.n4, 32)
	if b.partial, err = b.d.CreateBuffer("ceiling partial sums", 4*uint64(groups), wgpu.UsageStorage|wgpu.UsageCopyDst|wgpu.UsageCopySrc); err != nil {
		return nil, err
	}
	bg, err := b.bind(p, []wgpu.BufferBinding{{Binding: 0, Buffer: b.src}, {Binding: 1, Buffer: b.partial}})
	if err != nil {
		return nil, err
	}
	nan := make([]float32, groups)
	for i := range nan {
		nan[i] = nanBits
	}
	got := make([]float32, groups)
	threads := uint64(groups) * uint64(b.wg)
	// Each lane adds ⌈n4/threads⌉ values, then log2(WG)+2 additions combine
	// lanes and threads; the host adds the partials in float64.
	depth := int((b.n4+threads-1)/threads) + bits.Len(uint(b.wg)) + 2
	return &microKernel{
		name:  fmt.Sprintf("grid-stride+tree wg%d", b.wg),
		pass:  wgpu.Pass{Label: "micro_read", Dispatches: []wgpu.Dispatch{{Pipeline: p, BindGroups: []*wgpu.BindGroup{bg}, X: groups, Y: 1, Z: 1}}},
		bytes: float64(16 * b.n4),
		prepare: func(int) error {
			return b.d.Write(b.partial, 0, wgpu.Bytes(nan))
		},
		verify: func(int) error {
			if err := b.d.Read(b.partial, 0, wgpu.Bytes(got)); err != nil {
				return err
			}
			return checkSum("micro_read", got, b.sum, b.absSum, depth)
		},
	}, nil
}

// readDesigns are the other designs of the read ceiling (wgsl/micro_read.wgsl
// main_chunk, main_stride) at several workgroup sizes; those the adapter
// refuses (workgroup size, grid, loop budget) are left out.
func (b *ceilingBench) readDesigns() ([]*microKernel, error) {
	designs := slices.Clone(readDesignTable)
	// A buffer much smaller than repReadBytes (a cache-level working set)
	// is also read repeatedly within one dispatch: read once, the
	// dispatch's own start-up dominates and the "ceiling" comes out below
	// the DRAM one (docs/METHOD.md, "Ceilings").
	// Only for buffers of at most a quarter of it: a DRAM-sized buffer
	// read twice would be partly served from the cache.
	reps := (repReadBytes + 16*b.n4 - 1) / (16 * b.n4)
	if reps >= 4 {
		designs = append(designs, readDesignRep...)
	}
	var out []*microKernel
	for _, x := range designs {
		if b.d.CheckWorkgroup(x.wg) != nil {
			continue
		}
		s := b.readShape(x, reps)
		if s.groups > uint64(b.d.Limits.MaxComputeWorkgroupsPerDimension) || wgpu.CheckLoopBudget(b.d, s.perLane+1, s.name) != nil {
			continue
		}
		k, err := b.readDesignKernel(x, s, reps)
		if err != nil {
			return nil, err
		}
		out = append(out, k)
	}
	return out, nil
}

// readDesign is one read kernel design of wgsl/micro_read.
type readDesign struct {
	entry     string
	wg        int
	chunk     uint64 // main_chunk: vec4s per invocation
	perThread uint64 // main_stride: about this many per invocation
}

// readDesignTable are the read designs tried on every buffer size;
// readDesignRep those tried where the buffer is small enough to be read
// repeatedly within one dispatch.
var (
	readDesignTable = []readDesign{
		{"main", 64, 0, 32},
		{"main_stride", 64, 0, 64},
		{"main_chunk", 64, 64, 0},
		{"main_chunk", 64, 1024, 0},
		{"main_chunk", 256, 256, 0},
	}
	readDesignRep = []readDesign{{"main_chunk_rep", 64, 64, 0}, {"main_chunk_rep", 64, 256, 0}, {"main_chunk_rep", 256, 64, 0}}
)

// readShape is a read design's dispatch on the bench's buffer: its
// workgroups, the vec4s one invocation loads, the passes over the buffer
// and the design's name.
type readShape struct {
	groups, perLane, copies uint64
	name                    string
}

func (b *ceilingBench) readShape(x readDesign, reps uint64) readShape {
	wg := uint64(x.wg)
	s := readShape{copies: 1}
	switch x.entry {
	case "main_chunk":
		s.groups = (b.n4 + x.chunk*wg - 1) / (x.chunk * wg)
		s.perLane = x.chunk
		s.name = fmt.Sprintf("chunk of %d vec4/invocation wg%d", x.chunk, x.wg)
	case "main_chunk_rep":
		s.copies = reps
		chunks := (b.n4 + x.chunk - 1) / x.chunk
		s.groups = (chunks*reps + wg - 1) / wg
		s.perLane = x.chunk
		s.name = fmt.Sprintf("chunk of %d vec4/invocation wg%d, %d passes over the buffer", x.chunk, x.wg, reps)
	default:
		s.groups = (b.n4 + wg*x.perThread - 1) / (wg * x.perThread)
		s.groups = max(1, min(s.groups, uint64(b.d.Limits.MaxComputeWorkgroupsPerDimension)))
		s.perLane = (b.n4 + s.groups*wg - 1) / (s.groups * wg)
		s.name = fmt.Sprintf("grid-stride+tree wg%d", x.wg)
		if x.entry == "main_stride" {
			s.name = fmt.Sprintf("grid-stride, partial per invocation wg%d", x.wg)
		}
	}
	return s
}

// readDesignKernel builds the read kernel of design x: its pipeline, a
// partial-sum buffer poisoned before each run and checked after it.
func (b *ceilingBench) readDesignKernel(x readDesign, s readShape, reps uint64) (*microKernel, error) {
	consts := wgpu.Constants{"WG": float64(x.wg), "CHUNK": float64(max(x.chunk, 1))}
	if x.entry == "main_chunk_rep" {
		consts["REPS"] = float64(reps)
	}
	p, err := b.d.Pipeline("micro_read", wgsl.MustSource("micro_read"), x.entry, consts)
	if err != nil {
		return nil, err
	}
	n := s.groups * uint64(x.wg)
	if x.entry == "main" {
		n = s.groups
	}
	partial, err := b.d.CreateBuffer("ceiling partial sums "+s.name, 4*n, wgpu.UsageStorage|wgpu.UsageCopyDst|wgpu.UsageCopySrc)
	if err != nil {
		return nil, err
	}
	b.extra = append(b.extra, partial)
	bg, err := b.bind(p, []wgpu.BufferBinding{{Binding: 0, Buffer: b.src}, {Binding: 1, Buffer: partial}})
	if err != nil {
		return nil, err
	}
	nan := make([]float32, n)
	for i := range nan {
		nan[i] = nanBits
	}
	got := make([]float32, n)
	depth := int(s.perLane) + bits.Len(uint(x.wg)) + 2
	copies := s.copies
	return &microKernel{
		name:    s.name,
		pass:    wgpu.Pass{Label: "micro_read " + x.entry, Dispatches: []wgpu.Dispatch{{Pipeline: p, BindGroups: []*wgpu.BindGroup{bg}, X: uint32(s.groups), Y: 1, Z: 1}}},
		bytes:   float64(16 * b.n4 * copies),
		prepare: func(int) error { return b.d.Write(partial, 0, wgpu.Bytes(nan)) },
		verify: func(int) error {
			if err := b.d.Read(partial, 0, wgpu.Bytes(got)); err != nil {
				return err
			}
			return checkSum("micro_read "+s.name, got, float64(copies)*b.sum, float64(copies)*b.absSum, depth)
		},
	}, nil
}

// chunkDesign is base's operation by the main_chunk entry of shader
// (each invocation CHUNK consecutive vec4s) at workgroup size wg, with
// base's poisoning and checks; nil when the adapter refuses the
// workgroup size, the grid or the loop count.
func (b *ceilingBench) chunkDesign(base *microKernel, shader string, bindings []wgpu.BufferBinding, wg int, chunk uint64) (*microKernel, error) {
	groups := (b.n4 + chunk*uint64(wg) - 1) / (chunk * uint64(wg))
	name := fmt.Sprintf("chunk of %d vec4/invocation wg%d", chunk, wg)
	if b.d.CheckWorkgroup(wg) != nil || groups > uint64(b.d.Limits.MaxComputeWorkgroupsPerDimension) || wgpu.CheckLoopBudget(b.d, chunk+1, name) != nil {
		return nil, nil
	}
	p, err := b.d.Pipeline(shader, wgsl.MustSource(shader), "main_chunk", wgpu.Constants{"WG": float64(wg), "CHUNK": float64(chunk)})
	if err != nil {
		return nil, err
	}
	bg, err := b.bind(p, bindings)
	if err != nil {
		return nil, err
	}
	return &microKernel{
		name:    name,
		pass:    wgpu.Pass{Label: shader + " main_chunk", Dispatches: []wgpu.Dispatch{{Pipeline: p, BindGroups: []*wgpu.BindGroup{bg}, X: uint32(groups), Y: 1, Z: 1}}},
		bytes:   base.bytes,
		prepare: base.prepare,
		verify:  base.verify,
	}, nil
}

// checkSum checks that the float64 sum of partial sums is within the
// rounding bound of float32 summation, depth·ε·Σ|x| (doubled for safety),
// of want.
func checkSum(kernel string, partials []float32, want, absSum float64, depth int) error {
	var got float64
	for i, x := range partials {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return fmt.Errorf("%s: partial sum %d = %v: %w", kernel, i, x, ErrVerify)
		}
		got += float64(x)
	}
	tol := 2*float64(depth)*eps32*absSum + 1e-30
	if math.Abs(got-want) > tol {
		return fmt.Errorf("%s: sum %.9g, want %.9g (tolerance %.3g): %w", kernel, got, want, tol, ErrVerify)
	}
	return nil
}

const sampleBlock, sampleCount = 256, 8

func (b *ceilingBench) fillKernel() (*microKernel, error) {
	p, err := b.pipeline("micro_fill", wgpu.Constants{})
	if err != nil {
		return nil, err
	}
	bg, err := b.bind(p, []wgpu.BufferBinding{b.params.binding(0), {Binding: 1, Buffer: b.dst}})
	if err != nil {
		return nil, err
	}
	starts := sampleStarts(b.n4, sampleBlock, sampleCount)
	seed := func(run int) float32 { return float32(run+1) * 1.5 }
	return &microKernel{
		name:  fmt.Sprintf("grid-stride wg%d", b.wg),
		pass:  wgpu.Pass{Label: "micro_fill", Dispatches: []wgpu.Dispatch{{Pipeline: p, BindGroups: []*wgpu.BindGroup{bg}, X: b.streamGroups(b.n4, 8), Y: 1, Z: 1}}},
		bytes: float64(16 * b.n4),
		prepare: func(run int) error {
			b.params.set(0, math.Float32bits(seed(run)))
			if err := b.params.flush(b.d); err != nil {
				return err
			}
			return b.poison(b.dst, starts, sampleBlock, b.n4)
		},
		verify: func(run int) error {
			s := seed(run)
			return b.readSamples(b.dst, starts, sampleBlock, b.n4, func(i uint64, got [4]float32) error {
				want := [4]float32{float32(i & 0xffff), float32(i >> 16), s, -s}
				return checkExact("micro_fill", i, got, want)
			})
		},
	}, nil
}

func checkExact(kernel string, i uint64, got, want [4]float32) error {
	for l := range got {
		if math.Float32bits(got[l]) != math.Float32bits(want[l]) {
			return fmt.Errorf("%s: element %d lane %d = %v, want %v: %w", kernel, i, l, got[l], want[l], ErrVerify)
		}
	}
	return nil
}

func (b *ceilingBench) copyKernel() (*microKernel, error) {
	p, err := b.pipeline("micro_copy", wgpu.Constants{})
	if err != nil {
		return nil, err
	}
	bg, err := b.bind(p, []wgpu.BufferBinding{{Binding: 0, Buffer: b.src}, {Binding: 1, Buffer: b.dst}})
	if err != nil {
		return nil, err
	}
	starts := sampleStarts(b.n4, sampleBlock, sampleCount)
	return &microKernel{
		name:  fmt.Sprintf("grid-stride wg%d", b.wg),
		pass:  wgpu.Pass{Label: "micro_copy", Dispatches: []wgpu.Dispatch{{Pipeline: p, BindGroups: []*wgpu.BindGroup{bg}, X: b.streamGroups(b.n4, 8), Y: 1, Z: 1}}},
		bytes: float64(2 * 16 * b.n4),
		prepare: func(int) error {
			return b.poison(b.dst, starts, sampleBlock, b.n4)
		},
		verify: func(int) error {
			return b.readSamples(b.dst, starts, sampleBlock, b.n4, func(i uint64, got [4]float32) error {
				return checkExact("micro_copy", i, got, [4]float32(b.srcHost[4*i:4*i+4]))
			})
		},
	}, nil
}

// fmaElements is how many vec4s the FMA kernel with fmas steps streams:
// all of them at low intensity, fewer at high intensity so a run does
// about the flops of intensity 4 over the full buffer, but never fewer
// than 2^20 vec4s (enough invocations to fill a large GPU).
func (b *ceilingBench) fmaElements(fmas int) uint64 {
	n := b.n4 * 16 / uint64(fmas)
	n = max(n, min(b.n4, 1<<20))
	return min(n, b.n4)
}

// fmaRef is the host's FMA chain for one lane, with the bound on how far
// a GPU's result may be from it (fma may or may not be fused: one
// rounding of |x|+|b| per step).
func fmaRef(x0 float32, fmas int) (want, tol float64) {
	x := x0
	var bound float64
	for k := 0; k < fmas; k++ {
		x = float32(float64(x)*float64(fmaA) + float64(fmaB))
		bound += math.Abs(float64(x)) + float64(fmaB)
	}
	return float64(x), 2*eps32*bound + 1e-30
}

// fmaDesign is one way of writing the FMA chain (wgsl/micro_fma.wgsl's
// MAD and WIDE overrides).
type fmaDesign struct{ mad, wide bool }

// fmaDesigns are the FMA chain's designs: fma() with two interleaved
// elements first (every intensity), then x*a+b and four elements (at the
// peak's intensity): the ceiling is the best of them.
var fmaDesigns = []fmaDesign{{}, {mad: true}, {wide: true}, {mad: true, wide: true}}

func (d fmaDesign) String() string {
	s := "fma"
	if d.mad {
		s = "mad"
	}
	if d.wide {
		s += ",x4"
	}
	return s
}

func (b *ceilingBench) fmaKernel(fmas int, design fmaDesign) (*microKernel, error) {
	consts := wgpu.Constants{"FMAS": float64(fmas)}
	if design.mad {
		consts["MAD"] = 1
	}
	if design.wide {
		consts["WIDE"] = 1
	}
	p, err := b.pipeline("micro_fma", consts)
	if err != nil {
		return nil, err
	}
	n4 := b.fmaElements(fmas)
	bg, err := b.bind(p, []wgpu.BufferBinding{
		b.params.binding(1),
		{Binding: 1, Buffer: b.src, Size: 16 * n4},
		{Binding: 2, Buffer: b.dst, Size: 16 * n4},
	})
	if err != nil {
		return nil, err
	}
	const blk, count = 32, 4
	starts := sampleStarts(n4, blk, count)
	name := fmt.Sprintf("micro_fma(FMAS=%d)", fmas)
	if design != (fmaDesign{}) {
		name = fmt.Sprintf("micro_fma(FMAS=%d,%v)", fmas, design)
	}
	return &microKernel{
		name:  name,
		pass:  wgpu.Pass{Label: name, Dispatches: []wgpu.Dispatch{{Pipeline: p, BindGroups: []*wgpu.BindGroup{bg}, X: b.streamGroups(n4, 2), Y: 1, Z: 1}}},
		bytes: float64(2 * 16 * n4),
		flops: float64(2 * 4 * uint64(fmas) * n4),
		prepare: func(int) error {
			return b.poison(b.dst, starts, blk, n4)
		},
		verify: func(int) error {
			return b.readSamples(b.dst, starts, blk, n4, func(i uint64, got [4]float32) error {
				for l := range got {
					want, tol := fmaRef(b.srcHost[4*i+uint64(l)], fmas)
					if g := float64(got[l]); !(math.Abs(g-want) <= tol) {
						return fmt.Errorf("%s: element %d lane %d = %v, want %v (tolerance %.3g): %w", name, i, l, g, want, tol, ErrVerify)
					}
				}
				return nil
			})
		},
	}, nil
}

// stopped reports whether the measurement was asked to stop.
func (b *ceilingBench) stopped() bool { return b.stop != nil && b.stop() }

// measure runs k runs times, verifying every run, and keeps the best host
// and kernel times of all runs but the first.
func (b *ceilingBench) measure(k *microKernel, runs int, timer *wgpu.Timer) (runTimes, error) {
	rt := runTimes{kernelValid: timer != nil}
	for run := 0; run < runs; run++ {
		if b.stopped() {
			return rt, ErrStopped
		}
		if err := k.prepare(run); err != nil {
			return rt, fmt.Errorf("%s: %w", k.name, err)
		}
		start := clock.Now()
		passes, err := b.d.Submit([]wgpu.Pass{k.pass}, nil, timer)
		host := clock.Since(start)
		if err != nil {
			return rt, fmt.Errorf("%s: %w", k.name, err)
		}
		if host <= 0 {
			// A rate over it would be +Inf: no ceiling is better than a
			// wrong one.
			return rt, fmt.Errorf("%s: run %d read %v on the host clock (below its resolution)", k.name, run, host)
		}
		if err := k.verify(run); err != nil {
			return rt, fmt.Errorf("run %d: %w", run, err)
		}
		if run == 0 {
			continue
		}
		if rt.host == 0 || host < rt.host {
			rt.host = host
		}
		// A kernel time longer than the host time around it is not
		// plausible: fall back to the host clock.
		if timer == nil || len(passes) != 1 || !passes[0].Valid || passes[0].Duration <= 0 || passes[0].Duration > host {
			rt.kernelValid = false
			continue
		}
		if rt.kernel == 0 || passes[0].Duration < rt.kernel {
			rt.kernel = passes[0].Duration
		}
	}
	if !rt.kernelValid {
		rt.kernel = 0
	}
	return rt, nil
}
