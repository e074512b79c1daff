package compute

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"regexp"
	"sort"
	"strings"

	"github.com/wgpu-prof/wgpu-prof/compute/wgpu"

	"github.com/wgpu-prof/wgpu-prof/ops"
	"github.com/wgpu-prof/wgpu-prof/timing/clock"
)

// BufferSpec declares one storage buffer of a user kernel by its WGSL
// variable name: Count scalars of Type ("f32", "u32", "i32", "f16"),
// initialised by Init:
//   - "zero" (default): all zero;
//   - "rand": f32/f16 uniform in [-1, 1), u32/i32 uniform in [0, Count)
//     (valid indices into a buffer of the same length);
//   - "iota": element i holds i.
type BufferSpec struct {
	Name  string
	Type  string
	Count int
	Init  string
	// Data, when set, is the initial contents (little-endian, Count
	// scalars; Bytes converts a slice) and Init is ignored.
	Data []byte
}

// elemSize is the size in bytes of one scalar of type t.
func elemSize(t string) (int, bool) {
	switch t {
	case "f32", "u32", "i32":
		return 4, true
	case "f16":
		return 2, true
	}
	return 0, false
}

// UserKernelOptions describe a WGSL compute shader the caller wrote.
type UserKernelOptions struct {
	Label  string // for error messages; default "user kernel"
	Source string // WGSL text
	// Entry is the @compute entry point; "" picks the only one.
	Entry   string
	Buffers []BufferSpec
	// Dispatch is the workgroup count in X, Y, Z (0 counts as 1 for Y, Z).
	Dispatch  [3]uint32
	Constants wgpu.Constants
	Seed      uint64
	// LoopIterations is the most loop iterations one invocation runs,
	// counted as wgpu.Device.LoopBudget counts them (each loop's
	// iterations plus one); 0: not declared. A declared count past the
	// adapter's loop budget is refused (wgpu.CheckLoopBudget, ErrLimit), as
	// the built-in kernels' are. Undeclared, a shader with loops on an
	// adapter that has a budget cannot be trusted to have run its loops to
	// the end: UserKernel.LoopRisk says so.
	LoopIterations uint64
}

// UserKernel runs one dispatch of a user's WGSL compute shader over
// storage buffers it creates and fills from their BufferSpecs. Bindings
// are found by name in the WGSL text (its @group/@binding), so the caller
// needs to know nothing of layouts. A UserKernel is safe for concurrent
// use: its calls share the buffers, so they are serialised.
type UserKernel struct {
	runnerGuard
	d       *wgpu.Device
	opts    UserKernelOptions
	pipe    *wgpu.Pipeline
	bufs    map[string]*wgpu.Buffer
	specs   map[string]BufferSpec
	initial map[string][]byte
	groups  []*wgpu.BindGroup
	// Writable lists the read_write buffers (sorted): the kernel's outputs.
	Writable []string
	// LoopRisk, when not empty, says why the kernel's results cannot be
	// trusted to be complete: the adapter silently ends an invocation's
	// loops past its loop budget, the shader has loops and no bound was
	// declared (UserKernelOptions.LoopIterations).
	LoopRisk string
}

