package compute_test

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
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/wgpu-prof/wgpu-prof/compute"
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

var (
	reLineComment  = regexp.MustCompile(`//[^\n]*`)
	reBlockComment = regexp.MustCompile(`(?s)/\*.*?\*/`)
	reOverride     = regexp.MustCompile(`(?m)^\s*(?:@id\(\s*\d+\s*\)\s*)?override\s+(\w+)\s*(?::\s*[\w<>]+)?\s*(?:=\s*([^;]+))?;`)
	reConst        = regexp.MustCompile(`(?m)^\s*const\s+(\w+)\s*(?::\s*[\w<>]+)?\s*=\s*([^;]+);`)
	reFn           = regexp.MustCompile(`((?:@\w+\s*(?:\([^)]*\))?\s*)*)\bfn\s+(\w+)\s*\(`)
	reWorkgroupVar = regexp.MustCompile(`var\s*<\s*workgroup\s*>\s*(\w+)\s*:\s*([^;]+);`)
	reStruct       = regexp.MustCompile(`struct\s+(\w+)\s*\{([^}]*)\}`)
	reIdent        = regexp.MustCompile(`\b[A-Za-z_]\w*\b`)
	reWGSize       = regexp.MustCompile(`@workgroup_size\s*\(([^)]*)\)`)
	reIntLiteral   = regexp.MustCompile(`^\s*(\d+)[ui]?\s*$`)
)

// shaderInfo is what the compile suite needs to know of one WGSL file.
type shaderInfo struct {
	overrides map[string]string // name → default expression ("" if none)
	consts    map[string]string
	structs   map[string]string // name → field list
	wgVars    map[string]string // workgroup variable → type
	fnBodies  map[string]string
	entries   []entryInfo
}

type entryInfo struct {
	name     string
	wgSize   []string // @workgroup_size arguments
	wgVarSet []string // workgroup variables the entry can reach
}

func parseShader(src string) shaderInfo {
	src = reBlockComment.ReplaceAllString(src, "")
	src = reLineComment.ReplaceAllString(src, "")
	si := shaderInfo{overrides: map[string]string{}, consts: map[string]string{}, structs: map[string]string{}, wgVars: map[string]string{}, fnBodies: map[string]string{}}
	for _, m := range reOverride.FindAllStringSubmatch(src, -1) {
		si.overrides[m[1]] = strings.TrimSpace(m[2])
	}
	for _, m := range reConst.FindAllStringSubmatch(src, -1) {
		si.consts[m[1]] = strings.TrimSpace(m[2])
	}
	for _, m := range reStruct.FindAllStringSubmatch(src, -1) {
		si.structs[m[1]] = m[2]
	}
	for _, m := range reWorkgroupVar.FindAllStringSubmatch(src, -1) {
		si.wgVars[m[1]] = strings.TrimSpace(m[2])
	}
	type fnHead struct {
		attrs, name string
	}
	var heads []fnHead
	for _, idx := range reFn.FindAllStringSubmatchIndex(src, -1) {
		attrs, name := src[idx[2]:idx[3]], src[idx[4]:idx[5]]
		heads = append(heads, fnHead{attrs, name})
		// The body: from the first '{' after the head to its match.
		open := strings.IndexByte(src[idx[1]:], '{')
		if open < 0 {
			continue
		}
		start := idx[1] + open
		depth, end := 0, len(src)
		for i := start; i < len(src); i++ {
			if src[i] == '{' {
				depth++
			} else if src[i] == '}' {
				if depth--; depth == 0 {
					end = i + 1
					break
				}
			}
		}
		// The parameter list counts too (it names no workgroup variables,
		// but keeps the head with its body).
		si.fnBodies[name] = src[idx[1]:end]
	}
	for _, h := range heads {
		if !regexp.MustCompile(`@compute\b`).MatchString(h.attrs) {
			continue
		}
		e := entryInfo{name: h.name}
		if m := reWGSize.FindStringSubmatch(h.attrs); m != nil {
			for _, a := range strings.Split(m[1], ",") {
				if a = strings.TrimSpace(a); a != "" {
					e.wgSize = append(e.wgSize, a)
				}
			}
		}
		// Functions reachable from the entry, and the workgroup variables
		// they name.
		seen := map[string]bool{h.name: true}
		queue := []string{h.name}
		used := map[string]bool{}
		for len(queue) > 0 {
			f := queue[0]
			queue = queue[1:]
			for _, id := range reIdent.FindAllString(si.fnBodies[f], -1) {
				if _, ok := si.fnBodies[id]; ok && !seen[id] {
					seen[id] = true
					queue = append(queue, id)
				}
				if _, ok := si.wgVars[id]; ok {
					used[id] = true
				}
			}
		}
		for v := range used {
			e.wgVarSet = append(e.wgVarSet, v)
		}
		sort.Strings(e.wgVarSet)
		si.entries = append(si.entries, e)
	}
	return si
}

