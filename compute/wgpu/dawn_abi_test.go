package wgpu

// Checks of dawn_abi.h, and of the structs dawn.c passes to Dawn as
// wgpu-native's, against webgpu.py: the ctypes description of Dawn's
// webgpu.h generated from it and shipped in the pinned wheel
// (third_party/dawn/webgpu.py, scripts/setup-dawn.sh). Its structs are
// packed with explicit padding, so ctypes gives each field's real offset.

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// dawnPy is third_party/dawn/webgpu.py; the test is skipped, with the
// reason, when Dawn is not installed.
func dawnPy(t *testing.T) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("..", "..", "third_party", "dawn", "webgpu.py"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); err != nil {
		t.Skipf("Dawn is not installed (no %s): run scripts/setup-dawn.sh", p)
	}
	return p
}

// pyDump runs webgpu.py (with its library load stubbed out) and prints,
// for each "kind name" query on stdin, the size and field offsets of
// struct_<name> ("struct"), or an enum constant's value ("const").
const pyDump = `
import ctypes, sys
class _Fn:
    def __init__(self): self.restype = None; self.argtypes = None
class _Lib:
    def __getattr__(self, name): return _Fn()
ctypes.CDLL = lambda *a, **k: _Lib()
g = {"__file__": sys.argv[1], "__name__": "webgpu"}
exec(compile(open(sys.argv[1]).read(), sys.argv[1], "exec"), g)
for line in sys.stdin:
    kind, name = line.split()
    if kind == "struct":
        c = g.get("struct_" + name)
        if c is None:
            print("struct %s missing" % name); continue
        print("struct %s size %d" % (name, ctypes.sizeof(c)))
        for f in c._fields_:
            if not f[0].startswith("PADDING"):
                print("field %s.%s offset %d size %d" % (name, f[0], getattr(c, f[0]).offset, getattr(c, f[0]).size))
    else:
        v = g.get(name)
        print("const %s %s" % (name, "missing" if v is None else int(v)))
`

func runPyDump(t *testing.T, py string, queries []string) map[string]string {
	t.Helper()
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Fatalf("python3 is needed to read %s: %v", py, err)
	}
	cmd := exec.Command(python, "-c", pyDump, py)
	cmd.Stdin = strings.NewReader(strings.Join(queries, "\n") + "\n")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("reading %s: %v", py, err)
	}
	return dumpLines(string(out))
}

// dumpLines keys each line by its first two words ("struct X", "field
// X.f", "const C").
func dumpLines(s string) map[string]string {
	m := map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(s))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) >= 3 {
			m[f[0]+" "+f[1]] = strings.Join(f[2:], " ")
		}
	}
	return m
}

type dawnDecl struct {
	structs map[string][]string // C name -> field names
	order   []string
	consts  []string // enum constants
}

var (
	reDawnStruct = regexp.MustCompile(`^typedef struct (Dawn\w+) \{$`)
	reDawnEnum   = regexp.MustCompile(`^typedef enum (Dawn\w+) \{$`)
	reDawnField  = regexp.MustCompile(`^[^;(]+?\b(\w+);$`)
	reDawnConst  = regexp.MustCompile(`^(Dawn\w+) = (0x[0-9A-Fa-f]+|\d+),$`)
)

func parseDawnABI(t *testing.T) dawnDecl {
	t.Helper()
	b, err := os.ReadFile("dawn_abi.h")
	if err != nil {
		t.Fatal(err)
	}
	d := dawnDecl{structs: map[string][]string{}}
	cur, inEnum := "", false
	for _, raw := range strings.Split(string(b), "\n") {
		line := strings.TrimSpace(raw)
		switch {
		case reDawnStruct.MatchString(line):
			cur = reDawnStruct.FindStringSubmatch(line)[1]
			d.order = append(d.order, cur)
		case reDawnEnum.MatchString(line):
			inEnum = true
		case strings.HasPrefix(line, "} "):
			cur, inEnum = "", false
		case cur != "" && reDawnField.MatchString(line):
			d.structs[cur] = append(d.structs[cur], reDawnField.FindStringSubmatch(line)[1])
		case cur != "" && line != "":
			t.Fatalf("dawn_abi.h: not a field of %s: %q", cur, line)
		case inEnum && reDawnConst.MatchString(line):
			c := reDawnConst.FindStringSubmatch(line)[1]
			if !strings.HasSuffix(c, "_Force32") {
				d.consts = append(d.consts, c)
			}
		case inEnum && line != "":
			t.Fatalf("dawn_abi.h: not an enum constant: %q", line)
		}
	}
	if len(d.order) == 0 || len(d.consts) == 0 {
		t.Fatal("dawn_abi.h: no structs or constants found")
	}
	return d
}

