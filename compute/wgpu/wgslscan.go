package wgpu

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// wgpu-native 29 does not re-validate a pipeline's workgroup size or
// workgroup memory after override constants are applied
// (gfx-rs/wgpu#8946): a WG of 4096 on an adapter whose limit is 1024 is
// accepted and then dispatched with undefined results. CreatePipeline
// therefore repeats those WebGPU checks on the host from the WGSL text: a
// scan of the module's override and const declarations, structs,
// workgroup variables and entry points, and an integer evaluator for the
// expressions that size them.
//
// The scan is deliberately partial: an expression or type it cannot
// evaluate (a function call, a float, a runtime-sized array) makes the
// check unknown, never a rejection, so it can only turn a pipeline that
// the adapter would run incorrectly into an ErrLimit; naga validates
// everything else.

var (
	reLineComment  = regexp.MustCompile(`//[^\n]*`)
	reBlockComment = regexp.MustCompile(`(?s)/\*.*?\*/`)
	reOverride     = regexp.MustCompile(`(?m)^\s*(?:@id\(\s*\d+\s*\)\s*)?override\s+(\w+)\s*(?::\s*[\w<>]+)?\s*(?:=\s*([^;]+))?;`)
	reConst        = regexp.MustCompile(`(?m)^\s*const\s+(\w+)\s*(?::\s*[\w<>]+)?\s*=\s*([^;]+);`)
	reFn           = regexp.MustCompile(`((?:@\w+\s*(?:\([^)]*\))?\s*)*)\bfn\s+(\w+)\s*\(`)
	reComputeAttr  = regexp.MustCompile(`@compute\b`)
	reWorkgroupVar = regexp.MustCompile(`var\s*<\s*workgroup\s*>\s*(\w+)\s*:\s*([^;]+);`)
	reStruct       = regexp.MustCompile(`struct\s+(\w+)\s*\{([^}]*)\}`)
	reIdent        = regexp.MustCompile(`\b[A-Za-z_]\w*\b`)
	reIdentOnly    = regexp.MustCompile(`^[A-Za-z_]\w*$`)
	reWGSize       = regexp.MustCompile(`@workgroup_size\s*\(([^)]*)\)`)
	reIntLiteral   = regexp.MustCompile(`^\s*(\d+)[ui]?\s*$`)
	reExprToken    = regexp.MustCompile(`\d+[ui]?|\w+|<<|>>|[-+*/%()]|\S`)
	reVecType      = regexp.MustCompile(`^vec([234])(?:<\s*(\w+)\s*>|([fhiu]))$`)
	reMatType      = regexp.MustCompile(`^mat([234])x([234])(?:<\s*(\w+)\s*>|([fh]))$`)
)

// wgslModule is what the limit checks need to know of one WGSL module.
type wgslModule struct {
	overrides map[string]string // name → default expression ("" if none)
	consts    map[string]string
	structs   map[string]string // name → field list
	wgVars    map[string]string // workgroup variable → type
	fnBodies  map[string]string
	entries   []wgslEntry
}

// wgslEntry is one @compute entry point.
type wgslEntry struct {
	name     string
	wgSize   []string // @workgroup_size arguments
	wgVarSet []string // workgroup variables the entry can reach, sorted
	// idents are the identifiers the entry can reach: in its functions,
	// its @workgroup_size, its workgroup variables' types, and the
	// initializers of the constants and overrides among them.
	idents map[string]bool
}

// entryUses reports whether entry can reach the override name (true when
// the entry is not found: nothing is dropped on a guess). Dawn refuses a
// pipeline constant its entry point does not use.
func (m *wgslModule) entryUses(entry, name string) bool {
	for _, e := range m.entries {
		if e.name == entry {
			return e.idents[name]
		}
	}
	return true
}

// scanWGSL finds the declarations and entry points of src.
func scanWGSL(src string) *wgslModule {
	src = reBlockComment.ReplaceAllString(src, "")
	src = reLineComment.ReplaceAllString(src, "")
	m := &wgslModule{overrides: map[string]string{}, consts: map[string]string{}, structs: map[string]string{}, wgVars: map[string]string{}, fnBodies: map[string]string{}}
	for _, x := range reOverride.FindAllStringSubmatch(src, -1) {
		m.overrides[x[1]] = strings.TrimSpace(x[2])
	}
	for _, x := range reConst.FindAllStringSubmatch(src, -1) {
		m.consts[x[1]] = strings.TrimSpace(x[2])
	}
	for _, x := range reStruct.FindAllStringSubmatch(src, -1) {
		m.structs[x[1]] = x[2]
	}
	for _, x := range reWorkgroupVar.FindAllStringSubmatch(src, -1) {
		m.wgVars[x[1]] = strings.TrimSpace(x[2])
	}
	for _, h := range m.scanFunctions(src) {
		if reComputeAttr.MatchString(h.attrs) {
			m.entries = append(m.entries, m.scanEntry(h))
		}
	}
	return m
}