// evaluator computes integer expressions of literals, overrides (set or
// default) and consts; ok is false for anything else (then the limits
// cannot predict the adapter's answer).
type evaluator struct {
	si    shaderInfo
	set   map[string]int64
	depth int
}

func (ev *evaluator) ident(name string) (int64, bool) {
	if v, ok := ev.set[name]; ok {
		return v, true
	}
	expr, ok := ev.si.overrides[name]
	if !ok {
		expr, ok = ev.si.consts[name]
	}
	if !ok || expr == "" || ev.depth > 16 {
		return 0, false
	}
	ev.depth++
	defer func() { ev.depth-- }()
	return ev.eval(expr)
}

func (ev *evaluator) eval(expr string) (int64, bool) {
	toks := regexp.MustCompile(`\d+[ui]?|\w+|<<|>>|[-+*/%()]|\S`).FindAllString(expr, -1)
	p := &exprParser{toks: toks, ev: ev}
	v, ok := p.shift()
	return v, ok && p.pos == len(toks)
}

type exprParser struct {
	toks []string
	pos  int
	ev   *evaluator
}

func (p *exprParser) peek() string {
	if p.pos < len(p.toks) {
		return p.toks[p.pos]
	}
	return ""
}

func (p *exprParser) shift() (int64, bool) {
	a, ok := p.sum()
	for ok && (p.peek() == "<<" || p.peek() == ">>") {
		op := p.toks[p.pos]
		p.pos++
		var b int64
		if b, ok = p.sum(); !ok || b < 0 || b > 62 {
			return 0, false
		}
		if op == "<<" {
			a <<= b
		} else {
			a >>= b
		}
	}
	return a, ok
}

func (p *exprParser) sum() (int64, bool) {
	a, ok := p.product()
	for ok && (p.peek() == "+" || p.peek() == "-") {
		op := p.toks[p.pos]
		p.pos++
		var b int64
		if b, ok = p.product(); ok {
			if op == "+" {
				a += b
			} else {
				a -= b
			}
		}
	}
	return a, ok
}

func (p *exprParser) product() (int64, bool) {
	a, ok := p.atom()
	for ok && (p.peek() == "*" || p.peek() == "/" || p.peek() == "%") {
		op := p.toks[p.pos]
		p.pos++
		var b int64
		if b, ok = p.atom(); !ok {
			return 0, false
		}
		switch op {
		case "*":
			a *= b
		case "/", "%":
			if b == 0 {
				return 0, false
			}
			if op == "/" {
				a /= b
			} else {
				a %= b
			}
		}
	}
	return a, ok
}

func (p *exprParser) atom() (int64, bool) {
	t := p.peek()
	p.pos++
	switch {
	case t == "(":
		v, ok := p.shift()
		if !ok || p.peek() != ")" {
			return 0, false
		}
		p.pos++
		return v, true
	case t == "-":
		v, ok := p.atom()
		return -v, ok
	case reIntLiteral.MatchString(t):
		v, err := strconv.ParseInt(strings.TrimRight(t, "ui"), 10, 64)
		return v, err == nil
	case regexp.MustCompile(`^[A-Za-z_]\w*$`).MatchString(t):
		return p.ev.ident(t)
	}
	return 0, false
}