// dawnName is Dawn's own name of a dawn_abi.h declaration: DawnLimits is
// WGPULimits, DawnTogglesDescriptor is WGPUDawnTogglesDescriptor.
func dawnName(c string, known map[string]string) string {
	rest := strings.TrimPrefix(c, "Dawn")
	if _, ok := known["struct WGPU"+rest]; ok || !strings.HasPrefix(rest, "Toggles") {
		return "WGPU" + rest
	}
	return "WGPUDawn" + rest
}

// cLayout compiles a program printing the layout of the given structs
// (with their fields) and the constants, as pyDump prints them, naming
// each by name(c).
func cLayout(t *testing.T, header string, structs map[string][]string, consts []string, name func(string) string) map[string]string {
	t.Helper()
	var src strings.Builder
	fmt.Fprintf(&src, "#include <stdio.h>\n#include <stddef.h>\n#include %q\nint main(void) {\n", header)
	var names []string
	for s := range structs {
		names = append(names, s)
	}
	sort.Strings(names)
	for _, s := range names {
		fmt.Fprintf(&src, "\tprintf(\"struct %s size %%zu\\n\", sizeof(%s));\n", name(s), s)
		for _, f := range structs[s] {
			fmt.Fprintf(&src, "\tprintf(\"field %s.%s offset %%zu size %%zu\\n\", offsetof(%s, %s), sizeof(((%s *)0)->%s));\n",
				name(s), f, s, f, s, f)
		}
	}
	for _, c := range consts {
		fmt.Fprintf(&src, "\tprintf(\"const %s %%lld\\n\", (long long)%s);\n", name(c), c)
	}
	src.WriteString("\treturn 0;\n}\n")
	dir, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	return dumpLines(compileAndRun(t, "dawnlayout", src.String(), "-I"+dir))
}

func compareDumps(t *testing.T, what string, ours, dawn map[string]string) {
	t.Helper()
	var keys []string
	for k := range ours {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if got, want := ours[k], dawn[k]; got != want {
			if want == "" || want == "missing" {
				t.Errorf("%s: %s is not in Dawn's webgpu.py", what, k)
			} else {
				t.Errorf("%s: %s: ours %s, Dawn's %s", what, k, got, want)
			}
		}
	}
}

// TestDawnABI: every struct and constant of dawn_abi.h has Dawn's size,
// field offsets and values.
func TestDawnABI(t *testing.T) {
	py := dawnPy(t)
	d := parseDawnABI(t)
	probe := map[string]string{}
	var q []string
	for _, s := range d.order {
		rest := strings.TrimPrefix(s, "Dawn")
		q = append(q, "struct WGPU"+rest, "struct WGPUDawn"+rest)
	}
	for k, v := range runPyDump(t, py, q) {
		if v != "missing" {
			probe[k] = v
		}
	}
	name := func(c string) string {
		if strings.HasPrefix(c, "Dawn") && !strings.Contains(c, "_") {
			return dawnName(c, probe)
		}
		return "WGPU" + strings.TrimPrefix(c, "Dawn")
	}
	q = nil
	for _, s := range d.order {
		q = append(q, "struct "+name(s))
	}
	for _, c := range d.consts {
		q = append(q, "const "+name(c))
	}
	dawn := runPyDump(t, py, q)
	ours := cLayout(t, "dawn_abi.h", d.structs, d.consts, name)
	compareDumps(t, "dawn_abi.h", ours, dawn)
}

// dawnShared are the structs of wgpu_abi.h that dawn.c passes to Dawn
// unchanged, with Dawn's name where it differs (its "2" callback infos).
var dawnShared = map[string]string{
	"WGPUStringView":                  "WGPUStringView",
	"WGPUChainedStruct":               "WGPUChainedStruct",
	"WGPUFuture":                      "WGPUFuture",
	"WGPUSupportedFeatures":           "WGPUSupportedFeatures",
	"WGPUBufferDescriptor":            "WGPUBufferDescriptor",
	"WGPUBindGroupEntry":              "WGPUBindGroupEntry",
	"WGPUBindGroupDescriptor":         "WGPUBindGroupDescriptor",
	"WGPUConstantEntry":               "WGPUConstantEntry",
	"WGPUComputeState":                "WGPUComputeState",
	"WGPUComputePipelineDescriptor":   "WGPUComputePipelineDescriptor",
	"WGPUQuerySetDescriptor":          "WGPUQuerySetDescriptor",
	"WGPUShaderModuleDescriptor":      "WGPUShaderModuleDescriptor",
	"WGPUShaderSourceWGSL":            "WGPUShaderSourceWGSL",
	"WGPUQueueDescriptor":             "WGPUQueueDescriptor",
	"WGPUBufferMapCallbackInfo":       "WGPUBufferMapCallbackInfo2",
	"WGPUDeviceLostCallbackInfo":      "WGPUDeviceLostCallbackInfo2",
	"WGPUPopErrorScopeCallbackInfo":   "WGPUPopErrorScopeCallbackInfo2",
	"WGPURequestDeviceCallbackInfo":   "WGPURequestDeviceCallbackInfo2",
	"WGPUUncapturedErrorCallbackInfo": "WGPUUncapturedErrorCallbackInfo2",
}