// NewUserKernel checks opts against the shader and the device (every
// binding the entry point uses is declared with a matching type, sizes
// within the limits), compiles it (errors carry WGSL line:column) and
// uploads the buffers.
func NewUserKernel(d *wgpu.Device, opts UserKernelOptions) (*UserKernel, error) {
	if opts.Label == "" {
		opts.Label = "user kernel"
	}
	op := "compute: NewUserKernel: " + opts.Label
	if err := checkDevice(op, d); err != nil {
		return nil, err
	}
	info, err := wgpu.ScanWGSL(opts.Source)
	if err != nil {
		return nil, err
	}
	if err := checkUserOptions(d, info, &opts); err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	k := &UserKernel{d: d, opts: opts, bufs: map[string]*wgpu.Buffer{}, specs: map[string]BufferSpec{}, initial: map[string][]byte{}}
	if b := d.LoopBudget(); b > 0 && opts.LoopIterations == 0 && hasLoops(opts.Source) {
		k.LoopRisk = fmt.Sprintf("%s ends every loop of an invocation silently after %d iterations in all, and the shader has loops with no declared bound (LoopIterations): its results may be those of loops cut short, so they are not verified", d.Info.Name, b)
	}
	byName := map[string]wgpu.WGSLBinding{}
	for _, b := range info.Bindings {
		byName[b.Name] = b
	}
	for _, s := range opts.Buffers {
		b, ok := byName[s.Name]
		if !ok || b.Space != "storage" {
			var names []string
			for _, x := range info.Bindings {
				if x.Space == "storage" {
					names = append(names, x.Name)
				}
			}
			return nil, bufErr(op, s.Name, nil, "the shader has no storage binding %s (have %s)", s.Name, strings.Join(names, ", "))
		}
		if err := k.addBuffer(op, b, s); err != nil {
			return nil, err
		}
	}
	used, err := k.usedBindings(info)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	if err := k.build(used); err != nil {
		k.Release()
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	return k, nil
}

// checkUserOptions checks the declared loop bound, the entry point, the
// override constants and the dispatch grid against the shader and d,
// filling the entry point and unused grid dimensions.
func checkUserOptions(d *wgpu.Device, info *wgpu.WGSLModuleInfo, opts *UserKernelOptions) error {
	if opts.LoopIterations > 0 {
		if err := wgpu.CheckLoopBudget(d, opts.LoopIterations, "declared loop iterations"); err != nil {
			return fmt.Errorf("%w: %w", &ParamError{Name: "loop-iterations", Value: fmt.Sprint(opts.LoopIterations), Limit: "past the adapter's loop budget"}, err)
		}
	}
	if opts.Entry == "" {
		if len(info.Entries) != 1 {
			return &ParamError{Name: "entry", Limit: fmt.Sprintf("the shader has %d @compute entry points (%s): name one", len(info.Entries), strings.Join(info.Entries, ", "))}
		}
		opts.Entry = info.Entries[0]
	} else if !contains(info.Entries, opts.Entry) {
		return &ParamError{Name: "entry", Value: opts.Entry, Limit: fmt.Sprintf("no @compute entry point %s (have %s)", opts.Entry, strings.Join(info.Entries, ", "))}
	}
	for k := range opts.Constants {
		if _, ok := info.Overrides[k]; !ok {
			return &ParamError{Name: "const", Value: k, Limit: fmt.Sprintf("the shader has no override constant %s (have %s)", k, strings.Join(sortedKeys(info.Overrides), ", "))}
		}
	}
	lim := d.Limits
	for i, n := range opts.Dispatch {
		if i > 0 && n == 0 {
			opts.Dispatch[i] = 1
			continue
		}
		if n == 0 || n > lim.MaxComputeWorkgroupsPerDimension {
			return fmt.Errorf("%w: %w", &ParamError{Name: "dispatch", Limit: fmt.Sprintf("%c = %d: must be in [1, %d] (maxComputeWorkgroupsPerDimension of %q): use larger workgroups or a 2-D grid", "XYZ"[i], n, lim.MaxComputeWorkgroupsPerDimension, d.Info.Name)}, wgpu.ErrLimit)
		}
	}
	return nil
}

// addBuffer checks buffer s against its storage binding b and d's limits
// and records it with its initial contents.
func (k *UserKernel) addBuffer(op string, b wgpu.WGSLBinding, s BufferSpec) error {
	d, lim := k.d, k.d.Limits
	if _, dup := k.specs[s.Name]; dup {
		return bufErr(op, s.Name, nil, "given twice")
	}
	size, ok := elemSize(s.Type)
	if !ok {
		return bufErr(op, s.Name, nil, "type %q: want f32, u32, i32 or f16", s.Type)
	}
	if scalar, width, ok := b.Scalar(); ok {
		if scalar != s.Type {
			return bufErr(op, s.Name+"="+s.Type, nil, "the shader declares %s: %s", s.Name, b.Type)
		}
		if s.Count%width != 0 {
			return bufErr(op, s.Name, nil, "count %d is not a multiple of %d (%s)", s.Count, width, b.Type)
		}
	}
	if s.Count <= 0 {
		return bufErr(op, s.Name, nil, "count %d: must be positive", s.Count)
	}
	bytesN := uint64(s.Count) * uint64(size)
	if bytesN > lim.MaxStorageBufferBindingSize || bytesN > lim.MaxBufferSize {
		return bufErr(op, s.Name, wgpu.ErrLimit, "%d bytes > maxStorageBufferBindingSize %d", bytesN, lim.MaxStorageBufferBindingSize)
	}
	if s.Type == "f16" && !d.HasFeature(wgpu.FeatureShaderF16) {
		return bufErr(op, s.Name, wgpu.ErrLimit, "f16 needs the shader-f16 feature, which %q lacks", d.Info.Name)
	}
	if s.Init == "" {
		s.Init = "zero"
	}
	data, err := initData(s, k.opts.Seed)
	if s.Data != nil {
		if len(s.Data) != s.Count*size {
			return bufErr(op, s.Name, nil, "%d bytes of data for %d × %s: want %d", len(s.Data), s.Count, s.Type, s.Count*size)
		}
		data = append(s.Data[:len(s.Data):len(s.Data)], make([]byte, len(data)-len(s.Data))...)
	}
	if err != nil {
		return bufErr(op, s.Name, nil, "%v", err)
	}
	k.specs[s.Name], k.initial[s.Name] = s, data
	return nil
}

// usedBindings groups the bindings the entry point uses by bind group,
// requiring each to be a declared storage buffer, and records the
// writable ones.
func (k *UserKernel) usedBindings(info *wgpu.WGSLModuleInfo) (map[uint32][]wgpu.WGSLBinding, error) {
	entry := k.opts.Entry
	used := map[uint32][]wgpu.WGSLBinding{}
	for _, b := range info.Bindings {
		if !info.Uses(entry, b.Name) {
			continue
		}
		if b.Space != "storage" {
			return nil, fmt.Errorf("binding %s is var<%s>: only storage buffers can be declared (use override constants for parameters)", b.Name, b.Space)
		}
		if _, ok := k.specs[b.Name]; !ok {
			return nil, &ParamError{Name: "buffer", Value: b.Name, Limit: fmt.Sprintf("%s uses storage binding %s (@group(%d) @binding(%d), %s): declare it as a buffer (%s=TYPE:COUNT[:INIT])", entry, b.Name, b.Group, b.Binding, b.Type, b.Name)}
		}
		used[b.Group] = append(used[b.Group], b)
		if b.Access == "read_write" {
			k.Writable = append(k.Writable, b.Name)
		}
	}
	sort.Strings(k.Writable)
	return used, nil
}

func (k *UserKernel) build(used map[uint32][]wgpu.WGSLBinding) error {
	var err error
	if k.pipe, err = k.d.Pipeline(k.opts.Label, k.opts.Source, k.opts.Entry, k.opts.Constants); err != nil {
		return err
	}
	for name, s := range k.specs {
		size, _ := elemSize(s.Type)
		n := (uint64(s.Count)*uint64(size) + 3) &^ 3
		b, err := k.d.CreateBuffer(name, n, wgpu.UsageStorage|wgpu.UsageCopyDst|wgpu.UsageCopySrc)
		if err != nil {
			return err
		}
		k.bufs[name] = b
	}
	if err := k.Reset(); err != nil {
		return err
	}
	var maxGroup uint32
	for g := range used {
		maxGroup = max(maxGroup, g)
	}
	if len(used) > 0 {
		k.groups = make([]*wgpu.BindGroup, maxGroup+1)
	}
	for g, bs := range used {
		var entries []wgpu.BufferBinding
		for _, b := range bs {
			entries = append(entries, wgpu.BufferBinding{Binding: b.Binding, Buffer: k.bufs[b.Name]})
		}
		if k.groups[g], err = k.d.CreateBindGroup(k.pipe, g, entries); err != nil {
			return err
		}
	}
	for g, bg := range k.groups {
		if bg == nil {
			return fmt.Errorf("bind group %d is empty between used groups: WebGPU needs every group up to %d bound", g, maxGroup)
		}
	}
	return nil
}

// initData builds a buffer's initial contents.
func initData(s BufferSpec, seed uint64) ([]byte, error) {
	size, _ := elemSize(s.Type)
	out := make([]byte, ((s.Count*size)+3)&^3)
	r := rand.New(rand.NewPCG(seed, uint64(len(s.Name))<<32|uint64(s.Count)))
	put := func(i int, f float64, u uint32) {
		switch s.Type {
		case "f32":
			binary.LittleEndian.PutUint32(out[4*i:], math.Float32bits(float32(f)))
		case "f16":
			binary.LittleEndian.PutUint16(out[2*i:], ops.F32ToF16(float32(f)))
		default:
			binary.LittleEndian.PutUint32(out[4*i:], u)
		}
	}
	switch s.Init {
	case "zero":
	case "iota":
		for i := 0; i < s.Count; i++ {
			put(i, float64(i), uint32(i))
		}
	case "rand":
		for i := 0; i < s.Count; i++ {
			put(i, 2*r.Float64()-1, uint32(r.IntN(s.Count)))
		}
	default:
		return nil, fmt.Errorf("init %q: want zero, rand or iota", s.Init)
	}
	return out, nil
}

// Reset uploads every buffer's initial contents again.
func (k *UserKernel) Reset() error {
	unlock, err := lockLive("compute: UserKernel.Reset", k)
	if err != nil {
		return err
	}
	defer unlock()
	return k.reset()
}

func (k *UserKernel) reset() error {
	for name, b := range k.bufs {
		if err := k.d.Write(b, 0, k.initial[name]); err != nil {
			return err
		}
	}
	return nil
}

// Run performs one dispatch (one pass, timed by t when non-nil).
func (k *UserKernel) Run(t *wgpu.Timer) (Timing, error) {
	unlock, err := lockLive("compute: UserKernel.Run", k)
	if err != nil {
		return Timing{}, err
	}
	defer unlock()
	return k.run(t)
}

func (k *UserKernel) run(t *wgpu.Timer) (Timing, error) {
	start := clock.Now()
	x := k.opts.Dispatch
	passes, err := k.d.Submit([]wgpu.Pass{{Label: k.opts.Label, Dispatches: []wgpu.Dispatch{{Pipeline: k.pipe, BindGroups: k.groups, X: x[0], Y: x[1], Z: x[2]}}}}, nil, t)
	if err != nil {
		return Timing{}, err
	}
	return timingFrom(passes, start), nil
}

// Read returns the current contents of buffer name.
func (k *UserKernel) Read(name string) ([]byte, error) {
	unlock, err := lockLive("compute: UserKernel.Read", k)
	if err != nil {
		return nil, err
	}
	defer unlock()
	return k.read(name)
}

func (k *UserKernel) read(name string) ([]byte, error) {
	b, ok := k.bufs[name]
	if !ok {
		return nil, fmt.Errorf("compute: UserKernel.Read: %s: no buffer %q", k.opts.Label, name)
	}
	out := make([]byte, b.Size)
	if err := k.d.Read(b, 0, out); err != nil {
		return nil, err
	}
	s := k.specs[name]
	size, _ := elemSize(s.Type)
	return out[:s.Count*size], nil
}

// Check runs the kernel twice from the initial contents and requires
// every read_write buffer to come out bit-identical (a kernel with a race
// or order-dependent atomics is not repeatable) and, for float buffers,
// finite. A user kernel has no reference result: this is what can be
// verified without one.
func (k *UserKernel) Check() error {
	unlock, err := lockLive("compute: UserKernel.Check", k)
	if err != nil {
		return err
	}
	defer unlock()
	var first map[string][]byte
	for round := 0; round < 2; round++ {
		if err := k.reset(); err != nil {
			return err
		}
		if _, err := k.run(nil); err != nil {
			return err
		}
		got := map[string][]byte{}
		for _, name := range k.Writable {
			b, err := k.read(name)
			if err != nil {
				return err
			}
			got[name] = b
			if err := checkFiniteBytes(name, k.specs[name].Type, b); err != nil {
				return err
			}
		}
		if round == 1 {
			for _, name := range k.Writable {
				if !bytes.Equal(first[name], got[name]) {
					size, _ := elemSize(k.specs[name].Type)
					i := firstDiff(first[name], got[name]) / size
					return fmt.Errorf("%s[%d] differs between two runs from the same inputs: the kernel is not repeatable (a race, or order-dependent atomics): %w", name, i, ErrVerify)
				}
			}
		}
		first = got
	}
	return k.reset()
}

func checkFiniteBytes(name, typ string, b []byte) error {
	switch typ {
	case "f32":
		for i := 0; i+4 <= len(b); i += 4 {
			if f := math.Float32frombits(binary.LittleEndian.Uint32(b[i:])); math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) {
				return fmt.Errorf("%s[%d] = %v after one run: %w", name, i/4, f, ErrVerify)
			}
		}
	case "f16":
		for i := 0; i+2 <= len(b); i += 2 {
			if f := ops.F16ToF32(binary.LittleEndian.Uint16(b[i:])); math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) {
				return fmt.Errorf("%s[%d] = %v after one run: %w", name, i/2, f, ErrVerify)
			}
		}
	}
	return nil
}

