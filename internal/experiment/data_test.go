package experiment

import (
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wgpu-prof/wgpu-prof/internal/experiment/env"
)

// fvecs writes rows×d values in the .fvecs layout.
func fvecs(t *testing.T, name string, rows, d int, bad int) string {
	t.Helper()
	var b []byte
	for i := range rows {
		b = binary.LittleEndian.AppendUint32(b, uint32(d))
		for k := range d {
			x := float32(i+k%7) - 3
			if bad == -2 && i == 3 {
				x = 0
			}
			if i == bad && k == 1 {
				x = float32(math.Inf(1))
			}
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
		}
	}
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoadData(t *testing.T) {
	none := func(string) bool { return false }
	v, q := fvecs(t, "v.fvecs", 40, 6, -1), fvecs(t, "q.fvecs", 3, 6, -1)
	c := RunConfig{Workloads: []string{"cosine-single", "cosine-topk"}}
	c.VectorsFile, c.QueriesFile = v, q
	c.Defaults()
	if err := c.LoadData(none); err != nil {
		t.Fatal(err)
	}
	if c.Dim != 8 || c.N != 40 || c.Q != 3 || c.Vectors == nil || c.Queries == nil {
		t.Fatalf("d %d n %d q %d", c.Dim, c.N, c.Q)
	}
	if w := c.DataWarnings(); len(w) != 0 {
		t.Errorf("every row used: warnings %q", w)
	}
	files, lines := c.DataFiles()
	if len(files) != 2 || files[0].Shape != [2]int{40, 6} || files[0].PaddedTo != 8 || !strings.Contains(lines[0], "v.fvecs") {
		t.Fatalf("%+v %q", files, lines)
	}
	// An explicit n selects a prefix; one past the file is refused.
	c = RunConfig{Workloads: []string{"cosine-single"}}
	c.VectorsFile, c.N = v, 16
	c.Defaults()
	if err := c.LoadData(func(s string) bool { return s == "n" }); err != nil || c.N != 16 {
		t.Fatalf("n 16: %v, n %d", err, c.N)
	}
	// ... and says so, with the count left unused.
	if w := c.DataWarnings(); len(w) != 1 || !strings.Contains(w[0], "--n 16 uses the first 16 of the 40 rows of ") || !strings.HasSuffix(w[0], "24 rows not used") {
		t.Errorf("a prefix of the file: warnings %q", w)
	}
	for _, tc := range []struct {
		c    RunConfig
		set  string
		want string
	}{
		{RunConfig{Workloads: []string{"spread-uniform"}}, "", "spread-uniform do(es) not read it"},
		{RunConfig{Workloads: []string{"cosine-single"}, Config: WorkloadConfig{N: 41}}, "n", "n 41: past the 40 rows"},
		{RunConfig{Workloads: []string{"cosine-single"}, Config: WorkloadConfig{Dim: 12}}, "d", "dimension 6, but d 12"},
	} {
		tc.c.VectorsFile = v
		tc.c.Defaults()
		err := tc.c.LoadData(func(s string) bool { return s == tc.set })
		if err == nil || !env.IsUsage(err) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("got %v, want a usage error containing %q", err, tc.want)
		}
	}
	c = RunConfig{Workloads: []string{"cosine-single"}}
	c.VectorsFile = fvecs(t, "zero.fvecs", 10, 8, -2)
	c.Defaults()
	if err := c.LoadData(none); err == nil || !strings.Contains(err.Error(), "row 3 is all zeros") {
		t.Errorf("zero row: %v", err)
	}
	c = RunConfig{Workloads: []string{"cosine-single"}}
	c.VectorsFile = fvecs(t, "inf.fvecs", 10, 8, 7)
	c.Defaults()
	if err := c.LoadData(none); err == nil || !strings.Contains(err.Error(), "vectors") || !strings.Contains(err.Error(), "row 7, column 1 is +Inf") {
		t.Errorf("Inf row: %v", err)
	}
}

// A graph whose edges reach past an explicit --nodes is refused, naming
// the file, the line, the node and the limit, instead of dropping the
// edge; --nodes covering every edge, or omitted, reads the whole graph.
func TestLoadGraphNodesDropNoEdge(t *testing.T) {
	p := filepath.Join(t.TempDir(), "edges.txt")
	if err := os.WriteFile(p, []byte("0 1\n1 2\n2 0\n# last\n2 3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	nodes := func(s string) bool { return s == "nodes" }
	c := RunConfig{Workloads: []string{"spread-uniform"}}
	c.GraphFile, c.Nodes = p, 3
	c.Defaults()
	err := c.LoadData(nodes)
	if !env.IsUsage(err) {
		t.Fatalf("nodes 3 with an edge to node 3: %v, want a usage error", err)
	}
	for _, want := range []string{"nodes 3: ", p, "line 5", "node 3, past the 3 nodes allowed (ids 0 … 2)"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q lacks %q", err, want)
		}
	}
	for _, tc := range []struct {
		nodes int
		set   func(string) bool
	}{{4, nodes}, {0, func(string) bool { return false }}} {
		c = RunConfig{Workloads: []string{"spread-uniform"}}
		c.GraphFile, c.Nodes = p, tc.nodes
		c.Defaults()
		if err := c.LoadData(tc.set); err != nil || c.Nodes != 4 || len(c.Graph.Src) != 4 {
			t.Errorf("nodes %d: %v, nodes %d", tc.nodes, err, c.Nodes)
		}
	}
}
