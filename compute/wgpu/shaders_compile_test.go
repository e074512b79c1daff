package wgpu_test

// Every shipped shader compiles on the adapter, for every entry point and
// every override value the sweeps use. Entry points and overrides are
// found by scanning the WGSL text, so new files are covered without edits
// here. Values the adapter rejects must come back as errors naming the
// value and the reason, and only where the adapter's limits predict it.

import (
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/wgpu-prof/wgpu-prof/compute/wgpu"

	"github.com/wgpu-prof/wgpu-prof/wgsl"
)

// Sweep values by kind of override. Only overrides with a literal default
// are swept; one whose default is an expression of others is derived.
var (
	sweepWorkgroup = []int64{32, 64, 128, 256, 512}
	sweepTile      = []int64{16, 32, 64, 128}
	// Overrides with a sweep of their own (micro_fma's intensity dial:
	// 4 × flop/byte for intensities 0.25 … 256).
	sweepNamed = map[string][]int64{"FMAS": {1, 4, 16, 64, 256, 1024}}
)

func sweepFor(name string) []int64 {
	switch {
	case sweepNamed[name] != nil:
		return sweepNamed[name]
	case strings.HasPrefix(name, "WG") || strings.Contains(name, "WORKGROUP"):
		return sweepWorkgroup
	case strings.Contains(name, "TILE"):
		return sweepTile
	}
	return nil
}

