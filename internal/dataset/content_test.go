package dataset

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
)

// Text given as vectors is refused by its content, whatever its name or a
// dimension given with it, with a message that says what it is, what is
// read and how to convert it.
func TestTextRefusedAsVectors(t *testing.T) {
	csv := "0.0466,0.1234,-0.5,1e-3\n0.25,0.5,0.75,1\n"
	for _, c := range []struct{ name, text, kind string }{
		{"x.csv", csv, "comma-separated"},
		{"x.f32", csv, "comma-separated"},
		{"x.bin", "a,b,c,d\n1,2,3,4\n", "comma-separated"},
		{"x.tsv", "1\t2\t3\t4\n5\t6\t7\t8\n", "tab-separated"},
		{"x.txt", "1 2 3 4\n5 6 7 8\n", "text"},
		{"x.fvecs", "\ufeff1;2;3;4\r\n", "comma-separated"},
		{"x.npy", csv, "comma-separated"},
	} {
		for _, dim := range []int{0, 4} {
			_, err := LoadVectors(write(t, c.name, []byte(c.text)), VectorOptions{Dim: dim})
			var fe *FormatError
			if !errors.As(err, &fe) {
				t.Errorf("%s (d %d): %v, want a FormatError", c.name, dim, err)
				continue
			}
			for _, want := range []string{c.name + " is text", c.kind, ".npy", ".fvecs", "raw little-endian float32", "numpy.save"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("%s (d %d): %q does not say %q", c.name, dim, err, want)
				}
			}
		}
	}
	// Binary float32 that starts with printable bytes is still binary.
	b := f32Bytes([]float32{1, 2, 3, 4})
	if v, err := LoadVectors(write(t, "v.f32", b), VectorOptions{Dim: 4}); err != nil || v.Rows != 1 {
		t.Errorf("raw float32 refused: %v", err)
	}
}

// A NumPy file is read as one whatever its name.
func TestNpyByContent(t *testing.T) {
	want := rows(3, 4)
	for _, name := range []string{"v.fvecs", "v.bin", "v"} {
		v, err := LoadVectors(write(t, name, npyBytes("<f4", false, "(3, 4)", f32Bytes(want))), VectorOptions{Dim: 4})
		if err != nil || v.Format != "npy" || v.Rows != 3 || v.Data[5] != want[5] {
			t.Errorf("%s: %v %+v", name, err, v)
		}
	}
}

// An .npy file longer than its header declares is refused (a file with
// more data than its shape is not the array its header says).
func TestNpyLongerThanHeaderRefused(t *testing.T) {
	data := f32Bytes(rows(5, 8))
	for _, extra := range []int{1, 4, 32} {
		b := npyBytes("<f4", false, "(4, 8)", data[:4*8*4+extra])
		_, err := LoadVectors(write(t, "long.npy", b), VectorOptions{})
		var fe *FormatError
		if !errors.As(err, &fe) || !strings.Contains(err.Error(), "the header declares 4×8") {
			t.Errorf("%d bytes past the declared shape: %v, want refused naming the header's shape", extra, err)
		}
	}
}

// An .fvecs (or .bvecs) row after the first that declares another
// dimension is refused even when the file's size is a whole number of
// rows of the first row's dimension.
func TestFvecsRowDeclaringAnotherDimension(t *testing.T) {
	for _, bvecs := range []bool{false, true} {
		b := fvecsBytes(rows(3, 4), 4, bvecs)
		size := 4 + 4*4
		name := "x.fvecs"
		if bvecs {
			size, name = 4+4, "x.bvecs"
		}
		for _, bad := range []uint32{5, 3, 0} {
			c := append([]byte(nil), b...)
			binary.LittleEndian.PutUint32(c[2*size:], bad)
			_, err := LoadVectors(write(t, name, c), VectorOptions{})
			var fe *FormatError
			if !errors.As(err, &fe) || !strings.Contains(err.Error(), "row 2 declares dimension") {
				t.Errorf("%s row 2 declaring %d: %v, want refused naming row 2", name, bad, err)
			}
		}
	}
}

// A Matrix Market entry whose column (or row) id is one past the matrix
// is refused; the last id inside is accepted.
func TestMtxIDOnePastRefused(t *testing.T) {
	head := "%%MatrixMarket matrix coordinate real general\n3 3 1\n"
	for _, entry := range []string{"1 4 1", "4 1 1", "0 1 1", "1 0 1"} {
		_, err := LoadGraph(write(t, "g.mtx", []byte(head+entry+"\n")), GraphOptions{})
		var fe *FormatError
		if !errors.As(err, &fe) || !strings.Contains(err.Error(), "outside the 3×3 matrix") {
			t.Errorf("entry %q: %v, want refused as outside the matrix", entry, err)
		}
	}
	g, err := LoadGraph(write(t, "g.mtx", []byte(head+"3 3 1\n")), GraphOptions{})
	if err != nil || g.Nodes != 3 || g.Src[0] != 2 || g.Dst[0] != 2 {
		t.Errorf("entry (3, 3): %v %+v", err, g)
	}
}