// fnHead is a function's attributes and name.
type fnHead struct{ attrs, name string }

// scanFunctions records every function's body (from its head to the '}'
// that matches its first '{') and returns their heads in source order.
func (m *wgslModule) scanFunctions(src string) []fnHead {
	var heads []fnHead
	for _, idx := range reFn.FindAllStringSubmatchIndex(src, -1) {
		attrs, name := src[idx[2]:idx[3]], src[idx[4]:idx[5]]
		heads = append(heads, fnHead{attrs, name})
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
		m.fnBodies[name] = src[idx[1]:end]
	}
	return heads
}

// reachable returns the functions reachable from entry (itself included)
// and the workgroup variables they name.
func (m *wgslModule) reachable(entry string) (fns, wgVars map[string]bool) {
	fns = map[string]bool{entry: true}
	queue := []string{entry}
	wgVars = map[string]bool{}
	for len(queue) > 0 {
		f := queue[0]
		queue = queue[1:]
		for _, id := range reIdent.FindAllString(m.fnBodies[f], -1) {
			if _, ok := m.fnBodies[id]; ok && !fns[id] {
				fns[id] = true
				queue = append(queue, id)
			}
			if _, ok := m.wgVars[id]; ok {
				wgVars[id] = true
			}
		}
	}
	return fns, wgVars
}

// scanEntry is compute entry point h: its workgroup size, the workgroup
// variables it uses and every identifier it names, directly or through
// the overrides, constants and structs those name.
func (m *wgslModule) scanEntry(h fnHead) wgslEntry {
	e := wgslEntry{name: h.name}
	if x := reWGSize.FindStringSubmatch(h.attrs); x != nil {
		for _, a := range strings.Split(x[1], ",") {
			if a = strings.TrimSpace(a); a != "" {
				e.wgSize = append(e.wgSize, a)
			}
		}
	}
	fns, used := m.reachable(h.name)
	e.idents = map[string]bool{}
	var pending []string
	addIdents := func(text string) {
		for _, id := range reIdent.FindAllString(text, -1) {
			if !e.idents[id] {
				e.idents[id] = true
				pending = append(pending, id)
			}
		}
	}
	for f := range fns {
		addIdents(m.fnBodies[f])
	}
	addIdents(strings.Join(e.wgSize, " "))
	for v := range used {
		addIdents(m.wgVars[v])
	}
	for len(pending) > 0 {
		id := pending[0]
		pending = pending[1:]
		if x, ok := m.overrides[id]; ok {
			addIdents(x)
		}
		if x, ok := m.consts[id]; ok {
			addIdents(x)
		}
		if x, ok := m.structs[id]; ok {
			addIdents(x)
		}
	}
	for v := range used {
		e.wgVarSet = append(e.wgVarSet, v)
	}
	sort.Strings(e.wgVarSet)
	return e
}

func (m *wgslModule) entry(name string) (wgslEntry, bool) {
	for _, e := range m.entries {
		if e.name == name {
			return e, true
		}
	}
	return wgslEntry{}, false
}

// exceeds says whether entry, with the overrides in set, needs more than
// lim allows, and why; known is false when the expressions could not be
// evaluated (or there is no such entry point: naga reports that).
func (m *wgslModule) exceeds(lim Limits, entry string, set map[string]int64) (why string, known bool) {
	e, ok := m.entry(entry)
	if !ok {
		return "", false
	}
	ev := &wgslEval{m: m, set: set}
	dims := []int64{1, 1, 1}
	for i, a := range e.wgSize {
		v, ok := ev.eval(a)
		if !ok || i > 2 {
			return "", false
		}
		dims[i] = v
	}
	size := fmt.Sprintf("@workgroup_size(%s) = %d×%d×%d", strings.Join(e.wgSize, ", "), dims[0], dims[1], dims[2])
	maxDims := []int64{int64(lim.MaxComputeWorkgroupSizeX), int64(lim.MaxComputeWorkgroupSizeY), int64(lim.MaxComputeWorkgroupSizeZ)}
	for i := range dims {
		if dims[i] > maxDims[i] {
			return fmt.Sprintf("%s: %d > maxComputeWorkgroupSize%c %d", size, dims[i], "XYZ"[i], maxDims[i]), true
		}
	}
	if inv := dims[0] * dims[1] * dims[2]; inv > int64(lim.MaxComputeInvocationsPerWorkgroup) {
		return fmt.Sprintf("%s: %d invocations > maxComputeInvocationsPerWorkgroup %d", size, inv, lim.MaxComputeInvocationsPerWorkgroup), true
	}
	// Workgroup memory as WebGPU counts it: each statically used variable
	// rounded up to 16 bytes.
	var total int64
	var parts []string
	for _, v := range e.wgVarSet {
		size, align, ok := ev.typeLayout(m.wgVars[v])
		if !ok {
			return "", false
		}
		n := roundUp(size, max(align, 16))
		total += n
		parts = append(parts, fmt.Sprintf("%s %d", v, n))
	}
	if total > int64(lim.MaxComputeWorkgroupStorageSize) {
		return fmt.Sprintf("workgroup memory %d bytes (%s) > maxComputeWorkgroupStorageSize %d", total, strings.Join(parts, " + "), lim.MaxComputeWorkgroupStorageSize), true
	}
	return "", true
}

