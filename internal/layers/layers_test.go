package layers

import (
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/wgpu-prof/wgpu-prof"

// layer ranks the top-level packages under internal/: one may import only
// those of a lower rank (a package's own subpackages are its own rooms).
var layer = map[string]int{
	"experiment":  3,
	"workload":    2,
	"report":      1,
	"dataset":     1,
	"verify":      1,
	"gputest":     0,
	"testmem":     0,
	"buildcheck":  0,
	"bundlecheck": 0,
	"layers":      0,
	"errconv":     0,
	"browser":     0, // a WebGPU implementation reached through a page: below everything that runs on one
}

// room ranks the packages under internal/experiment, its rooms: a room
// imports only rooms of a lower rank, never a sibling of its own rank or
// one above it. env (device, host, budget, progress) is 0; the base,
// internal/experiment itself (run configuration, sides, one case
// measured on both sides), is 1; the families others build on (ceilings,
// break-even search, call latency) are 2; the commands' families are 3.
// A room's subpackages (env/envtest) are that room's own.
var room = map[string]int{
	"env":        0,
	"":           1,
	"ceilings":   2,
	"crossover":  2,
	"latency":    2,
	"suite":      3,
	"sweeps":     3,
	"hybrid":     3,
	"plan":       3,
	"kernel":     3,
	"sidebyside": 3,
}

// exempt names the imports of internal/ a public package may still make,
// each with its reason.
var exempt = map[[2]string]string{}

// mustBePublic are packages the walk must find public, so that a change
// in how it tells public from internal cannot empty the check.
var mustBePublic = []string{"compute", "compute/wgpu", "compute/tune", "hostsimd", "timing", "dispatch", "ops", "wgsl", "stream", "machine"}

// pkg is one directory's Go package: its imports of this module from
// non-test files and from test files.
type pkg struct {
	imports, testImports []string
}

// walkGoFiles calls fn with the path and name of every Go file of the
// module under root, test files included, outside hidden and underscore
// folders, testdata, third_party and node_modules.
func walkGoFiles(root string, fn func(path, name string) error) error {
	return filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" || name == "third_party" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") {
			return nil
		}
		return fn(path, name)
	})
}

