package layers

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

// maxFuncLines is the longest a function of the module may be, counted
// from its func keyword to its closing brace: a longer one is split into
// named steps. Generated files (a "Code generated ... DO NOT EDIT." line)
// and tests are exempt.
const maxFuncLines = 80

// longFuncsAllowed lists the functions still over maxFuncLines, each with
// the length it may not exceed. The list only shrinks: a listed function
// that grows, or that is split to maxFuncLines or fewer (or is gone),
// fails the test until its entry is lowered or removed; no entry is
// added.
var longFuncsAllowed = map[string]int{}

// funcLength is one function of the module and its length in lines.
type funcLength struct {
	key   string // file (slash-separated, from the module root) and name, as in longFuncsAllowed
	lines int
}

// funcLengths returns every function declared in file (named name from
// the module root), or nil when the file is generated.
func funcLengths(fset *token.FileSet, name string, src any) ([]funcLength, error) {
	f, err := parser.ParseFile(fset, name, src, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	if ast.IsGenerated(f) {
		return nil, nil
	}
	var out []funcLength
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Body == nil {
			continue
		}
		n := fset.Position(fd.End()).Line - fset.Position(fd.Pos()).Line + 1
		out = append(out, funcLength{key: name + " " + funcName(fd), lines: n})
	}
	return out, nil
}

// funcName is a function's name, a method's prefixed by its receiver's
// type: "Run", "Device.Run".
func funcName(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return fd.Name.Name
	}
	t := fd.Recv.List[0].Type
	for {
		switch x := t.(type) {
		case *ast.StarExpr:
			t = x.X
			continue
		case *ast.IndexExpr:
			t = x.X
			continue
		case *ast.IndexListExpr:
			t = x.X
			continue
		case *ast.Ident:
			return x.Name + "." + fd.Name.Name
		}
		return fd.Name.Name
	}
}

// moduleFuncLengths walks every non-test Go file of the module under root.
func moduleFuncLengths(t *testing.T, root string) (funcs []funcLength, files int) {
	t.Helper()
	fset := token.NewFileSet()
	err := walkGoFiles(root, func(path, name string) error {
		if strings.HasSuffix(name, "_test.go") {
			return nil
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		fl, err := funcLengths(fset, filepath.ToSlash(rel), src)
		if err != nil {
			return err
		}
		files++
		funcs = append(funcs, fl...)
		return nil
	})
	if err != nil {
		t.Fatalf("walk %s: %v", root, err)
	}
	return funcs, files
}

// longFuncProblems judges funcs against the limit and the allow-list.
func longFuncProblems(funcs []funcLength, allowed map[string]int) []string {
	var problems []string
	seen := map[string]int{}
	for _, f := range funcs {
		seen[f.key] = f.lines
		limit, listed := allowed[f.key]
		switch {
		case !listed && f.lines > maxFuncLines:
			problems = append(problems, fmt.Sprintf("%s: %d lines > %d: split it into named steps", f.key, f.lines, maxFuncLines))
		case listed && f.lines > limit:
			problems = append(problems, fmt.Sprintf("%s: %d lines, more than the %d it is allowed: the allow-list only shrinks", f.key, f.lines, limit))
		case listed && f.lines < limit:
			problems = append(problems, fmt.Sprintf("%s: now %d lines: lower its allow-list entry from %d (remove it at %d or fewer)", f.key, f.lines, limit, maxFuncLines))
		}
	}
	for key := range allowed {
		if _, ok := seen[key]; !ok {
			problems = append(problems, fmt.Sprintf("%s: listed in longFuncsAllowed but not found: remove its entry", key))
		}
	}
	for key, n := range allowed {
		if n <= maxFuncLines {
			problems = append(problems, fmt.Sprintf("%s: allow-list entry %d is within the limit: remove it", key, n))
		}
	}
	sort.Strings(problems)
	return slices.Compact(problems)
}

// TestFunctionLength: no non-generated, non-test function of the module is
// over maxFuncLines lines, except those longFuncsAllowed still lists, and
// those do not grow.
func TestFunctionLength(t *testing.T) {
	funcs, files := moduleFuncLengths(t, root(t))
	// The walk must see the module, not an empty or wrong folder.
	if files < 100 || len(funcs) < 1000 || !slices.ContainsFunc(funcs, func(f funcLength) bool { return f.key == "compute/stream.go RunStream" }) {
		t.Fatalf("walked %d files with %d functions, compute/stream.go RunStream not among them: the module has far more; is the root right?", files, len(funcs))
	}
	for _, p := range longFuncProblems(funcs, longFuncsAllowed) {
		t.Error(p)
	}
}

// TestFunctionLengthCatchesPlanted: the check finds a planted function of
// maxFuncLines+1 lines, a method among them, passes one of maxFuncLines,
// skips a generated file, and holds allow-list entries to their length.
func TestFunctionLengthCatchesPlanted(t *testing.T) {
	body := func(lines int) string { // a function of exactly lines lines
		return "{\n" + strings.Repeat("\t_ = 0\n", lines-2) + "}\n"
	}
	src := "package p\n\ntype T struct{}\n\nfunc Short() " + body(maxFuncLines) +
		"\nfunc Long() " + body(maxFuncLines+1) +
		"\nfunc (t *T) Method() " + body(maxFuncLines+5)
	fset := token.NewFileSet()
	funcs, err := funcLengths(fset, "p/p.go", src)
	if err != nil {
		t.Fatal(err)
	}
	got := longFuncProblems(funcs, nil)
	if len(got) != 2 || !strings.HasPrefix(got[0], "p/p.go Long: 81 lines") || !strings.HasPrefix(got[1], "p/p.go T.Method: 85 lines") {
		t.Errorf("planted 80-, 81- and 85-line functions: got %q, want Long and T.Method reported", got)
	}
	if got := longFuncProblems(funcs, map[string]int{"p/p.go Long": 81, "p/p.go T.Method": 85}); len(got) != 0 {
		t.Errorf("both long functions allowed at their length: got %q, want none", got)
	}
	grown := longFuncProblems(funcs, map[string]int{"p/p.go Long": 81, "p/p.go T.Method": 84})
	if len(grown) != 1 || !strings.Contains(grown[0], "T.Method: 85 lines, more than the 84") {
		t.Errorf("T.Method grown past its entry: got %q", grown)
	}
	stale := longFuncProblems(funcs, map[string]int{"p/p.go Long": 81, "p/p.go T.Method": 85, "p/p.go Short": 90, "p/q.go Gone": 100})
	if len(stale) != 2 || !strings.Contains(stale[0], "Short: now 80 lines") || !strings.Contains(stale[1], "Gone: listed in longFuncsAllowed but not found") {
		t.Errorf("stale entries: got %q", stale)
	}
	gen, err := funcLengths(fset, "p/gen.go", "// Code generated by hand. DO NOT EDIT.\n\n"+src)
	if err != nil || gen != nil {
		t.Errorf("generated file: got %v, %v; want it skipped", gen, err)
	}
}