// combos is the cartesian product of the sweeps of the swept overrides
// (those with a literal default; the others are derived).
func combos(overrides map[string]string) []map[string]int64 {
	var names []string
	for name, def := range overrides {
		if sweepFor(name) != nil && (def == "" || reIntLiteral.MatchString(def)) {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	out := []map[string]int64{{}}
	for _, n := range names {
		var next []map[string]int64
		for _, c := range out {
			for _, v := range sweepFor(n) {
				m := map[string]int64{n: v}
				for k, x := range c {
					m[k] = x
				}
				next = append(next, m)
			}
		}
		out = next
	}
	return out
}

// missingFeature is the first optional feature shader name needs
// (wgsl.Needs) that d lacks, "" when it has them all. Every other module
// must compile on every adapter.
func missingFeature(d *wgpu.Device, name string) string {
	for _, f := range wgsl.Needs(name) {
		has := false
		switch f {
		case wgsl.FeatureSubgroups:
			has = d.HasFeature(wgpu.FeatureSubgroups) || d.HasFeature(wgpu.FeatureNativeSubgroup)
		case wgsl.FeatureShaderF16:
			has = d.HasFeature(wgpu.FeatureShaderF16)
		case wgsl.FeatureShaderF64:
			has = d.HasFeature(wgpu.FeatureShaderF64)
		case wgsl.FeatureSubgroupID:
			has = d.Impl() != wgpu.ImplDawn && (d.HasFeature(wgpu.FeatureSubgroups) || d.HasFeature(wgpu.FeatureNativeSubgroup))
		}
		if !has {
			return f
		}
	}
	return ""
}

var reIntLiteral = regexp.MustCompile(`^\s*(\d+)[ui]?\s*$`)

func TestShadersCompile(t *testing.T) { shadersCompile(t, openDevice(t)) }

// zeroWorkgroupReason is how impl's shader compiler words its refusal of
// @workgroup_size(0): naga's "strictly positive", Tint's "must be at
// least 1".
func zeroWorkgroupReason(impl wgpu.Impl) string {
	if impl == wgpu.ImplDawn {
		return "must be at least 1"
	}
	return "strictly positive"
}

// noGLAdapter is what a test of the OpenGL backend asserts where the GL
// instance lists no adapter: through Dawn, which offers GL only at the
// compatibility level the binding does not request, the gap is named
// (NoAdapterHint) and SelectAdapter blames the missing OpenGL adapter,
// never a Vulkan driver; through wgpu-native it is the machine's lack of
// an EGL driver, and the test is skipped saying so.
func noGLAdapter(t *testing.T, inst *wgpu.Instance) {
	t.Helper()
	_, err := wgpu.SelectAdapter(nil, wgpu.AdapterQuery{Backend: wgpu.BackendOpenGL, Index: -1})
	if !errors.Is(err, wgpu.ErrNoAdapter) || !strings.Contains(err.Error(), "OpenGL") || strings.Contains(err.Error(), "Vulkan") {
		t.Errorf("no GL adapter: SelectAdapter says %v", err)
	}
	hint := inst.Impl().NoAdapterHint(wgpu.BackendOpenGL)
	if inst.Impl() != wgpu.ImplDawn {
		if hint != "" {
			t.Errorf("%s names a gap it does not have: %q", inst.Impl(), hint)
		}
		t.Skipf("no OpenGL adapter here through %s (no EGL driver)", inst.Impl())
	}
	if !strings.Contains(hint, "compatibility") {
		t.Errorf("Dawn lists no GL adapter and NoAdapterHint does not say why: %q", hint)
	}
	t.Logf("through %s: %s", inst.Impl(), hint)
}

// TestShadersCompileOnGL compiles every module on wgpu's OpenGL backend,
// where subgroups and shader-f16 are missing: the modules that need
// neither (wgsl.Needs) must all compile there. Where there is no OpenGL
// adapter, noGLAdapter asserts why.
func TestShadersCompileOnGL(t *testing.T) {
	inst, err := wgpu.NewInstance(wgpu.BackendOpenGL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(inst.Release)
	adapters, err := inst.Adapters()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for _, a := range adapters {
			a.Release()
		}
	})
	if len(adapters) == 0 {
		noGLAdapter(t, inst)
		return
	}
	d, err := adapters[0].RequestDevice(wgpu.DeviceOptions{WaitTimeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(d.Release)
	shadersCompile(t, d)
}

func shadersCompile(t *testing.T, d *wgpu.Device) {
	start := time.Now()
	var compiled, rejected int
	for _, name := range wgsl.Names() {
		src := wgsl.MustSource(name)
		if f := missingFeature(d, name); f != "" {
			t.Logf("%s: skipped: needs %s, which %q (%s) lacks", name, f, d.Info.Name, d.Info.Backend)
			continue
		}
		entries := wgpu.ScanEntries(src)
		if len(entries) == 0 {
			t.Errorf("%s: no @compute entry point found", name)
			continue
		}
		m, err := d.CreateShaderModule(name, src)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		var names []string
		for _, e := range entries {
			names = append(names, e.Name)
		}
		sets := combos(wgpu.ScanOverrides(src))
		t.Logf("%s: entries %v, %d override combination(s) each", name, names, len(sets))
		for _, e := range entries {
			for _, set := range sets {
				consts := wgpu.Constants{}
				for k, v := range set {
					consts[k] = float64(v)
				}
				what := fmt.Sprintf("%s:%s {%s}", name, e.Name, consts.Key())
				why, known := wgpu.PredictLimits(d.Limits, src, e.Name, set)
				if !known {
					// wgpu-native does not check workgroup size and storage
					// after resolving overrides (gfx-rs/wgpu#8946): a
					// shipped shader the host check cannot evaluate could be
					// dispatched past the limits.
					t.Errorf("%s: the host-side limit check cannot evaluate this entry point", what)
				}
				p, err := d.CreatePipeline(m, e.Name, consts)
				switch {
				case err == nil:
					p.Release()
					compiled++
					if why != "" {
						t.Errorf("%s: accepted although %s", what, why)
					}
				case errors.Is(err, wgpu.ErrLimit):
					rejected++
					if why == "" || !strings.Contains(err.Error(), consts.Key()) || !strings.Contains(err.Error(), why) {
						t.Errorf("%s: rejection must name the values and the limit (%q): %v", what, why, err)
					}
					t.Logf("%s: rejected on the host: %v", what, err)
				default:
					rejected++
					var ge *wgpu.GPUError
					if !strings.Contains(err.Error(), consts.Key()) || !errors.As(err, &ge) || strings.TrimSpace(ge.Message) == "" {
						t.Errorf("%s: rejection must name the values and the reason: %v", what, err)
					}
					if why == "" {
						t.Errorf("%s: rejected by the adapter although within the limits: %v", what, err)
					}
				}
			}
		}
		m.Release()
	}
	t.Logf("%d pipelines compiled, %d rejected, in %v", compiled, rejected, time.Since(start).Round(time.Millisecond))
	if compiled == 0 {
		t.Fatal("no pipeline compiled")
	}
}

// The scanner finds entry points, overrides, derived overrides and the
// workgroup memory each entry reaches.
func TestShaderScanner(t *testing.T) {
	src := `
enable f16;
override WG: u32 = 64; // comment with fn fake(
override TILE = 32u;
override T4: u32 = TILE / 4u;
override K: f32;
const KC: u32 = 8u;
struct Pair { a: f32, b: vec3<f32>, }
var<workgroup> tile: array<f32, KC * TILE>;
var<workgroup> pairs: array<Pair, WG>;
var<workgroup> unused: array<f32, 100000>;
/* @compute fn commented_out() {} */
fn helper() -> f32 { return pairs[0].a; }
@compute @workgroup_size(T4, T4)
fn tiled(@builtin(local_invocation_index) lid: u32) { tile[lid] = helper(); }
@workgroup_size(WG, 1, 1) @compute
fn flat() { if (true) { } }
fn unreached() { unused[0] = 1.0; }
`
	entries := wgpu.ScanEntries(src)
	if len(entries) != 2 || entries[0].Name != "tiled" || entries[1].Name != "flat" {
		t.Fatalf("entries %+v", entries)
	}
	if got := strings.Join(entries[0].WorkgroupVars, ","); got != "pairs,tile" {
		t.Errorf("tiled reaches %q, want pairs,tile", got)
	}
	if len(entries[1].WorkgroupVars) != 0 {
		t.Errorf("flat reaches %v, want none", entries[1].WorkgroupVars)
	}
	if got := len(combos(wgpu.ScanOverrides(src))); got != len(sweepWorkgroup)*len(sweepTile) {
		t.Errorf("%d combinations, want WG × TILE = %d (T4 is derived, K unswept)", got, len(sweepWorkgroup)*len(sweepTile))
	}
	lim := wgpu.Limits{MaxComputeWorkgroupSizeX: 1024, MaxComputeWorkgroupSizeY: 1024, MaxComputeWorkgroupSizeZ: 64,
		MaxComputeInvocationsPerWorkgroup: 256, MaxComputeWorkgroupStorageSize: 16384}
	for _, c := range []struct {
		set    map[string]int64
		reason string // "" when within the limits
	}{
		{map[string]int64{"WG": 64, "TILE": 32}, ""},                                   // 8×8 = 64 invocations; 8·32·4 + 64·32 bytes
		{map[string]int64{"WG": 64, "TILE": 128}, "maxComputeInvocationsPerWorkgroup"}, // 32×32 = 1024 invocations > 256
		{map[string]int64{"WG": 512, "TILE": 16}, "maxComputeWorkgroupStorageSize"},    // pairs: 512·32 bytes > 16 KiB
		{map[string]int64{"WG": 128, "TILE": 64}, ""},                                  // 16×16; 2048 + 4096 bytes
		{map[string]int64{"WG": 128, "TILE": 8192}, "maxComputeWorkgroupSizeX"},        // 2048×2048: x > 1024
	} {
		why, known := wgpu.PredictLimits(lim, src, "tiled", c.set)
		if !known || (why == "") != (c.reason == "") || !strings.Contains(why, c.reason) {
			t.Errorf("%v: predicted %q (known=%v), want a reason naming %q", c.set, why, known, c.reason)
		}
	}
	if why, _ := wgpu.PredictLimits(lim, src, "tiled", map[string]int64{"WG": 128, "TILE": 8192}); !strings.Contains(why, "2048×2048×1") {
		t.Errorf("the reason %q does not give the evaluated size", why)
	}
	called := strings.Replace(src, "@workgroup_size(T4, T4)", "@workgroup_size(max(WG, 2))", 1)
	if _, known := wgpu.PredictLimits(lim, called, "tiled", nil); known {
		t.Error("a call in @workgroup_size was evaluated")
	}
	if _, known := wgpu.PredictLimits(lim, src, "no_such_entry", nil); known {
		t.Error("a missing entry point was evaluated")
	}
}

// What exceeds the limits is rejected with ErrLimit before wgpu-native
// sees it (wgpu-native 29 does not check workgroup size and storage after
// resolving overrides, gfx-rs/wgpu#8946); what the adapter rejects comes
// back as an error naming the values and the reason; the device stays
// usable.
func TestCompileRejectsPastLimits(t *testing.T) {
	d := openDevice(t)
	const src = `
override WG: u32 = 64;
override TILE: u32 = 16;
// a: [N] f32
@group(0) @binding(0) var<storage, read_write> a: array<f32>;
var<workgroup> tile: array<f32, TILE * TILE>;
@compute @workgroup_size(WG)
fn main(@builtin(local_invocation_index) lid: u32) {
	tile[lid] = f32(lid);
	workgroupBarrier();
	a[lid] = tile[(lid + 1u) % (TILE * TILE)];
}
`
	m, err := d.CreateShaderModule("past_limits", src)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Release()
	l := d.Limits
	// Side of a square f32 tile just past the workgroup storage limit.
	side := int64(1)
	for side*side*4 <= int64(l.MaxComputeWorkgroupStorageSize) {
		side *= 2
	}
	// Twice the invocation limit is past the x size limit too on most
	// adapters (1024 and 1024 on lavapipe); the x check comes first.
	tooWide := "maxComputeInvocationsPerWorkgroup"
	if 2*l.MaxComputeInvocationsPerWorkgroup > l.MaxComputeWorkgroupSizeX {
		tooWide = "maxComputeWorkgroupSizeX"
	}
	checkRejection := func(what string, consts wgpu.Constants, err error, reason string) {
		t.Helper()
		var ge *wgpu.GPUError
		if !strings.Contains(err.Error(), consts.Key()) || !errors.As(err, &ge) || !strings.Contains(ge.Message, reason) {
			t.Errorf("%s: error must name the values %q and the reason %q: %v", what, consts.Key(), reason, err)
		}
	}
	for _, c := range []struct {
		consts wgpu.Constants
		limit  string // "" when within the limits
	}{
		{wgpu.Constants{"WG": 64, "TILE": 16}, ""},
		{wgpu.Constants{"WG": float64(l.MaxComputeInvocationsPerWorkgroup), "TILE": 16}, ""},
		{wgpu.Constants{"WG": 2 * float64(l.MaxComputeInvocationsPerWorkgroup), "TILE": 16}, tooWide},
		{wgpu.Constants{"WG": 64, "TILE": float64(side / 2)}, ""},
		{wgpu.Constants{"WG": 64, "TILE": float64(side)}, "maxComputeWorkgroupStorageSize"},
	} {
		p, err := d.CreatePipeline(m, "main", c.consts)
		switch {
		case err == nil && c.limit == "":
			p.Release()
		case err == nil:
			p.Release()
			t.Errorf("{%s}: accepted past %s", c.consts.Key(), c.limit)
		case c.limit == "":
			t.Errorf("{%s}: rejected within the limits: %v", c.consts.Key(), err)
		case !errors.Is(err, wgpu.ErrLimit) || !strings.Contains(err.Error(), c.consts.Key()) || !strings.Contains(err.Error(), c.limit):
			t.Errorf("{%s}: want ErrLimit naming the values and %s, got %v", c.consts.Key(), c.limit, err)
		default:
			t.Logf("{%s}: %v", c.consts.Key(), err)
		}
	}
	// Rejections the adapter does make.
	for _, c := range []struct {
		consts wgpu.Constants
		reason string
	}{
		{wgpu.Constants{"WG": 0}, zeroWorkgroupReason(d.Impl())},
		{wgpu.Constants{"NOT_AN_OVERRIDE": 1}, "NOT_AN_OVERRIDE"},
	} {
		p, err := d.CreatePipeline(m, "main", c.consts)
		if err == nil {
			p.Release()
			t.Errorf("{%s} accepted", c.consts.Key())
			continue
		}
		checkRejection("{"+c.consts.Key()+"}", c.consts, err, c.reason)
	}
	if err := d.Err(); err != nil {
		t.Fatalf("device unusable after rejections: %v", err)
	}
	p, err := d.CreatePipeline(m, "main", wgpu.Constants{"WG": 32})
	if err != nil {
		t.Fatalf("device unusable after rejections: %v", err)
	}
	p.Release()
}
