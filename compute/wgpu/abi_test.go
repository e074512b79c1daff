package wgpu

// Checks of the hand-written wgpu_abi.h against wgpu-native's own headers
// (third_party/wgpu-native/include from scripts/setup.sh, or
// $WGPU_NATIVE_INCLUDE to check against another build's headers).
//
// TestABIHeader parses wgpu_abi.h, generates one C program that prints the
// size and alignment of every struct and typedef it declares, the offset
// and size of every field and the value of every constant, compiles it
// twice with cc, once against wgpu_abi.h and once against the real headers,
// and compares the two outputs line by line. The build against the real
// headers also asserts, at compile time, that every field, typedef and
// function of wgpu_abi.h has the same type as the real declaration.

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

// abiHeader is what abi_test.go understands of wgpu_abi.h.
type abiHeader struct {
	structs   []abiStruct
	enums     []abiEnum
	typedefs  []abiTypedef
	consts    []abiConst // static const values and #defines
	functions string     // the #define WGPUPROF_FUNCTIONS(R, V) block
	funcNames []string
}

type abiStruct struct {
	name   string
	line   int
	fields []abiField
}

type abiField struct {
	name string // "data.xlib" for a member of a nested union
	typ  string // declared type; "" for the union itself
	line int
}

type abiEnum struct {
	name   string
	line   int
	consts []abiConst
}

type abiTypedef struct {
	name string
	text string // the whole declaration, for re-declaring it under another name
	line int
}

type abiConst struct {
	name string
	typ  string // type of a static const; "" for enum constants and #defines
	line int
}

var (
	reStructStart  = regexp.MustCompile(`^typedef struct (\w+) \{$`)
	reEnumStart    = regexp.MustCompile(`^typedef enum (\w+) \{$`)
	reBlockEnd     = regexp.MustCompile(`^\} (\w+);$`)
	reField        = regexp.MustCompile(`^([^;]+?)\s*\b(\w+);$`)
	reUnionStart   = regexp.MustCompile(`^union \{$`)
	reEnumConst    = regexp.MustCompile(`^(\w+) = (0x[0-9A-Fa-f]+|\d+),$`)
	reFuncTypedef  = regexp.MustCompile(`^typedef .*\(\*(\w+)\)\(.*\);$`)
	rePlainTypedef = regexp.MustCompile(`^typedef [^(]*\b(\w+);$`)
	reStaticConst  = regexp.MustCompile(`^static const (\w+) (\w+) = [^;]+;$`)
	reDefineValue  = regexp.MustCompile(`^#define (\w+) (\S.*)$`)
	reFuncName     = regexp.MustCompile(`\b(wgpu[A-Z]\w*), \(`)
)