// TestDawnSharesWgpuNativeABI: the structs dawn.c hands to Dawn as
// wgpu-native's have Dawn's layout, and every constant of wgpu_abi.h that
// Dawn's webgpu.h also has (other than the feature numbers, which dawn.c
// translates) has Dawn's value.
func TestDawnSharesWgpuNativeABI(t *testing.T) {
	py := dawnPy(t)
	h, err := parseABIHeader("wgpu_abi.h")
	if err != nil {
		t.Fatal(err)
	}
	structs := map[string][]string{}
	for _, s := range h.structs {
		if _, ok := dawnShared[s.name]; !ok {
			continue
		}
		for _, f := range s.fields {
			structs[s.name] = append(structs[s.name], f.name)
		}
	}
	if len(structs) != len(dawnShared) {
		t.Fatalf("wgpu_abi.h declares %d of the %d structs of dawnShared", len(structs), len(dawnShared))
	}
	var consts, q []string
	for _, e := range h.enums {
		if e.name == "WGPUFeatureName" || strings.HasPrefix(e.name, "WGPUNative") {
			continue
		}
		for _, c := range e.consts {
			if !strings.HasSuffix(c.name, "_Force32") {
				consts = append(consts, c.name)
			}
		}
	}
	for _, c := range h.consts {
		if strings.HasPrefix(c.name, "WGPUMapMode_") {
			consts = append(consts, c.name)
		}
	}
	for _, s := range dawnShared {
		q = append(q, "struct "+s)
	}
	for _, c := range consts {
		q = append(q, "const "+c)
	}
	dawn := runPyDump(t, py, q)
	// Constants Dawn's header lacks (wgpu-native's newer enumerators) are
	// never passed to Dawn; only those it has must agree.
	var shared []string
	for _, c := range consts {
		if v := dawn["const "+c]; v != "" && v != "missing" {
			shared = append(shared, c)
		}
	}
	if len(shared) < 20 {
		t.Fatalf("only %d of wgpu_abi.h's %d constants found in Dawn's webgpu.py", len(shared), len(consts))
	}
	// The callback infos' fields are named alike in both; Dawn's names
	// of the structs differ.
	ours := cLayout(t, "wgpu_abi.h", structs, shared, func(c string) string {
		if d, ok := dawnShared[c]; ok {
			return d
		}
		return c
	})
	compareDumps(t, "wgpu_abi.h as Dawn's", ours, dawn)
}

// TestDawnFeatureNames: every feature of Dawn's webgpu.h has a name as
// dawn.c hands it on: the standard ones through wgpu-native's numbers,
// Dawn's own as "dawn:" and their name in kebab case.
func TestDawnFeatureNames(t *testing.T) {
	py := dawnPy(t)
	src, err := os.ReadFile(py)
	if err != nil {
		t.Fatal(err)
	}
	// dawn.c's table of the standard features.
	mapped := map[uint32]Feature{1: 0x2, 2: 0x3, 3: 0x9, 4: 0x4, 5: 0x6, 6: 0x7, 7: 0xA, 8: 0xB, 9: 0xC, 10: 0xD, 11: 0xE, 12: 0xF, 13: 0x12, 14: 0x60000, 0x50008: 0x11, 0x50036: 0x10}
	n := 0
	for _, m := range regexp.MustCompile(`(?m)^WGPUFeatureName_(\w+) = (\d+)$`).FindAllStringSubmatch(string(src), -1) {
		if m[1] == "Force32" {
			continue
		}
		v, _ := strconv.ParseUint(m[2], 10, 32)
		n++
		if f, ok := mapped[uint32(v)]; ok {
			want := kebab(m[1])
			if f == 0x60000 {
				want = "dawn:" + want
			}
			// Dawn and wgpu-native spell a few standard names apart
			// (RG11B10Ufloat...); the number decides, the name must exist.
			if got := f.String(); strings.HasPrefix(got, "unknown:") {
				t.Errorf("Dawn's %s (%d) maps to 0x%x, which has no name (want about %q)", m[1], v, uint32(f), want)
			}
			continue
		}
		if got, want := Feature(v).String(), "dawn:"+kebab(m[1]); got != want {
			t.Errorf("Dawn's WGPUFeatureName_%s (0x%x): name %q, want %q", m[1], v, got, want)
		}
	}
	if n < 50 {
		t.Fatalf("only %d features found in %s", n, py)
	}
	if len(dawnFeatureNames) != n-len(mapped)+1 {
		t.Errorf("dawnFeatureNames has %d entries; Dawn's webgpu.py has %d features of its own (plus SubgroupsF16)", len(dawnFeatureNames), n-len(mapped))
	}
}