// checkLimits returns an error wrapping ErrLimit when the pipeline for
// entry with consts would exceed lim.
func (m *wgslModule) checkLimits(lim Limits, entry string, consts Constants) error {
	set := make(map[string]int64, len(consts))
	for k, v := range consts {
		if v != float64(int64(v)) {
			return nil // not an integer: naga judges it
		}
		set[k] = int64(v)
	}
	if why, known := m.exceeds(lim, entry, set); known && why != "" {
		return fmt.Errorf("%s: %w", why, ErrLimit)
	}
	return nil
}

// wgslEval computes integer expressions of literals, overrides (set or
// default) and consts; ok is false for anything else.
type wgslEval struct {
	m     *wgslModule
	set   map[string]int64
	depth int
}

func (ev *wgslEval) ident(name string) (int64, bool) {
	if v, ok := ev.set[name]; ok {
		return v, true
	}
	expr, ok := ev.m.overrides[name]
	if !ok {
		expr, ok = ev.m.consts[name]
	}
	if !ok || expr == "" || ev.depth > 16 {
		return 0, false
	}
	ev.depth++
	defer func() { ev.depth-- }()
	return ev.eval(expr)
}

func (ev *wgslEval) eval(expr string) (int64, bool) {
	toks := reExprToken.FindAllString(expr, -1)
	p := &exprParser{toks: toks, ev: ev}
	v, ok := p.shift()
	return v, ok && p.pos == len(toks)
}

// exprParser is a recursive-descent parser of WGSL's integer operators:
// shifts bind loosest, then + -, then * / %.
type exprParser struct {
	toks []string
	pos  int
	ev   *wgslEval
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
	case reIdentOnly.MatchString(t):
		return p.ev.ident(t)
	}
	return 0, false
}

// typeLayout returns the size and alignment of a WGSL type (host-shareable
// layout rules, which workgroup memory follows).
func (ev *wgslEval) typeLayout(ty string) (size, align int64, ok bool) {
	ty = strings.TrimSpace(ty)
	switch ty {
	case "f32", "u32", "i32", "bool", "atomic<u32>", "atomic<i32>":
		return 4, 4, true
	case "f16":
		return 2, 2, true
	case "f64": // wgpu-native's shader-f64
		return 8, 8, true
	}
	if m := reVecType.FindStringSubmatch(ty); m != nil {
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
	if m := reMatType.FindStringSubmatch(ty); m != nil {
		cols, _ := strconv.ParseInt(m[1], 10, 64)
		el := "f32"
		if m[3] == "f16" || m[4] == "h" {
			el = "f16"
		}
		col, al, _ := ev.typeLayout("vec" + m[2] + "<" + el + ">")
		return cols * roundUp(col, al), al, true
	}
	if strings.HasPrefix(ty, "array<") && strings.HasSuffix(ty, ">") {
		return ev.arrayLayout(ty[len("array<") : len(ty)-1])
	}
	if fields, found := ev.m.structs[ty]; found {
		return ev.structLayout(fields)
	}
	return 0, 0, false
}

// arrayLayout is the layout of array<inner>: a fixed-size array whose
// count evaluates; a runtime-sized one is not allowed in workgroup memory.
func (ev *wgslEval) arrayLayout(inner string) (size, align int64, ok bool) {
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
		return 0, 0, false
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

// structLayout lays out a struct's comma-separated fields in order, each
// at its alignment; the size rounds up to the largest alignment.
func (ev *wgslEval) structLayout(fields string) (size, align int64, ok bool) {
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

func roundUp(x, a int64) int64 { return (x + a - 1) / a * a }
