package dataset

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"github.com/wgpu-prof/wgpu-prof/ops"
)

// Graph is a weighted directed graph read from a file, nodes 0 … Nodes−1.
type Graph struct {
	Info
	Nodes int
	// Src, Dst and Weight are the edges in file order.
	Src, Dst []int32
	Weight   []float32
}

// GraphOptions bound what LoadGraph may read.
type GraphOptions struct {
	// MaxBytes refuses a graph whose edges would take more memory (0: no
	// limit): checked against the file's size (an edge takes at least 4
	// bytes of text) before anything is allocated, and again as it grows.
	MaxBytes uint64
	// MaxNodes refuses an edge reaching node MaxNodes or past it (0: no
	// limit) with a *NodeRangeError naming its line, so that a graph read
	// for fewer nodes than it holds never loses an edge in silence.
	MaxNodes int
}

// NodeRangeError is an edge of a graph file reaching a node at or past
// GraphOptions.MaxNodes.
type NodeRangeError struct {
	Line  int    // the file's line, 1-based
	Text  string // what the line holds
	Node  int64  // the node id past the limit, 0-based
	Limit int    // the nodes allowed: ids 0 … Limit−1
}

func (e *NodeRangeError) Error() string {
	return fmt.Sprintf("line %d (%q) has an edge to node %d, past the %d nodes allowed (ids 0 … %d)", e.Line, e.Text, e.Node, e.Limit, e.Limit-1)
}

// graphFormats says what LoadGraph reads.
const graphFormats = "graphs are read from a text edge list ('src dst [weight]' per line, 0-based ids, separated by spaces, tabs or commas) or a Matrix Market coordinate file (.mtx)"

// fields splits a line at white space and commas.
func fields(t string) []string {
	return strings.FieldsFunc(t, func(r rune) bool { return r == ',' || unicode.IsSpace(r) })
}

// edgeBytes is the memory an edge takes here and in a CSR built from it.
const edgeBytes = 4 + 4 + 4 + 4 + 4

// LoadGraph reads the graph of path: a Matrix Market coordinate file
// (.mtx; entry i j [w] is an edge from node j to node i, 1-based) or else a
// text edge list ("src dst [weight]" per line, 0-based ids, separated by
// white space or commas, '#' or '%' starting a comment). A missing weight
// is 1; weights must be finite and positive. A binary file is refused by
// its content, naming what is read.
func LoadGraph(path string, opts GraphOptions) (*Graph, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	g := &Graph{}
	g.File = filepath.Base(path)
	g.Format, g.DType = "edges", "float32"
	if err := refuseBinary(f, g.File); err != nil {
		return nil, err
	}
	h := sha256.New()
	sc := bufio.NewScanner(io.TeeReader(f, h))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	gr := &graphReader{sc: sc, g: g, opts: opts, maxID: -1}
	if strings.ToLower(filepath.Ext(path)) == ".mtx" {
		g.Format, gr.mtx = "mtx", true
		if err := gr.mtxHeader(); err != nil {
			return nil, err
		}
	} else if st, err := f.Stat(); err == nil && opts.MaxBytes > 0 && uint64(st.Size())/4*edgeBytes > opts.MaxBytes {
		return nil, fmt.Errorf("%d bytes of edges may need up to %d bytes of memory; the limit is %d", st.Size(), uint64(st.Size())/4*edgeBytes, opts.MaxBytes)
	}
	if err := gr.edges(); err != nil {
		return nil, err
	}
	if !gr.mtx {
		g.Nodes = int(gr.maxID + 1)
	}
	if len(g.Src) == 0 || g.Nodes == 0 {
		return nil, &FormatError{"no edges"}
	}
	g.Shape = [2]int{g.Nodes, len(g.Src)}
	g.Hash = hashPrefix(h)
	return g, nil
}

// refuseBinary refuses a file whose start is a NumPy file or holds a NUL
// byte: a graph is text.
func refuseBinary(f *os.File, name string) error {
	head := make([]byte, sniffBytes)
	n, _ := f.ReadAt(head, 0)
	if head = head[:n]; isNpy(head) || bytes.IndexByte(head, 0) >= 0 {
		what := "binary data"
		if isNpy(head) {
			what = "a NumPy .npy file"
		}
		return &FormatError{fmt.Sprintf("%s is %s, not a graph: %s", name, what, graphFormats)}
	}
	return nil
}