// parseABIHeader reads wgpu_abi.h. Every line must be one it understands,
// so nothing in the header escapes the checks.
func parseABIHeader(path string) (*abiHeader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	h := &abiHeader{}
	var (
		st       *abiStruct
		en       *abiEnum
		union    string // non-empty while inside "union {" ... "}"
		unionBuf []abiField
		inFuncs  bool
		comment  bool
	)
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		raw := sc.Text()
		bad := func(why string) error { return fmt.Errorf("%s:%d: %s: %q", path, n, why, raw) }
		if inFuncs {
			h.functions += raw + "\n"
			for _, m := range reFuncName.FindAllStringSubmatch(raw, -1) {
				h.funcNames = append(h.funcNames, m[1])
			}
			inFuncs = strings.HasSuffix(raw, `\`)
			continue
		}
		line, stillComment := stripComments(raw, comment)
		comment = stillComment
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		switch {
		case union != "":
			if m := reBlockEnd.FindStringSubmatch(line); m != nil {
				st.fields = append(st.fields, abiField{name: m[1], line: n})
				for _, uf := range unionBuf {
					uf.name = m[1] + "." + uf.name
					st.fields = append(st.fields, uf)
				}
				union, unionBuf = "", nil
			} else if m := reField.FindStringSubmatch(line); m != nil {
				unionBuf = append(unionBuf, abiField{name: m[2], typ: strings.TrimSpace(m[1]), line: n})
			} else {
				return nil, bad("not a union member")
			}
		case st != nil:
			if m := reBlockEnd.FindStringSubmatch(line); m != nil {
				if m[1] != st.name {
					return nil, bad("struct " + st.name + " closed with another name")
				}
				h.structs = append(h.structs, *st)
				st = nil
			} else if reUnionStart.MatchString(line) {
				union = "?"
			} else if m := reField.FindStringSubmatch(line); m != nil {
				st.fields = append(st.fields, abiField{name: m[2], typ: strings.TrimSpace(m[1]), line: n})
			} else {
				return nil, bad("not a struct field")
			}
		case en != nil:
			if m := reBlockEnd.FindStringSubmatch(line); m != nil {
				if m[1] != en.name {
					return nil, bad("enum " + en.name + " closed with another name")
				}
				h.enums = append(h.enums, *en)
				en = nil
			} else if m := reEnumConst.FindStringSubmatch(line); m != nil {
				en.consts = append(en.consts, abiConst{name: m[1], line: n})
			} else {
				return nil, bad("not an enum constant")
			}
		case reStructStart.MatchString(line):
			st = &abiStruct{name: reStructStart.FindStringSubmatch(line)[1], line: n}
		case reEnumStart.MatchString(line):
			en = &abiEnum{name: reEnumStart.FindStringSubmatch(line)[1], line: n}
		case reFuncTypedef.MatchString(line):
			h.typedefs = append(h.typedefs, abiTypedef{name: reFuncTypedef.FindStringSubmatch(line)[1], text: line, line: n})
		case rePlainTypedef.MatchString(line):
			h.typedefs = append(h.typedefs, abiTypedef{name: rePlainTypedef.FindStringSubmatch(line)[1], text: line, line: n})
		case reStaticConst.MatchString(line):
			m := reStaticConst.FindStringSubmatch(line)
			h.consts = append(h.consts, abiConst{name: m[2], typ: m[1], line: n})
		case strings.HasPrefix(line, "#define WGPUPROF_FUNCTIONS(R, V)"):
			h.functions = raw + "\n"
			inFuncs = strings.HasSuffix(raw, `\`)
		case strings.HasPrefix(line, "#define WGPUPROF_"), line == "#define WGPUPROF_WGPU_ABI_H":
			// the declaration helpers and the include guard
		case reDefineValue.MatchString(line):
			h.consts = append(h.consts, abiConst{name: reDefineValue.FindStringSubmatch(line)[1], line: n})
		case strings.HasPrefix(line, "#ifndef "), line == "#endif", strings.HasPrefix(line, "#include <"),
			strings.HasPrefix(line, "#undef WGPUPROF_"),
			line == "WGPUPROF_FUNCTIONS(WGPUPROF_DECLARE_R, WGPUPROF_DECLARE_V)",
			strings.HasPrefix(line, "int wgpuprof_load("):
			// preprocessor plumbing, the prototypes' expansion, the loader
		default:
			return nil, bad("line not understood by abi_test.go (see the layout rules at the top of wgpu_abi.h)")
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if st != nil || en != nil || comment || inFuncs {
		return nil, fmt.Errorf("%s: unterminated struct, enum, comment or function list at the end", path)
	}
	if len(h.funcNames) == 0 {
		return nil, fmt.Errorf("%s: no WGPUPROF_FUNCTIONS list", path)
	}
	return h, nil
}

// stripComments removes /* */ and // comments from one line; inComment
// says whether the line starts inside a /* comment, and the result whether
// the next one does.
func stripComments(line string, inComment bool) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(line); {
		if inComment {
			j := strings.Index(line[i:], "*/")
			if j < 0 {
				return b.String(), true
			}
			i += j + 2
			inComment = false
			continue
		}
		if strings.HasPrefix(line[i:], "/*") {
			inComment = true
			i += 2
			continue
		}
		if strings.HasPrefix(line[i:], "//") {
			break
		}
		b.WriteByte(line[i])
		i++
	}
	return b.String(), inComment
}

// abiProgram is the C source printing the layout facts of h. Built with
// -DWGPUPROF_REAL_HEADERS it includes the real headers instead and adds
// the type assertions.
func abiProgram(h *abiHeader) string {
	var b strings.Builder
	b.WriteString(`#include <stdio.h>
#include <stddef.h>
#include <stdint.h>
#ifdef WGPUPROF_REAL_HEADERS
#include "webgpu.h"
#include "wgpu.h"
#else
#include "wgpu_abi.h"
#endif

#define SHOW_TYPE(at, T) printf("%s %s: size %zu align %zu\n", at, #T, sizeof(T), _Alignof(T));
#define SHOW_FIELD(at, T, f) printf("%s %s.%s: offset %zu size %zu\n", at, #T, #f, offsetof(T, f), sizeof(((T *)0)->f));
#define SHOW_VALUE(at, c) printf("%s %s: value %llu\n", at, #c, (unsigned long long)(c));

#ifdef WGPUPROF_REAL_HEADERS
#define SAME_TYPE(a, b, what) _Static_assert(__builtin_types_compatible_p(a, b), what);
`)
	for _, s := range h.structs {
		for _, f := range s.fields {
			if f.typ == "" {
				continue
			}
			fmt.Fprintf(&b, "SAME_TYPE(__typeof__(((%s *)0)->%s), %s, \"wgpu_abi.h:%d: %s.%s is not %s in the real header\")\n",
				s.name, f.name, f.typ, f.line, s.name, f.name, f.typ)
		}
	}
	for _, td := range h.typedefs {
		alias := "wgpuprof_abi_" + td.name
		fmt.Fprintf(&b, "%s\n", replaceLastWord(td.text, td.name, alias))
		fmt.Fprintf(&b, "SAME_TYPE(%s, %s, \"wgpu_abi.h:%d: typedef %s differs from the real header\")\n", td.name, alias, td.line, td.name)
	}
	for _, c := range h.consts {
		if c.typ != "" {
			fmt.Fprintf(&b, "SAME_TYPE(__typeof__(%s), %s, \"wgpu_abi.h:%d: %s is not a %s in the real header\")\n", c.name, c.typ, c.line, c.name, c.typ)
		}
	}
	b.WriteString(h.functions)
	b.WriteString(`
#define CHECK_R(ret, name, params, args) SAME_TYPE(__typeof__(&name), ret(*) params, "wgpu_abi.h: " #name " has another signature in the real header")
#define CHECK_V(name, params, args) CHECK_R(void, name, params, args)
WGPUPROF_FUNCTIONS(CHECK_R, CHECK_V)
#endif

int main(void) {
`)
	at := func(line int) string { return strconv.Quote(fmt.Sprintf("wgpu_abi.h:%d", line)) }
	for _, s := range h.structs {
		fmt.Fprintf(&b, "\tSHOW_TYPE(%s, %s)\n", at(s.line), s.name)
		for _, f := range s.fields {
			fmt.Fprintf(&b, "\tSHOW_FIELD(%s, %s, %s)\n", at(f.line), s.name, f.name)
		}
	}
	for _, e := range h.enums {
		fmt.Fprintf(&b, "\tSHOW_TYPE(%s, %s)\n", at(e.line), e.name)
		for _, c := range e.consts {
			fmt.Fprintf(&b, "\tSHOW_VALUE(%s, %s)\n", at(c.line), c.name)
		}
	}
	for _, td := range h.typedefs {
		if !isOpaque(td) {
			fmt.Fprintf(&b, "\tSHOW_TYPE(%s, %s)\n", at(td.line), td.name)
		}
	}
	for _, c := range h.consts {
		fmt.Fprintf(&b, "\tSHOW_VALUE(%s, %s)\n", at(c.line), c.name)
	}
	b.WriteString("\treturn 0;\n}\n")
	return b.String()
}

// isOpaque: "typedef struct X X;", an incomplete type with no size.
func isOpaque(td abiTypedef) bool {
	return td.text == "typedef struct "+td.name+" "+td.name+";"
}

func replaceLastWord(s, word, with string) string {
	re := regexp.MustCompile(`\b` + regexp.QuoteMeta(word) + `\b`)
	locs := re.FindAllStringIndex(s, -1)
	if len(locs) == 0 {
		return s
	}
	l := locs[len(locs)-1]
	return s[:l[0]] + with + s[l[1]:]
}

// realHeaderDir is where wgpu-native's own webgpu.h and wgpu.h are.
func realHeaderDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("WGPU_NATIVE_INCLUDE")
	if dir == "" {
		dir = filepath.Join("..", "..", "third_party", "wgpu-native", "include")
	}
	for _, f := range []string{"webgpu.h", "wgpu.h"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Fatalf("wgpu-native's headers are needed to check wgpu_abi.h: %v (run scripts/setup.sh, or set WGPU_NATIVE_INCLUDE)", err)
		}
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

// ccCommand is the C compiler: $CC as cgo would use it, else cc.
func ccCommand() []string {
	if cc := strings.Fields(os.Getenv("CC")); len(cc) > 0 {
		return cc
	}
	return []string{"cc"}
}

// compileAndRun builds src with the extra cc arguments and returns what
// the program prints.
func compileAndRun(t *testing.T, name, src string, args ...string) string {
	t.Helper()
	dir := t.TempDir()
	cfile := filepath.Join(dir, name+".c")
	if err := os.WriteFile(cfile, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(dir, name)
	cc := ccCommand()
	cmd := exec.Command(cc[0], append(append(cc[1:], args...), "-o", exe, cfile)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s\n(generated source: %s)", strings.Join(cmd.Args, " "), err, out, keep(t, cfile, src))
	}
	out, err := exec.Command(exe).Output()
	if err != nil {
		t.Fatalf("running %s: %v", name, err)
	}
	return string(out)
}

// keep saves the generated source where it survives the test, for reading
// after a failure.
func keep(t *testing.T, path, src string) string {
	f, err := os.CreateTemp("", filepath.Base(path)+".*.c")
	if err != nil {
		return path
	}
	defer f.Close()
	f.WriteString(src)
	return f.Name()
}

func TestABIHeader(t *testing.T) {
	h, err := parseABIHeader("wgpu_abi.h")
	if err != nil {
		t.Fatal(err)
	}
	real := realHeaderDir(t)
	here, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	src := abiProgram(h)
	mine := compileAndRun(t, "abi_mine", src, "-I"+here)
	theirs := compileAndRun(t, "abi_real", src, "-DWGPUPROF_REAL_HEADERS", "-I"+real)
	a, b := strings.Split(mine, "\n"), strings.Split(theirs, "\n")
	for i := 0; i < len(a) || i < len(b); i++ {
		var x, y string
		if i < len(a) {
			x = a[i]
		}
		if i < len(b) {
			y = b[i]
		}
		if x != y {
			t.Fatalf("wgpu_abi.h differs from the headers in %s at output line %d:\n  wgpu_abi.h:   %s\n  real headers: %s", real, i+1, x, y)
		}
	}
	// Padding can hide a field missing at the end of a struct from the
	// size and offset checks: compare the field lists too.
	realFields, err := realStructFields(real)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range h.structs {
		var mine []string
		for _, f := range s.fields {
			if !strings.Contains(f.name, ".") {
				mine = append(mine, f.name)
			}
		}
		theirs, ok := realFields[s.name]
		if !ok {
			t.Errorf("wgpu_abi.h:%d: struct %s is not in the real headers", s.line, s.name)
		} else if i := firstDifference(mine, theirs); i >= 0 {
			t.Errorf("wgpu_abi.h:%d: struct %s: field %d is %s in wgpu_abi.h, %s in the real header",
				s.line, s.name, i+1, orNone(mine, i), orNone(theirs, i))
		}
	}
	nStructs, nFields, nConsts := len(h.structs), 0, len(h.consts)
	for _, s := range h.structs {
		nFields += len(s.fields)
	}
	for _, e := range h.enums {
		nConsts += len(e.consts)
	}
	if nStructs < 20 || nFields < 100 || nConsts < 50 || len(h.funcNames) < 40 {
		t.Fatalf("parsed only %d structs, %d fields, %d constants, %d functions from wgpu_abi.h: the parser lost track", nStructs, nFields, nConsts, len(h.funcNames))
	}
	if t.Failed() {
		return
	}
	t.Logf("%d structs (%d fields), %d enums, %d typedefs, %d constants, %d functions match %s",
		nStructs, nFields, len(h.enums), len(h.typedefs), nConsts, len(h.funcNames), real)
}

// firstDifference is the first index where a and b differ, or -1.
func firstDifference(a, b []string) int {
	for i := 0; i < len(a) || i < len(b); i++ {
		if i >= len(a) || i >= len(b) || a[i] != b[i] {
			return i
		}
	}
	return -1
}

func orNone(s []string, i int) string {
	if i < len(s) {
		return s[i]
	}
	return "(none)"
}

// realStructFields lists the field names of every struct typedef of the
// real webgpu.h and wgpu.h, in order (a nested union counts as one field).
func realStructFields(dir string) (map[string][]string, error) {
	out := map[string][]string{}
	reStart := regexp.MustCompile(`typedef struct (\w+)\s*\{`)
	reLastWord := regexp.MustCompile(`(\w+)\s*$`)
	for _, name := range []string{"webgpu.h", "wgpu.h"} {
		raw, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return nil, err
		}
		var text strings.Builder
		inComment := false
		for _, line := range strings.Split(string(raw), "\n") {
			var l string
			l, inComment = stripComments(line, inComment)
			if !strings.HasPrefix(strings.TrimSpace(l), "#") {
				text.WriteString(l + "\n")
			}
		}
		src := text.String()
		for _, m := range reStart.FindAllStringSubmatchIndex(src, -1) {
			body, depth, start := "", 1, m[1]
			for i := start; i < len(src) && depth > 0; i++ {
				switch src[i] {
				case '{':
					depth++
				case '}':
					depth--
					if depth == 0 {
						body = src[start:i]
					}
				}
			}
			var fields []string
			depth, from := 0, 0
			for i := 0; i < len(body); i++ {
				switch body[i] {
				case '{':
					depth++
				case '}':
					depth--
				case ';':
					if depth == 0 {
						if w := reLastWord.FindStringSubmatch(body[from:i]); w != nil {
							fields = append(fields, w[1])
						}
						from = i + 1
					}
				}
			}
			out[src[m[2]:m[3]]] = fields
		}
	}
	return out, nil
}

// TestABIFunctionsAreThoseUsed: the function list of wgpu_abi.h is exactly
// the wgpu* functions compute/*.go, shim.c, loader.c and callrun.c call, and every C.WGPU* name
// the Go code uses is declared in wgpu_abi.h.
func TestABIFunctionsAreThoseUsed(t *testing.T) {
	h, err := parseABIHeader("wgpu_abi.h")
	if err != nil {
		t.Fatal(err)
	}
	goFiles, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	usedFuncs := map[string]bool{}
	usedNames := map[string]bool{}
	reGoFunc := regexp.MustCompile(`\bC\.(wgpu[A-Z]\w*)`)
	reGoName := regexp.MustCompile(`\bC\.(WGPU\w*)`)
	for _, f := range goFiles {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range reGoFunc.FindAllStringSubmatch(string(src), -1) {
			usedFuncs[m[1]] = true
		}
		for _, m := range reGoName.FindAllStringSubmatch(string(src), -1) {
			usedNames[m[1]] = true
		}
	}
	for _, cfile := range []string{"shim.c", "loader.c", "callrun.c"} {
		src, err := os.ReadFile(cfile)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range regexp.MustCompile(`\b(wgpu[A-Z]\w*)\(`).FindAllStringSubmatch(string(src), -1) {
			usedFuncs[m[1]] = true
		}
	}
	listed := map[string]bool{}
	for _, f := range h.funcNames {
		if listed[f] {
			t.Errorf("wgpu_abi.h lists %s twice", f)
		}
		listed[f] = true
		if !usedFuncs[f] {
			t.Errorf("wgpu_abi.h lists %s, which neither compute/*.go nor shim.c, loader.c or callrun.c calls: drop it", f)
		}
	}
	for f := range usedFuncs {
		if !listed[f] {
			t.Errorf("%s is called but not in wgpu_abi.h's WGPUPROF_FUNCTIONS", f)
		}
	}
	declared := map[string]bool{}
	for _, s := range h.structs {
		declared[s.name] = true
	}
	for _, e := range h.enums {
		declared[e.name] = true
		for _, c := range e.consts {
			declared[c.name] = true
		}
	}
	for _, td := range h.typedefs {
		declared[td.name] = true
	}
	for _, c := range h.consts {
		declared[c.name] = true
	}
	var missing []string
	for n := range usedNames {
		if !declared[n] {
			missing = append(missing, n)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("used by the Go code but not declared in wgpu_abi.h: %s", strings.Join(missing, " "))
	}
}

// TestGoMirrorsOfCValues: the few wgpu-native values the Go code spells as
// plain numbers (buffer usage bits, instance backend bits, error types)
// equal the real headers'.
func TestGoMirrorsOfCValues(t *testing.T) {
	real := realHeaderDir(t)
	mirrors := []struct {
		c     string
		goVal uint64
	}{
		{"WGPUBufferUsage_MapRead", uint64(UsageMapRead)},
		{"WGPUBufferUsage_CopySrc", uint64(UsageCopySrc)},
		{"WGPUBufferUsage_CopyDst", uint64(UsageCopyDst)},
		{"WGPUBufferUsage_Uniform", uint64(UsageUniform)},
		{"WGPUBufferUsage_Storage", uint64(UsageStorage)},
		{"WGPUBufferUsage_QueryResolve", uint64(UsageQueryResolve)},
		{"WGPUInstanceBackend_Vulkan", BackendVulkan.instanceMask()},
		{"WGPUInstanceBackend_GL", BackendOpenGL.instanceMask()},
		{"WGPUInstanceBackend_Metal", BackendMetal.instanceMask()},
		{"WGPUInstanceBackend_DX12", BackendD3D12.instanceMask()},
		{"WGPUInstanceBackend_All", BackendUndefined.instanceMask()},
	}
	errTypes := []struct {
		c    string
		want ErrorType
	}{
		{"WGPUErrorType_Validation", ErrorValidation},
		{"WGPUErrorType_OutOfMemory", ErrorOutOfMemory},
		{"WGPUErrorType_Internal", ErrorInternal},
		{"WGPUErrorType_Unknown", ErrorUnknown},
	}
	var src strings.Builder
	src.WriteString("#include <stdio.h>\n#include \"webgpu.h\"\n#include \"wgpu.h\"\nint main(void) {\n")
	for _, m := range mirrors {
		fmt.Fprintf(&src, "\tprintf(\"%%llu\\n\", (unsigned long long)%s);\n", m.c)
	}
	for _, e := range errTypes {
		fmt.Fprintf(&src, "\tprintf(\"%%llu\\n\", (unsigned long long)%s);\n", e.c)
	}
	src.WriteString("\treturn 0;\n}\n")
	out := strings.Fields(compileAndRun(t, "mirrors", src.String(), "-I"+real))
	if len(out) != len(mirrors)+len(errTypes) {
		t.Fatalf("got %d values, want %d", len(out), len(mirrors)+len(errTypes))
	}
	for i, m := range mirrors {
		v, err := strconv.ParseUint(out[i], 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		if v != m.goVal {
			t.Errorf("%s is %#x in the real header, the Go mirror says %#x", m.c, v, m.goVal)
		}
	}
	for i, e := range errTypes {
		v, err := strconv.Atoi(out[len(mirrors)+i])
		if err != nil {
			t.Fatal(err)
		}
		if got := errorType(v); got != e.want {
			t.Errorf("%s = %d: errorType gives %v, want %v", e.c, v, got, e.want)
		}
	}
}
