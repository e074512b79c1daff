package wgpu

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// WGSLBinding is one resource variable of a WGSL module, as
// `@group(G) @binding(B) var<SPACE, ACCESS> NAME: TYPE;` declares it.
type WGSLBinding struct {
	Group, Binding uint32
	Name           string
	Space          string // "storage" or "uniform" (others: what the text says)
	Access         string // "read", "read_write" or "" (uniform)
	Type           string // e.g. "array<f32>", "array<vec4<f32>>"
}

// Scalar returns the scalar type of the binding's elements ("f32", "u32",
// "i32", "f16"; atomics count as their scalar) and the number of scalars
// per array element (4 for vec4<f32>), or ok false when the type is not an
// array of scalars or vectors.
func (b WGSLBinding) Scalar() (scalar string, width int, ok bool) {
	m := reArrayElem.FindStringSubmatch(strings.ReplaceAll(b.Type, " ", ""))
	if m == nil {
		return "", 0, false
	}
	elem := m[1]
	if a := reAtomic.FindStringSubmatch(elem); a != nil {
		elem = a[1]
	}
	if v := reVecType.FindStringSubmatch(elem); v != nil {
		w, _ := strconv.Atoi(v[1])
		s := v[2]
		if s == "" {
			s = map[string]string{"f": "f32", "h": "f16", "i": "i32", "u": "u32"}[v[3]]
		}
		return s, w, true
	}
	switch elem {
	case "f32", "u32", "i32", "f16":
		return elem, 1, true
	}
	return "", 0, false
}

var (
	reVarDecl = regexp.MustCompile(`((?:@\w+\s*\(\s*\d+\s*\)\s*)+)var\s*<\s*(\w+)\s*(?:,\s*(\w+)\s*)?>\s*(\w+)\s*:\s*([^;]+);`)
	reAttrNum = regexp.MustCompile(`@(\w+)\s*\(\s*(\d+)\s*\)`)
	// array<T> or array<T, N>: T may itself hold <…>.
	reArrayElem = regexp.MustCompile(`^array<(.+?)(?:,\d+)?>$`)
	reAtomic    = regexp.MustCompile(`^atomic<(\w+)>$`)
)

// WGSLModuleInfo is what a caller needs to bind and dispatch a WGSL
// compute module it did not write: its resource bindings, compute entry
// points and override constants.
type WGSLModuleInfo struct {
	Bindings  []WGSLBinding     // sorted by group, then binding
	Entries   []string          // @compute entry points, in source order
	Overrides map[string]string // name → default expression ("" if none)
	m         *wgslModule
	uses      map[string]map[string]bool // entry → identifiers its reachable functions name
}

// ScanWGSL reads the declarations of src that binding it needs. The scan
// is textual (comments stripped); naga validates the module when a
// pipeline is created.
func ScanWGSL(src string) (*WGSLModuleInfo, error) {
	m := scanWGSL(src)
	info := &WGSLModuleInfo{Overrides: m.overrides, m: m, uses: map[string]map[string]bool{}}
	clean := reLineComment.ReplaceAllString(reBlockComment.ReplaceAllString(src, ""), "")
	seen := map[[2]uint32]string{}
	for _, x := range reVarDecl.FindAllStringSubmatch(clean, -1) {
		b := WGSLBinding{Space: x[2], Access: x[3], Name: x[4], Type: strings.TrimSpace(x[5])}
		var hasG, hasB bool
		for _, a := range reAttrNum.FindAllStringSubmatch(x[1], -1) {
			v, err := strconv.ParseUint(a[2], 10, 32)
			if err != nil {
				return nil, fmt.Errorf("wgpu: ScanWGSL: %s: %q: %w", b.Name, a[0], err)
			}
			switch a[1] {
			case "group":
				b.Group, hasG = uint32(v), true
			case "binding":
				b.Binding, hasB = uint32(v), true
			}
		}
		if !hasG || !hasB {
			continue
		}
		if b.Space == "storage" && b.Access == "" {
			b.Access = "read"
		}
		k := [2]uint32{b.Group, b.Binding}
		if prev, dup := seen[k]; dup {
			return nil, fmt.Errorf("wgpu: ScanWGSL: %s and %s both at @group(%d) @binding(%d)", prev, b.Name, b.Group, b.Binding)
		}
		seen[k] = b.Name
		info.Bindings = append(info.Bindings, b)
	}
	sort.Slice(info.Bindings, func(i, j int) bool {
		bi, bj := info.Bindings[i], info.Bindings[j]
		return bi.Group < bj.Group || bi.Group == bj.Group && bi.Binding < bj.Binding
	})
	for _, e := range m.entries {
		info.Entries = append(info.Entries, e.name)
		used := map[string]bool{}
		seenFn := map[string]bool{e.name: true}
		queue := []string{e.name}
		for len(queue) > 0 {
			f := queue[0]
			queue = queue[1:]
			for _, id := range reIdent.FindAllString(m.fnBodies[f], -1) {
				used[id] = true
				if _, ok := m.fnBodies[id]; ok && !seenFn[id] {
					seenFn[id] = true
					queue = append(queue, id)
				}
			}
		}
		info.uses[e.name] = used
	}
	return info, nil
}

// Uses reports whether entry point entry (or a function it calls) names
// the variable name: only such bindings are in its pipeline's layout.
func (i *WGSLModuleInfo) Uses(entry, name string) bool { return i != nil && i.uses[entry][name] }

// EvalInt evaluates an integer expression of literals, override constants
// (set overrides their defaults) and consts of the module, with WGSL's
// + - * / % << >> and parentheses.
func (i *WGSLModuleInfo) EvalInt(expr string, set map[string]int64) (int64, error) {
	if i == nil {
		return 0, fmt.Errorf("wgpu: EvalInt: nil module info")
	}
	ev := &wgslEval{m: i.m, set: set}
	v, ok := ev.eval(expr)
	if !ok {
		return 0, fmt.Errorf("%q is not an integer expression of literals and the module's constants", expr)
	}
	return v, nil
}