// graphReader reads the lines of a graph file into g.
type graphReader struct {
	sc   *bufio.Scanner
	g    *Graph
	opts GraphOptions
	line int // the line last read, 1-based
	// mtx: a Matrix Market file of rows×rows with nnz entries (twice
	// that many edges when symmetric).
	mtx       bool
	symmetric bool
	rows, nnz int
	maxID     int64 // the largest node id of an edge read
}

// bad is a FormatError naming the line.
func (gr *graphReader) bad(line int, format string, args ...any) error {
	return &FormatError{fmt.Sprintf("line %d: %s", line, fmt.Sprintf(format, args...))}
}

// mtxHeader reads a Matrix Market banner and size line, checks the
// memory the edges will take, and allocates them.
func (gr *graphReader) mtxHeader() error {
	if !gr.sc.Scan() {
		return gr.bad(1, "empty file")
	}
	gr.line++
	head := strings.Fields(strings.ToLower(gr.sc.Text()))
	if len(head) < 5 || head[0] != "%%matrixmarket" || head[1] != "matrix" || head[2] != "coordinate" {
		return gr.bad(1, "want a '%%%%MatrixMarket matrix coordinate …' header")
	}
	switch head[3] {
	case "real", "integer", "pattern":
	default:
		return gr.bad(1, "field %q: want real, integer or pattern", head[3])
	}
	switch head[4] {
	case "general":
	case "symmetric":
		gr.symmetric = true
	default:
		return gr.bad(1, "symmetry %q: want general or symmetric", head[4])
	}
	if err := gr.mtxSize(); err != nil {
		return err
	}
	edges := uint64(gr.nnz)
	if gr.symmetric {
		edges *= 2
	}
	if gr.opts.MaxBytes > 0 && edges*edgeBytes > gr.opts.MaxBytes {
		return fmt.Errorf("%d edges need about %d bytes of memory; the limit is %d", edges, edges*edgeBytes, gr.opts.MaxBytes)
	}
	g := gr.g
	g.Src, g.Dst, g.Weight = make([]int32, 0, edges), make([]int32, 0, edges), make([]float32, 0, edges)
	g.Nodes = gr.rows
	return nil
}

// mtxSize reads the size line 'rows cols entries' after the comments; a
// graph's matrix is square.
func (gr *graphReader) mtxSize() error {
	for gr.sc.Scan() {
		gr.line++
		t := strings.TrimSpace(gr.sc.Text())
		if t == "" || t[0] == '%' {
			continue
		}
		f := strings.Fields(t)
		if len(f) != 3 {
			return gr.bad(gr.line, "want the size line 'rows cols entries'")
		}
		rows, e1 := strconv.Atoi(f[0])
		cols, e2 := strconv.Atoi(f[1])
		nnz, e3 := strconv.Atoi(f[2])
		if e1 != nil || e2 != nil || e3 != nil || rows <= 0 || cols <= 0 || nnz < 0 {
			return gr.bad(gr.line, "size line %q: want three non-negative integers", t)
		}
		if rows != cols {
			return gr.bad(gr.line, "a %d×%d matrix: a graph's adjacency matrix is square", rows, cols)
		}
		gr.rows, gr.nnz = rows, nnz
		return nil
	}
	return gr.bad(gr.line, "no size line")
}

// edges reads the remaining lines, one edge each (comments and blank
// lines skipped).
func (gr *graphReader) edges() error {
	for gr.sc.Scan() {
		gr.line++
		t := strings.TrimSpace(gr.sc.Text())
		if t == "" || t[0] == '#' || t[0] == '%' {
			continue
		}
		a, b, w, err := gr.parseEdge(t)
		if err != nil {
			return err
		}
		if err := gr.add(t, a, b, w); err != nil {
			return err
		}
	}
	if err := gr.sc.Err(); err != nil {
		return fmt.Errorf("line %d: %w", gr.line+1, err)
	}
	return nil
}