// Values whose squares leave float32's normal range are refused: the GPU's
// float32 arithmetic would flush or overflow them, and they nearly always
// mean another type read as float32 (float64 data read as raw float32).
func TestMagnitudesOutsideFloat32Refused(t *testing.T) {
	for _, x := range []float32{1e-25, -1e-30, 1e20, -3e38, math.SmallestNonzeroFloat32} {
		d := rows(2, 4)
		d[5] = x
		_, err := LoadVectors(write(t, "v.npy", npyBytes("<f4", false, "(2, 4)", f32Bytes(d))), VectorOptions{})
		if err == nil || !strings.Contains(err.Error(), "row 1, column 1") || !strings.Contains(err.Error(), "float32's normal range") {
			t.Errorf("value %v: %v, want refused naming row 1, column 1", x, err)
		}
	}
	d := rows(2, 4)
	d[1], d[2] = float32(minMagnitude), -float32(maxMagnitude)
	if _, err := LoadVectors(write(t, "v.npy", npyBytes("<f4", false, "(2, 4)", f32Bytes(d))), VectorOptions{}); err != nil {
		t.Errorf("the bounds themselves: %v", err)
	}
	// float64 data read as raw float32: refused, not passed to a kernel.
	var f64 []byte
	for i := range 64 {
		f64 = binary.LittleEndian.AppendUint64(f64, math.Float64bits(0.1+float64(i)/7))
	}
	if _, err := LoadVectors(write(t, "v.bin", f64), VectorOptions{Dim: 8}); err == nil {
		t.Error("float64 data read as raw float32: accepted")
	}
}

// A graph file is text: binary data is refused naming what is read, and
// comma-separated edge lists are read.
func TestGraphContent(t *testing.T) {
	for _, b := range [][]byte{npyBytes("<f4", false, "(1, 4)", f32Bytes(rows(1, 4))), {0, 1, 0, 2}} {
		_, err := LoadGraph(write(t, "g.txt", b), GraphOptions{})
		var fe *FormatError
		if !errors.As(err, &fe) || !strings.Contains(err.Error(), "not a graph") || !strings.Contains(err.Error(), "edge list") {
			t.Errorf("binary %q: %v", b[:4], err)
		}
	}
	g, err := LoadGraph(write(t, "g.csv", []byte("0,1\n1, 2,0.5\n")), GraphOptions{})
	if err != nil || g.Nodes != 3 || len(g.Src) != 2 || g.Weight[1] != 0.5 {
		t.Errorf("comma-separated edges: %v %+v", err, g)
	}
}

// A graph read for fewer nodes than its edges reach is refused at the
// first edge past the limit, naming the line and the node, in both
// formats; an edge to the last node allowed is kept.
func TestGraphNodeLimit(t *testing.T) {
	for _, c := range []struct {
		name, text string
		line       int
		node       int64
	}{
		{"e.txt", "0 1\n2 1\n1 3\n3 0\n", 3, 3},
		{"e.txt", "0 1\n# c\n3 2\n", 3, 3},
		// .mtx entry (i, j) is an edge from j−1 to i−1.
		{"g.mtx", "%%MatrixMarket matrix coordinate real general\n4 4 3\n2 1 1\n1 4 1\n3 2 1\n", 4, 3},
	} {
		_, err := LoadGraph(write(t, c.name, []byte(c.text)), GraphOptions{MaxNodes: 3})
		var ne *NodeRangeError
		if !errors.As(err, &ne) || ne.Line != c.line || ne.Node != c.node || ne.Limit != 3 {
			t.Errorf("%s %q: got %v, want line %d node %d limit 3", c.name, c.text, err, c.line, c.node)
			continue
		}
		if want := fmt.Sprintf("line %d", c.line); !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "node 3, past the 3 nodes allowed (ids 0 … 2)") {
			t.Errorf("%s: %q names neither %q nor the node and limit", c.name, err, want)
		}
	}
	g, err := LoadGraph(write(t, "e.txt", []byte("0 1\n2 1\n1 2\n")), GraphOptions{MaxNodes: 3})
	if err != nil || g.Nodes != 3 || len(g.Src) != 3 {
		t.Errorf("every edge inside the limit: %v %+v", err, g)
	}
}