// scan reads the imports of every package of the module under root.
func scan(t *testing.T, root string) map[string]*pkg {
	t.Helper()
	out := map[string]*pkg{}
	fset := token.NewFileSet()
	err := walkGoFiles(root, func(path, name string) error {
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		rel = filepath.ToSlash(rel)
		p := out[rel]
		if p == nil {
			p = &pkg{}
			out[rel] = p
		}
		for _, im := range f.Imports {
			ip, _ := strconv.Unquote(im.Path.Value)
			if ip != module && !strings.HasPrefix(ip, module+"/") {
				continue
			}
			ip = strings.TrimPrefix(strings.TrimPrefix(ip, module), "/")
			if strings.HasSuffix(name, "_test.go") {
				p.testImports = append(p.testImports, ip)
			} else {
				p.imports = append(p.imports, ip)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// isPublic says whether the package in dir is public API (or an example,
// which uses the API as a user does).
func isPublic(dir string) bool {
	return dir != "." && !under(dir, "internal") && !under(dir, "cmd") && !under(dir, "bench")
}

func under(dir, top string) bool { return dir == top || strings.HasPrefix(dir, top+"/") }

// internalTop is the top-level package under internal/ of an import path
// ("" when it is not under internal/).
func internalTop(path string) string {
	rest, ok := strings.CutPrefix(path, "internal/")
	if !ok {
		return ""
	}
	top, _, _ := strings.Cut(rest, "/")
	return top
}

// violations lists every import that breaks the rules.
func violations(pkgs map[string]*pkg) []string {
	var out []string
	for dir, p := range pkgs {
		if isPublic(dir) {
			for _, ip := range p.imports {
				if internalTop(ip) != "" && exempt[[2]string{dir, ip}] == "" {
					out = append(out, fmt.Sprintf("public package %s imports %s", dir, ip))
				}
			}
			continue
		}
		from := internalTop(dir)
		if from == "" {
			continue
		}
		rank, ok := layer[from]
		if !ok {
			out = append(out, fmt.Sprintf("internal/%s has no layer: give it one in internal/layers", from))
			continue
		}
		for _, ip := range append(slices.Clone(p.imports), p.testImports...) {
			to := internalTop(ip)
			if to == "" {
				continue
			}
			if to == from {
				out = append(out, roomViolation(dir, ip)...)
				continue
			}
			if r, ok := layer[to]; ok && r >= rank {
				out = append(out, fmt.Sprintf("%s (layer %d) imports %s (layer %d): an import must point to a lower layer", dir, rank, ip, r))
			}
		}
	}
	sort.Strings(out)
	return slices.Compact(out)
}

// roomViolation checks one import between two packages of the same
// top-level internal package: under internal/experiment, against the
// ranks of their rooms (a package's first folder under it).
func roomViolation(dir, ip string) []string {
	const top = "internal/experiment"
	if !under(dir, top) || !under(ip, top) {
		return nil
	}
	name := func(d string) string {
		r, _, _ := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(d, top), "/"), "/")
		return r
	}
	from, to := name(dir), name(ip)
	rf, ok := room[from]
	if !ok {
		return []string{fmt.Sprintf("%s has no room rank: give it one in internal/layers", dir)}
	}
	rt, ok := room[to]
	if !ok {
		return []string{fmt.Sprintf("%s has no room rank: give it one in internal/layers", ip)}
	}
	if from != to && rt >= rf {
		return []string{fmt.Sprintf("%s (room %d) imports %s (room %d): a room imports only rooms below it", dir, rf, ip, rt)}
	}
	return nil
}

func root(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "go.mod")); err != nil {
		t.Fatalf("module root: %v", err)
	}
	return dir
}

func TestNoPublicPackageImportsInternal(t *testing.T) {
	pkgs := scan(t, root(t))
	for _, want := range mustBePublic {
		if p := pkgs[want]; p == nil || !isPublic(want) {
			t.Errorf("public package %s not found", want)
		}
	}
	for _, v := range violations(pkgs) {
		if strings.HasPrefix(v, "public") {
			t.Error(v)
		}
	}
	// An exemption that is no longer used goes.
	for k := range exempt {
		if p := pkgs[k[0]]; p == nil || !slices.Contains(p.imports, k[1]) {
			t.Errorf("exemption %s → %s is no longer used: remove it", k[0], k[1])
		}
	}
}

func TestInternalLayers(t *testing.T) {
	pkgs := scan(t, root(t))
	for dir := range pkgs {
		if top := internalTop(dir); top != "" {
			if _, ok := layer[top]; !ok {
				t.Errorf("internal/%s has no layer: give it one", top)
			}
		}
	}
	for _, v := range violations(pkgs) {
		if !strings.HasPrefix(v, "public") {
			t.Error(v)
		}
	}
}

// The checks catch planted violations of each rule.
func TestViolationsCatchPlanted(t *testing.T) {
	pkgs := map[string]*pkg{
		"dispatch":                   {imports: []string{"timing", "internal/report"}, testImports: []string{"internal/report"}},
		"hostsimd":                   {imports: []string{"internal/machine"}},
		"examples/vsearch":           {imports: []string{"internal/dataset"}},
		"internal/report":            {imports: []string{"timing"}, testImports: []string{"internal/experiment"}},
		"internal/workload":          {imports: []string{"internal/report", "internal/workload/sub"}},
		"internal/dataset":           {imports: []string{"internal/verify"}},
		"internal/experiment":        {imports: []string{"internal/workload"}, testImports: []string{"internal/experiment/kernel"}},
		"internal/experiment/kernel": {imports: []string{"internal/experiment", "internal/experiment/hybrid"}},
		"internal/experiment/lost":   {imports: []string{"internal/experiment"}},
		"internal/experiment/env/t":  {imports: []string{"internal/experiment/env", "internal/experiment"}},
		"internal/experiment/plan":   {testImports: []string{"internal/experiment/env/t"}},
		"internal/newthing":          {},
	}
	got := violations(pkgs)
	want := []string{
		"internal/dataset (layer 1) imports internal/verify (layer 1): an import must point to a lower layer",
		"internal/experiment (room 1) imports internal/experiment/kernel (room 3): a room imports only rooms below it",
		"internal/experiment/env/t (room 0) imports internal/experiment (room 1): a room imports only rooms below it",
		"internal/experiment/kernel (room 3) imports internal/experiment/hybrid (room 3): a room imports only rooms below it",
		"internal/experiment/lost has no room rank: give it one in internal/layers",
		"internal/newthing has no layer: give it one in internal/layers",
		"internal/report (layer 1) imports internal/experiment (layer 3): an import must point to a lower layer",
		"public package dispatch imports internal/report",
		"public package examples/vsearch imports internal/dataset",
		"public package hostsimd imports internal/machine",
	}
	if !slices.Equal(got, want) {
		t.Errorf("violations:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