// TestDawnFeatureTable: dawn.c's table as compiled maps each of Dawn's
// feature numbers to the wgpu-native number of the feature of the same
// name, read from the two headers (Dawn's webgpu.py, wgpu-native's
// webgpu.h) rather than from a copy of the table; SubgroupsF16, which
// wgpu-native lacks, keeps the binding's own number 0x60000.
func TestDawnFeatureTable(t *testing.T) {
	py := dawnPy(t)
	src, err := os.ReadFile(py)
	if err != nil {
		t.Fatal(err)
	}
	dawnName := map[uint32]string{}
	for _, m := range regexp.MustCompile(`(?m)^WGPUFeatureName_(\w+) = (\d+)$`).FindAllStringSubmatch(string(src), -1) {
		v, _ := strconv.ParseUint(m[2], 10, 32)
		dawnName[uint32(v)] = m[1]
	}
	h, err := os.ReadFile(filepath.Join("..", "..", "third_party", "wgpu-native", "include", "webgpu.h"))
	if err != nil {
		t.Skipf("wgpu-native's webgpu.h is not installed: %v", err)
	}
	nativeName := map[uint32]string{}
	for _, m := range regexp.MustCompile(`WGPUFeatureName_(\w+) = 0x([0-9A-Fa-f]+)`).FindAllStringSubmatch(string(h), -1) {
		v, _ := strconv.ParseUint(m[2], 16, 32)
		nativeName[uint32(v)] = m[1]
	}
	pairs := dawnFeaturePairs()
	if len(pairs) < 10 {
		t.Fatalf("dawn.c's table has %d entries", len(pairs))
	}
	for _, p := range pairs {
		d, ok := dawnName[p[0]]
		if !ok {
			t.Errorf("dawn.c maps Dawn's feature %d, which Dawn's webgpu.h does not have", p[0])
			continue
		}
		if d == "SubgroupsF16" {
			if p[1] != 0x60000 {
				t.Errorf("Dawn's SubgroupsF16 maps to 0x%x, want the binding's 0x60000", p[1])
			}
			continue
		}
		if n := nativeName[p[1]]; n != d {
			t.Errorf("Dawn's %s (%d) maps to wgpu-native's 0x%x, which is %q", d, p[0], p[1], n)
		}
	}
}

// TestDawnDialect: subgroup code gets "enable subgroups;" on its first
// line for Dawn only, once, and other code is left alone.
func TestDawnDialect(t *testing.T) {
	sub := "fn f() -> f32 {\n    return subgroupAdd(1.0);\n}\n"
	if got := ImplDawn.dialect(sub); got != "enable subgroups; "+sub {
		t.Errorf("Dawn: %q", got)
	}
	if got := ImplWGPUNative.dialect(sub); got != sub {
		t.Errorf("wgpu-native: %q", got)
	}
	enabled := "enable subgroups;\n" + sub
	if got := ImplDawn.dialect(enabled); got != enabled {
		t.Errorf("already enabled: %q", got)
	}
	if got := ImplDawn.dialect("fn f() -> f32 { return 1.0; }\n"); got != "fn f() -> f32 { return 1.0; }\n" {
		t.Errorf("plain: %q", got)
	}
}

func TestParseImpls(t *testing.T) {
	got, err := ParseImpls("wgpu-native,dawn")
	if err != nil || len(got) != 2 || got[0] != ImplWGPUNative || got[1] != ImplDawn {
		t.Errorf("ParseImpls: %v %v", got, err)
	}
	for _, bad := range []string{"dawn,dawn", "dawn,", "metal"} {
		if _, err := ParseImpls(bad); err == nil {
			t.Errorf("ParseImpls(%q) accepted", bad)
		}
	}
}