func firstDiff(a, b []byte) int {
	for i := range a {
		if i >= len(b) || a[i] != b[i] {
			return i
		}
	}
	return len(a)
}

// Release frees the buffers and bind groups; idempotent.
func (k *UserKernel) Release() { releaseRunner(k) }

func (k *UserKernel) free() {
	for _, g := range k.groups {
		if g != nil {
			g.Release()
		}
	}
	k.groups = nil
	for _, b := range k.bufs {
		b.Release()
	}
	k.bufs = map[string]*wgpu.Buffer{}
	k.pipe = nil // owned by the device's pipeline cache
}

// reLoop finds WGSL's loop statements; reComment its comments.
var (
	reLoop    = regexp.MustCompile(`\b(loop|for|while)\b`)
	reComment = regexp.MustCompile(`(?s)/\*.*?\*/|//[^\n]*`)
)

// hasLoops reports whether the WGSL source, comments removed, has a loop
// statement.
func hasLoops(src string) bool {
	return reLoop.MatchString(reComment.ReplaceAllString(src, ""))
}

func contains(s []string, x string) bool {
	for _, v := range s {
		if v == x {
			return true
		}
	}
	return false
}

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Entry is the entry point the kernel runs.
func (k *UserKernel) Entry() string {
	if k == nil {
		return ""
	}
	return k.opts.Entry
}

// DeclaredBytes is an estimate of one dispatch's traffic from the
// declared buffers: each read once, each read_write one also written once.
func (k *UserKernel) DeclaredBytes() float64 {
	if k == nil {
		return 0
	}
	var n float64
	for name, s := range k.specs {
		size, _ := elemSize(s.Type)
		b := float64(s.Count * size)
		n += b
		if contains(k.Writable, name) {
			n += b
		}
	}
	return n
}

// bufErr is op's *ParamError for the buffer called name (wrapping also
// cause when it is not nil, e.g. wgpu.ErrLimit).
func bufErr(op, name string, cause error, limit string, args ...any) error {
	pe := &ParamError{Name: "buffer", Value: name, Limit: fmt.Sprintf(limit, args...)}
	if cause != nil {
		return fmt.Errorf("%s: %w: %w", op, pe, cause)
	}
	return fmt.Errorf("%s: %w", op, pe)
}