// parseEdge reads 'a b [w]': two integer ids and a finite positive weight
// (1 when missing).
func (gr *graphReader) parseEdge(t string) (a, b int64, w float64, err error) {
	f := fields(t)
	if len(f) < 2 || len(f) > 3 {
		return 0, 0, 0, gr.bad(gr.line, "%q: want 'src dst' or 'src dst weight'", t)
	}
	a, e1 := strconv.ParseInt(f[0], 10, 64)
	b, e2 := strconv.ParseInt(f[1], 10, 64)
	if e1 != nil || e2 != nil {
		return 0, 0, 0, gr.bad(gr.line, "%q: node ids must be integers", t)
	}
	w = 1.0
	if len(f) == 3 {
		if w, err = strconv.ParseFloat(f[2], 64); err != nil || math.IsNaN(w) || math.IsInf(w, 0) || w <= 0 || w > math.MaxFloat32 {
			return 0, 0, 0, gr.bad(gr.line, "weight %q: want a finite positive number", f[2])
		}
	}
	return a, b, w, nil
}

// add appends the edge of a line: an .mtx entry (a, b) is an edge from
// node b−1 to node a−1 (both ways when symmetric), an edge list's a b an
// edge from a to b. t is the line's text, for errors.
func (gr *graphReader) add(t string, a, b int64, w float64) error {
	g := gr.g
	var src, dst int64
	if gr.mtx {
		// Entry (i, j) of an adjacency matrix: row i receives from j.
		if a < 1 || a > int64(gr.rows) || b < 1 || b > int64(gr.rows) {
			return gr.bad(gr.line, "entry (%d, %d) is outside the %d×%d matrix (ids are 1-based)", a, b, gr.rows, gr.rows)
		}
		if len(g.Src) >= gr.nnz*(1+b2i(gr.symmetric)) {
			return gr.bad(gr.line, "more entries than the %d the size line declares", gr.nnz)
		}
		src, dst = b-1, a-1
	} else {
		if a < 0 || b < 0 || a >= math.MaxInt32 || b >= math.MaxInt32 {
			return gr.bad(gr.line, "node id out of range [0, 2³¹−1)")
		}
		src, dst = a, b
		if gr.opts.MaxBytes > 0 && uint64(len(g.Src)+1)*edgeBytes > gr.opts.MaxBytes {
			return fmt.Errorf("past %d edges at line %d the graph needs more than the %d bytes of memory allowed", len(g.Src), gr.line, gr.opts.MaxBytes)
		}
	}
	if limit := int64(gr.opts.MaxNodes); limit > 0 && max(src, dst) >= limit {
		return &NodeRangeError{Line: gr.line, Text: t, Node: max(src, dst), Limit: gr.opts.MaxNodes}
	}
	gr.maxID = max(gr.maxID, src, dst)
	g.Src, g.Dst, g.Weight = append(g.Src, int32(src)), append(g.Dst, int32(dst)), append(g.Weight, float32(w))
	if gr.symmetric && src != dst {
		g.Src, g.Dst, g.Weight = append(g.Src, int32(dst)), append(g.Dst, int32(src)), append(g.Weight, float32(w))
	}
	return nil
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Prefix returns the subgraph induced by nodes 0 … n−1 (the edges with
// both ends below n) as a CSR of in-edges: row v lists the nodes with an
// edge into v, in file order.
func (g *Graph) Prefix(n int) *ops.CSR {
	n = min(max(n, 1), g.Nodes)
	count := make([]int32, n+1)
	for e := range g.Src {
		if int(g.Src[e]) < n && int(g.Dst[e]) < n {
			count[g.Dst[e]+1]++
		}
	}
	for i := 1; i <= n; i++ {
		count[i] += count[i-1]
	}
	csr := &ops.CSR{Offsets: count, Cols: make([]int32, count[n]), Weights: make([]float32, count[n])}
	next := append([]int32(nil), count[:n]...)
	for e := range g.Src {
		s, d := g.Src[e], g.Dst[e]
		if int(s) < n && int(d) < n {
			csr.Cols[next[d]], csr.Weights[next[d]] = s, g.Weight[e]
			next[d]++
		}
	}
	// Sort each row by source so the CSR does not depend on edge order.
	for v := range n {
		lo, hi := csr.Offsets[v], csr.Offsets[v+1]
		cols, ws := csr.Cols[lo:hi], csr.Weights[lo:hi]
		sort.Sort(byCol{cols, ws})
	}
	return csr
}

type byCol struct {
	c []int32
	w []float32
}

func (b byCol) Len() int           { return len(b.c) }
func (b byCol) Less(i, j int) bool { return b.c[i] < b.c[j] }
func (b byCol) Swap(i, j int) {
	b.c[i], b.c[j] = b.c[j], b.c[i]
	b.w[i], b.w[j] = b.w[j], b.w[i]
}
