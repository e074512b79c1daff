package workload

import (
	"errors"
	"github.com/wgpu-prof/wgpu-prof/hostsimd"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/wgpu-prof/wgpu-prof/internal/gputest"
)

func openGPU(t *testing.T) GPU {
	t.Helper()
	d := gputest.Open(t)
	tm, err := d.NewTimer(8)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(tm.Release)
	return GPU{Device: d, Timer: tm}
}

// small is a configuration every workload runs in well under a second.
var small = Config{Dim: 64, N: 1500, Q: 5, C: 7, K: 9, Nodes: 700, Degree: 6, Steps: 3, Seed: 11}

// runSide poisons, runs once and verifies.
func runSide(s Side) error {
	defer s.Close()
	s.Poison()
	if _, err := s.Run(); err != nil {
		return err
	}
	return s.Verify()
}

// Every registered workload, at its default and a smaller batch, passes
// verification on both sides; a poisoned side that is not run fails it.
func TestEveryWorkloadBothSides(t *testing.T) {
	g := openGPU(t)
	for _, d := range All() {
		t.Run(d.Name, func(t *testing.T) {
			c := small
			c.Defaults()
			if err := d.Check(c); err != nil {
				t.Fatal(err)
			}
			pr, err := d.Prepare(c)
			if err != nil {
				t.Fatal(err)
			}
			for _, n := range []int{pr.Size, max(pr.MinBatch, pr.Size/3)} {
				cs := pr.At(n, Knobs{})
				if cs.Name != d.Name || cs.Bytes <= 0 || cs.Flops <= 0 || cs.Variant == "" {
					t.Fatalf("case %+v: name, bytes, flops and variant must be set", cs)
				}
				gs, err := cs.GPU.BuildGPU(g)
				if err != nil {
					t.Fatal(err)
				}
				if err := runSide(gs); err != nil {
					t.Fatalf("gpu n=%d: %v", n, err)
				}
				cpu, err := cs.CPU.BuildCPU(hostsimd.Host{})
				if err != nil {
					t.Fatal(err)
				}
				if err := runSide(cpu); err != nil {
					t.Fatalf("cpu n=%d: %v", n, err)
				}
				// Poisoned and never run: verification must fail.
				cpu, _ = cs.CPU.BuildCPU(hostsimd.Host{})
				cpu.Poison()
				if err := cpu.Verify(); !errors.Is(err, ErrMismatch) && !strings.Contains(fmtErr(err), "want") {
					t.Fatalf("a poisoned, unrun CPU side passed verification (%v)", err)
				}
			}
		})
	}
}

func fmtErr(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// A reference that disagrees at one row makes verification fail.
func TestPlantedReferenceErrorIsCaught(t *testing.T) {
	data := newCosineData(3, 300, 32)
	data.ref.want[17] += 0.01
	st, err := data.stored(PrecisionF32)
	if err != nil {
		t.Fatal(err)
	}
	cs := cosineSingleCase(data, st, 300, Knobs{})
	cpu, _ := cs.CPU.BuildCPU(hostsimd.Host{})
	if err := runSide(cpu); !errors.Is(err, ErrMismatch) || !strings.Contains(err.Error(), "[17]") {
		t.Fatalf("got %v, want a mismatch at row 17", err)
	}
}

// NaN never passes, whatever the tolerance.
func TestCheckCloseRefusesNaN(t *testing.T) {
	nan := float32(0)
	nan = nan / nan
	err := checkClose("x", []float32{nan}, func(int) (float64, float64) { return 0, 1e300 })
	if !errors.Is(err, ErrMismatch) {
		t.Fatalf("NaN passed: %v", err)
	}
}

func TestBatchKnobsLabelTheKernelThatRuns(t *testing.T) {
	pr, err := CosineBatch.Prepare(small)
	if err != nil {
		t.Fatal(err)
	}
	for tile, want := range map[int]string{0: "tiled-tile32", 16: "tiled-tile16", 64: "tiled-tile64"} {
		if got := pr.At(2, Knobs{Tile: tile}).Variant; got != want {
			t.Fatalf("tile %d labelled %q, want %q", tile, got, want)
		}
	}
}

func TestRegistry(t *testing.T) {
	seen := map[string]bool{}
	for _, d := range All() {
		if seen[d.Name] || d.Name == "" || d.Workload == nil || d.Batch == "" || d.Doc == "" {
			t.Fatalf("descriptor %q: a unique name, Doc, Batch and Prepare are required", d.Name)
		}
		seen[d.Name] = true
	}
	if _, err := Lookup("nope"); err == nil || !strings.Contains(err.Error(), "cosine-single") {
		t.Fatalf("Lookup of an unknown name: %v (want the list of names)", err)
	}
	if _, err := Parse("hnsw,hnsw"); err == nil {
		t.Fatal("a workload named twice was accepted")
	}
	ds, err := Parse(" hnsw, cosine-single")
	if err != nil || len(ds) != 2 || ds[0] != HNSW || ds[1] != CosineSingle {
		t.Fatalf("Parse: %v %v", ds, err)
	}
}

// No Go file outside this package names a workload in a string literal:
// knowledge of a workload lives in its descriptor (tests and docs may
// name them).
func TestNoWorkloadNamesOutsideDescriptors(t *testing.T) {
	names := map[string]bool{}
	for _, n := range Names() {
		names[n] = true
	}
	root := ".."
	err := filepath.WalkDir(root, func(path string, de fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if de.IsDir() {
			switch de.Name() {
			case "workload", "third_party", ".git", "_gen", "testdata":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				if s, err := strconv.Unquote(lit.Value); err == nil && names[s] {
					t.Errorf("%s names workload %q: move that knowledge into its descriptor", path, s)
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestNameWordsCompileInOrder: every descriptor's NameWords is a valid
// regular expression and no two share a NameOrder, so plan --suggest's
// most-specific-first order is defined.
func TestNameWordsCompileInOrder(t *testing.T) {
	seen := map[int]string{}
	n := 0
	for _, d := range All() {
		if d.NameWords == "" {
			continue
		}
		n++
		if _, err := regexp.Compile(d.NameWords); err != nil {
			t.Errorf("%s: NameWords %q: %v", d.Name, d.NameWords, err)
		}
		if other, ok := seen[d.NameOrder]; ok {
			t.Errorf("%s and %s share NameOrder %d", d.Name, other, d.NameOrder)
		}
		seen[d.NameOrder] = d.Name
	}
	if n == 0 {
		t.Fatal("no workload has NameWords: plan --suggest can propose nothing")
	}
}
