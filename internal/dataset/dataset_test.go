package dataset

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// npyBytes writes a .npy file byte for byte as NumPy's format 1.0 does:
// magic, version, little-endian header length, a dict padded with spaces
// and ended by '\n' so the data starts at a multiple of 64, then the data.
func npyBytes(descr string, fortran bool, shape string, data []byte) []byte {
	order := "False"
	if fortran {
		order = "True"
	}
	dict := fmt.Sprintf("{'descr': '%s', 'fortran_order': %s, 'shape': %s, }", descr, order, shape)
	total := 10 + len(dict) + 1
	pad := (64 - total%64) % 64
	dict += strings.Repeat(" ", pad) + "\n"
	out := []byte("\x93NUMPY\x01\x00")
	out = binary.LittleEndian.AppendUint16(out, uint16(len(dict)))
	out = append(out, dict...)
	return append(out, data...)
}

func f32Bytes(v []float32) []byte {
	var out []byte
	for _, x := range v {
		out = binary.LittleEndian.AppendUint32(out, math.Float32bits(x))
	}
	return out
}

func rows(n, d int) []float32 {
	v := make([]float32, n*d)
	for i := range v {
		v[i] = float32(i%97) - 48.5
	}
	return v
}

func write(t *testing.T, name string, b []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestNpyFloat32(t *testing.T) {
	want := rows(5, 8)
	v, err := LoadVectors(write(t, "v.npy", npyBytes("<f4", false, "(5, 8)", f32Bytes(want))), VectorOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if v.Rows != 5 || v.Dim != 8 || v.Shape != [2]int{5, 8} || v.DType != "float32" || v.Format != "npy" || len(v.Hash) != 12 {
		t.Fatalf("got %+v", v.Info)
	}
	for i, x := range want {
		if v.Data[i] != x {
			t.Fatalf("value %d: %v, want %v", i, v.Data[i], x)
		}
	}
}

func TestNpyFloat16AndPadding(t *testing.T) {
	// 1.0, -2.0, 0.5, 65504, a subnormal (2⁻²⁴) and 0 in binary16; d 3
	// is padded to 4 with zeros.
	halves := []uint16{0x3c00, 0xc000, 0x3800, 0x7bff, 0x0001, 0x0000}
	want := []float32{1, -2, 0.5, 65504, float32(math.Ldexp(1, -24)), 0}
	var b []byte
	for _, h := range halves {
		b = binary.LittleEndian.AppendUint16(b, h)
	}
	v, err := LoadVectors(write(t, "h.npy", npyBytes("<f2", false, "(2, 3)", b)), VectorOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if v.Dim != 4 || v.Padded != 4 || v.DType != "float16" {
		t.Fatalf("got %+v dim %d", v.Info, v.Dim)
	}
	for i := range 2 {
		for k := range 3 {
			if got := v.Row(i)[k]; got != want[3*i+k] {
				t.Errorf("row %d col %d: %v, want %v", i, k, got, want[3*i+k])
			}
		}
		if v.Row(i)[3] != 0 {
			t.Errorf("row %d: padding %v, want 0", i, v.Row(i)[3])
		}
	}
}

func TestNpyRefused(t *testing.T) {
	data := rows(4, 8)
	nan := append([]float32(nil), data...)
	nan[2*8+5] = float32(math.NaN())
	inf := append([]float32(nil), data...)
	inf[3*8] = float32(math.Inf(-1))
	for _, c := range []struct {
		name string
		b    []byte
		want string
	}{
		{"nan", npyBytes("<f4", false, "(4, 8)", f32Bytes(nan)), "row 2, column 5 is NaN"},
		{"inf", npyBytes("<f4", false, "(4, 8)", f32Bytes(inf)), "row 3, column 0 is -Inf"},
		{"fortran", npyBytes("<f4", true, "(4, 8)", f32Bytes(data)), "Fortran"},
		{"3d", npyBytes("<f4", false, "(2, 2, 8)", f32Bytes(data)), "3-D"},
		{"1d", npyBytes("<f4", false, "(32,)", f32Bytes(data)), "1-D"},
		{"f8", npyBytes("<f8", false, "(2, 8)", f32Bytes(data)), "dtype"},
		{"bigendian", npyBytes(">f4", false, "(4, 8)", f32Bytes(data)), "dtype"},
		{"short", npyBytes("<f4", false, "(5, 8)", f32Bytes(data)), "the header declares 5×8"},
		{"magic", []byte("not numpy at all"), "magic"},
	} {
		_, err := LoadVectors(write(t, c.name+".npy", c.b), VectorOptions{})
		var fe *FormatError
		if err == nil || !errors.As(err, &fe) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want a FormatError containing %q", c.name, err, c.want)
		}
	}
}

// fvecsBytes writes the ANN-benchmark layout: per row a little-endian
// int32 dimension, then the values (4-byte floats, or bytes for bvecs).
func fvecsBytes(v []float32, d int, bvecs bool) []byte {
	var out []byte
	for i := 0; i < len(v)/d; i++ {
		out = binary.LittleEndian.AppendUint32(out, uint32(d))
		for _, x := range v[i*d : (i+1)*d] {
			if bvecs {
				out = append(out, byte(x))
			} else {
				out = binary.LittleEndian.AppendUint32(out, math.Float32bits(x))
			}
		}
	}
	return out
}

func TestFvecsBvecsRaw(t *testing.T) {
	want := rows(3, 12)
	v, err := LoadVectors(write(t, "q.fvecs", fvecsBytes(want, 12, false)), VectorOptions{})
	if err != nil || v.Rows != 3 || v.Dim != 12 || v.Data[13] != want[13] {
		t.Fatalf("fvecs: %v %+v", err, v)
	}
	bytesIn := make([]float32, 2*6)
	for i := range bytesIn {
		bytesIn[i] = float32(i * 20)
	}
	b, err := LoadVectors(write(t, "b.bvecs", fvecsBytes(bytesIn, 6, true)), VectorOptions{})
	if err != nil || b.Rows != 2 || b.Dim != 8 || b.Shape[1] != 6 || b.Row(1)[5] != 220 || b.Row(1)[6] != 0 || b.DType != "uint8" {
		t.Fatalf("bvecs: %v %+v", err, b)
	}
	raw := write(t, "v.f32", f32Bytes(want))
	if _, err := LoadVectors(raw, VectorOptions{}); err == nil || !strings.Contains(err.Error(), "needs its dimension") {
		t.Errorf("raw without d: %v", err)
	}
	r, err := LoadVectors(raw, VectorOptions{Dim: 12})
	if err != nil || r.Rows != 3 || r.Data[35] != want[35] {
		t.Fatalf("raw: %v %+v", err, r)
	}
	if _, err := LoadVectors(raw, VectorOptions{Dim: 10}); err == nil {
		t.Error("raw with a dimension that does not divide the file: accepted")
	}
	mixed := append(fvecsBytes(want[:12], 12, false), fvecsBytes(want[:8], 8, false)...)
	if _, err := LoadVectors(write(t, "m.fvecs", mixed), VectorOptions{}); err == nil {
		t.Error("fvecs with rows of different dimensions: accepted")
	}
	if _, err := LoadVectors(write(t, "big.fvecs", fvecsBytes(want, 12, false)), VectorOptions{MaxBytes: 100}); err == nil || !strings.Contains(err.Error(), "the limit is 100") {
		t.Errorf("memory limit: %v", err)
	}
}

func TestEdgeListAndMtx(t *testing.T) {
	g, err := LoadGraph(write(t, "e.txt", []byte("# comment\n0 1\n1 2 0.5\n\n2 0 2\n3 1\n")), GraphOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if g.Nodes != 4 || g.Shape != [2]int{4, 4} || g.Format != "edges" {
		t.Fatalf("got %+v", g.Info)
	}
	csr := g.Prefix(4)
	if err := csr.Validate(); err != nil {
		t.Fatal(err)
	}
	// Row 1 receives from 0 and 3 (weights 1, 1); row 2 from 1 (0.5).
	if got := csr.Cols[csr.Offsets[1]:csr.Offsets[2]]; fmt.Sprint(got) != "[0 3]" {
		t.Errorf("in-edges of 1: %v", got)
	}
	if w := csr.Weights[csr.Offsets[2]]; w != 0.5 {
		t.Errorf("weight 1→2: %v", w)
	}
	if p := g.Prefix(3); p.N() != 3 || len(p.Cols) != 3 {
		t.Errorf("prefix 3: %d nodes %d edges, want 3 and 3 (3→1 dropped)", p.N(), len(p.Cols))
	}
	m, err := LoadGraph(write(t, "g.mtx", []byte("%%MatrixMarket matrix coordinate real symmetric\n% c\n3 3 2\n2 1 0.5\n3 2 1\n")), GraphOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if m.Nodes != 3 || len(m.Src) != 4 {
		t.Fatalf("mtx: %+v %d edges", m.Info, len(m.Src))
	}
	for _, c := range []struct{ name, text, want string }{
		{"e.txt", "0 1\n1 x\n", "line 2"},
		{"e.txt", "0 1 NaN\n", "weight"},
		{"e.txt", "0 -1\n", "out of range"},
		{"e.txt", "# nothing\n", "no edges"},
		{"g.mtx", "%%MatrixMarket matrix coordinate real general\n3 3 1\n4 1 1\n", "outside the 3×3"},
		{"g.mtx", "%%MatrixMarket matrix array real general\n3 3\n", "header"},
		{"g.mtx", "%%MatrixMarket matrix coordinate real general\n3 2 1\n1 1 1\n", "square"},
	} {
		_, err := LoadGraph(write(t, c.name, []byte(c.text)), GraphOptions{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: got %v, want %q", c.text, err, c.want)
		}
	}
}