// typeLayout returns the size and alignment of a WGSL type (host-shareable
// layout rules, which workgroup memory follows closely enough to predict).
func (ev *evaluator) typeLayout(ty string) (size, align int64, ok bool) {
	ty = strings.TrimSpace(ty)
	switch ty {
	case "f32", "u32", "i32", "bool", "atomic<u32>", "atomic<i32>":
		return 4, 4, true
	case "f16":
		return 2, 2, true
	}
	if m := regexp.MustCompile(`^vec([234])(?:<\s*(\w+)\s*>|([fhiu]))$`).FindStringSubmatch(ty); m != nil {
		n, _ := strconv.ParseInt(m[1], 10, 64)
		el := int64(4)
		if m[2] == "f16" || m[3] == "h" {
			el = 2
		}
		al := n * el
		if n == 3 {
			al = 4 * el
		}
		return n * el, al, true
	}
	if m := regexp.MustCompile(`^mat([234])x([234])(?:<\s*(\w+)\s*>|([fh]))$`).FindStringSubmatch(ty); m != nil {
		cols, _ := strconv.ParseInt(m[1], 10, 64)
		col, al, _ := ev.typeLayout("vec" + m[2] + "<" + map[bool]string{true: "f16", false: "f32"}[m[3] == "f16" || m[4] == "h"] + ">")
		return cols * roundUp(col, al), al, true
	}
	if strings.HasPrefix(ty, "array<") && strings.HasSuffix(ty, ">") {
		inner := ty[len("array<") : len(ty)-1]
		// Split at the last top-level comma.
		depth, cut := 0, -1
		for i, c := range inner {
			switch c {
			case '<', '(':
				depth++
			case '>', ')':
				depth--
			case ',':
				if depth == 0 {
					cut = i
				}
			}
		}
		if cut < 0 {
			return 0, 0, false // runtime-sized: not allowed in workgroup memory
		}
		es, ea, ok := ev.typeLayout(inner[:cut])
		if !ok {
			return 0, 0, false
		}
		n, ok := ev.eval(inner[cut+1:])
		if !ok || n <= 0 {
			return 0, 0, false
		}
		return n * roundUp(es, ea), ea, true
	}
	if fields, found := ev.si.structs[ty]; found {
		var off, maxAlign int64 = 0, 1
		for _, f := range strings.Split(fields, ",") {
			f = strings.TrimSpace(f)
			if f == "" {
				continue
			}
			colon := strings.IndexByte(f, ':')
			if colon < 0 {
				return 0, 0, false
			}
			fs, fa, ok := ev.typeLayout(f[colon+1:])
			if !ok {
				return 0, 0, false
			}
			off = roundUp(off, fa) + fs
			maxAlign = max(maxAlign, fa)
		}
		return roundUp(off, maxAlign), maxAlign, true
	}
	return 0, 0, false
}

func roundUp(x, a int64) int64 { return (x + a - 1) / a * a }

// predict says whether the limits forbid the pipeline (reject) and why;
// known is false when the expressions could not be evaluated.
func predict(l compute.Limits, si shaderInfo, e entryInfo, set map[string]int64) (reject bool, why string, known bool) {
	ev := &evaluator{si: si, set: set}
	dims := []int64{1, 1, 1}
	for i, a := range e.wgSize {
		v, ok := ev.eval(a)
		if !ok || i > 2 {
			return false, "", false
		}
		dims[i] = v
	}
	maxDims := []int64{int64(l.MaxComputeWorkgroupSizeX), int64(l.MaxComputeWorkgroupSizeY), int64(l.MaxComputeWorkgroupSizeZ)}
	for i := range dims {
		if dims[i] > maxDims[i] {
			return true, fmt.Sprintf("workgroup size %d in dimension %d > %d", dims[i], i, maxDims[i]), true
		}
	}
	if inv := dims[0] * dims[1] * dims[2]; inv > int64(l.MaxComputeInvocationsPerWorkgroup) {
		return true, fmt.Sprintf("%d invocations > %d", inv, l.MaxComputeInvocationsPerWorkgroup), true
	}
	var total int64
	for _, v := range e.wgVarSet {
		size, align, ok := ev.typeLayout(si.wgVars[v])
		if !ok {
			return false, "", false
		}
		total += roundUp(size, max(align, 16))
	}
	if total > int64(l.MaxComputeWorkgroupStorageSize) {
		return true, fmt.Sprintf("workgroup storage %d bytes > %d", total, l.MaxComputeWorkgroupStorageSize), true
	}
	return false, "", true
}

// combos is the cartesian product of the sweeps of the swept overrides.
func combos(si shaderInfo) []map[string]int64 {
	var names []string
	for name, def := range si.overrides {
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

func TestShadersCompile(t *testing.T) {
	d := openDevice(t)
	start := time.Now()
	var compiled, rejected int
	var overLimit []string
	for _, name := range wgsl.Names() {
		src := wgsl.MustSource(name)
		if regexp.MustCompile(`(?m)^\s*enable\s+[^;]*\bf16\b`).MatchString(src) && !d.HasFeature(compute.FeatureShaderF16) {
			t.Logf("%s: skipped: needs shader-f16, which %q lacks", name, d.Info.Name)
			continue
		}
		si := parseShader(src)
		if len(si.entries) == 0 {
			t.Errorf("%s: no @compute entry point found", name)
			continue
		}
		m, err := d.CreateShaderModule(name, src)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		var names []string
		for _, e := range si.entries {
			names = append(names, e.name)
		}
		t.Logf("%s: entries %v, %d override combination(s) each", name, names, len(combos(si)))
		for _, e := range si.entries {
			for _, set := range combos(si) {
				consts := compute.Constants{}
				for k, v := range set {
					consts[k] = float64(v)
				}
				reject, why, known := predict(d.Limits, si, e, set)
				p, err := d.CreatePipeline(m, e.name, consts)
				what := fmt.Sprintf("%s:%s {%s}", name, e.name, consts.Key())
				switch {
				case err == nil:
					p.Release()
					compiled++
					if known && reject {
						// wgpu-native does not check workgroup size and
						// storage after resolving overrides
						// (gfx-rs/wgpu#8946): the sweeps must skip this.
						overLimit = append(overLimit, what+": "+why)
					}
				default:
					rejected++
					var ge *compute.GPUError
					if !strings.Contains(err.Error(), consts.Key()) || !errors.As(err, &ge) || strings.TrimSpace(ge.Message) == "" {
						t.Errorf("%s: rejection must name the values and the reason: %v", what, err)
					}
					switch {
					case !known:
						t.Logf("%s: rejected (limits could not predict): %v", what, err)
					case !reject:
						t.Errorf("%s: rejected although within the limits: %v", what, err)
					default:
						t.Logf("%s: rejected as predicted (%s)", what, why)
					}
				}
			}
		}
		m.Release()
	}
	t.Logf("%d pipelines compiled, %d rejected, in %v", compiled, rejected, time.Since(start).Round(time.Millisecond))
	for _, s := range overLimit {
		t.Logf("accepted past the limits (wgpu-native does not validate; do not dispatch): %s", s)
	}
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
	si := parseShader(src)
	if len(si.entries) != 2 || si.entries[0].name != "tiled" || si.entries[1].name != "flat" {
		t.Fatalf("entries %+v", si.entries)
	}
	if got := strings.Join(si.entries[0].wgVarSet, ","); got != "pairs,tile" {
		t.Errorf("tiled reaches %q, want pairs,tile", got)
	}
	if len(si.entries[1].wgVarSet) != 0 {
		t.Errorf("flat reaches %v, want none", si.entries[1].wgVarSet)
	}
	if got := len(combos(si)); got != len(sweepWorkgroup)*len(sweepTile) {
		t.Errorf("%d combinations, want WG × TILE = %d (T4 is derived, K unswept)", got, len(sweepWorkgroup)*len(sweepTile))
	}
	lim := compute.Limits{MaxComputeWorkgroupSizeX: 1024, MaxComputeWorkgroupSizeY: 1024, MaxComputeWorkgroupSizeZ: 64,
		MaxComputeInvocationsPerWorkgroup: 256, MaxComputeWorkgroupStorageSize: 16384}
	for _, c := range []struct {
		set    map[string]int64
		reject bool
	}{
		{map[string]int64{"WG": 64, "TILE": 32}, false},  // 8×8 = 64 invocations; 8·32·4 + 64·32 bytes
		{map[string]int64{"WG": 64, "TILE": 128}, true},  // 32×32 = 1024 invocations > 256
		{map[string]int64{"WG": 512, "TILE": 16}, true},  // pairs: 512·32 bytes > 16 KiB
		{map[string]int64{"WG": 128, "TILE": 64}, false}, // 16×16; 2048 + 4096 bytes
	} {
		reject, why, known := predict(lim, si, si.entries[0], c.set)
		if !known || reject != c.reject {
			t.Errorf("%v: predicted reject=%v (%s) known=%v, want %v", c.set, reject, why, known, c.reject)
		}
	}
	if _, _, known := predict(lim, si, entryInfo{wgSize: []string{"max(WG, 2)"}}, nil); known {
		t.Error("a call in @workgroup_size was predicted")
	}
}

// What the adapter rejects comes back as an error naming the values and
// the reason, and the device stays usable. Past-limit workgroup sizes and
// storage are predicted by the limits; wgpu-native 29 does not reject them
// after resolving overrides (gfx-rs/wgpu#8946), so for those the test only
// records what the adapter did.
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
	si := parseShader(src)
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
	checkRejection := func(what string, consts compute.Constants, err error, reason string) {
		t.Helper()
		var ge *compute.GPUError
		if !strings.Contains(err.Error(), consts.Key()) || !errors.As(err, &ge) || !strings.Contains(ge.Message, reason) {
			t.Errorf("%s: error must name the values %q and the reason %q: %v", what, consts.Key(), reason, err)
		}
	}
	for _, c := range []struct {
		set    map[string]int64
		reject bool
	}{
		{map[string]int64{"WG": 64, "TILE": 16}, false},
		{map[string]int64{"WG": 2 * int64(l.MaxComputeInvocationsPerWorkgroup), "TILE": 16}, true},
		{map[string]int64{"WG": 64, "TILE": side}, true},
	} {
		consts := compute.Constants{"WG": float64(c.set["WG"]), "TILE": float64(c.set["TILE"])}
		reject, why, known := predict(l, si, si.entries[0], c.set)
		if !known || reject != c.reject {
			t.Fatalf("%v: predicted reject=%v (%s), known=%v; want %v", c.set, reject, why, known, c.reject)
		}
		p, err := d.CreatePipeline(m, "main", consts)
		switch {
		case err == nil:
			p.Release()
			if c.reject {
				t.Logf("{%s}: accepted by %q although %s (not validated after override resolution, gfx-rs/wgpu#8946)", consts.Key(), d.Info.Name, why)
			}
		case !c.reject:
			t.Errorf("{%s}: rejected within the limits: %v", consts.Key(), err)
		default:
			checkRejection(why, consts, err, "")
			t.Logf("{%s} rejected (%s): %v", consts.Key(), why, err)
		}
	}
	// Rejections the adapter does make.
	for _, c := range []struct {
		consts compute.Constants
		reason string
	}{
		{compute.Constants{"WG": 0}, "strictly positive"},
		{compute.Constants{"NOT_AN_OVERRIDE": 1}, "NOT_AN_OVERRIDE"},
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
	p, err := d.CreatePipeline(m, "main", compute.Constants{"WG": 32})
	if err != nil {
		t.Fatalf("device unusable after rejections: %v", err)
	}
	p.Release()
}
