package dataset

import (
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// The readers' fuzzers: any bytes are either refused with an error or
// read into vectors (a graph) that agree with the file byte for byte,
// re-derived here from the format's definition: the size the header
// declares, every row's dimension field, every id inside the matrix.
// Run each for a minute with e.g.
//
//	go test ./internal/dataset -run '^$' -fuzz '^FuzzNpy$' -fuzztime 60s

func fuzzFile(t *testing.T, name string, b []byte) string {
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// checkVectors checks what every accepted vector file must give: the
// shape's rows × the padded dimension of values, finite, of a magnitude
// float32 holds, zero in the padding, and ZeroRow the first all-zero row.
func checkVectors(t *testing.T, v *Vectors) {
	t.Helper()
	if v.Rows <= 0 || v.Shape[0] != v.Rows || v.Shape[1] <= 0 || v.Dim%4 != 0 || v.Dim < v.Shape[1] || v.Dim >= v.Shape[1]+4 || len(v.Data) != v.Rows*v.Dim {
		t.Fatalf("shape %v rows %d dim %d with %d values", v.Shape, v.Rows, v.Dim, len(v.Data))
	}
	zero := -1
	for i := range v.Rows {
		row := v.Row(i)
		all0 := true
		for k, x := range row {
			a := math.Abs(float64(x))
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) || (a != 0 && (a < minMagnitude || a > maxMagnitude)) {
				t.Fatalf("row %d col %d: %v accepted", i, k, x)
			}
			if k >= v.Shape[1] && x != 0 {
				t.Fatalf("row %d: padding %v", i, x)
			}
			all0 = all0 && x == 0
		}
		if all0 && zero < 0 {
			zero = i
		}
	}
	if v.ZeroRow != zero {
		t.Fatalf("ZeroRow %d, want %d", v.ZeroRow, zero)
	}
}

func FuzzNpy(f *testing.F) {
	f.Add(npyBytes("<f4", false, "(3, 4)", f32Bytes(rows(3, 4))))
	f.Add(npyBytes("<f2", false, "(2, 3)", []byte{0, 0x3c, 0, 0xc0, 0, 0x38, 1, 0, 0, 0, 0xff, 0x7b}))
	f.Add(npyBytes("<f4", false, "(2, 4)", f32Bytes(rows(3, 4))))
	f.Add(npyBytes("<f4", true, "(3, 4)", f32Bytes(rows(3, 4))))
	f.Add([]byte("\x93NUMPY\x02\x00\x10\x00\x00\x00{'shape': (1,1)}"))
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := LoadVectors(fuzzFile(t, "f.npy", b), VectorOptions{MaxBytes: 1 << 26})
		if err != nil {
			return
		}
		checkVectors(t, v)
		if v.Format != "npy" || len(b) < 12 {
			t.Fatalf("format %q from %d bytes", v.Format, len(b))
		}
		// The data starts after the header the length field declares and
		// fills the rest of the file exactly.
		var off int
		switch b[6] {
		case 1:
			off = 10 + int(binary.LittleEndian.Uint16(b[8:]))
		case 2, 3:
			off = 12 + int(binary.LittleEndian.Uint32(b[8:]))
		default:
			t.Fatalf("version %d accepted", b[6])
		}
		size := 4
		if v.DType == "float16" {
			size = 2
		}
		if want := off + v.Rows*v.Shape[1]*size; len(b) != want {
			t.Fatalf("%d bytes accepted as %d×%d %s after a %d-byte header (%d bytes)", len(b), v.Rows, v.Shape[1], v.DType, off, want)
		}
		for i := range v.Rows {
			for k := range v.Shape[1] {
				p := off + (i*v.Shape[1]+k)*size
				var want float32
				if size == 2 {
					want = halfToFloat(binary.LittleEndian.Uint16(b[p:]))
				} else {
					want = math.Float32frombits(binary.LittleEndian.Uint32(b[p:]))
				}
				if got := v.Row(i)[k]; got != want {
					t.Fatalf("row %d col %d: %v, the file holds %v", i, k, got, want)
				}
			}
		}
	})
}

func FuzzFvecs(f *testing.F) {
	f.Add(fvecsBytes(rows(3, 4), 4, false), false)
	f.Add(fvecsBytes(rows(2, 6), 6, true), true)
	bad := fvecsBytes(rows(2, 4), 4, false)
	binary.LittleEndian.PutUint32(bad[20:], 5)
	f.Add(bad, false)
	f.Fuzz(func(t *testing.T, b []byte, bvecs bool) {
		name, size := "f.fvecs", 4
		if bvecs {
			name, size = "f.bvecs", 1
		}
		v, err := LoadVectors(fuzzFile(t, name, b), VectorOptions{MaxBytes: 1 << 26})
		if err != nil {
			return
		}
		checkVectors(t, v)
		if v.Format == "npy" {
			return // the content was NumPy's (FuzzNpy checks those)
		}
		d := v.Shape[1]
		row := 4 + d*size
		if len(b) != v.Rows*row {
			t.Fatalf("%d bytes accepted as %d rows of %d", len(b), v.Rows, row)
		}
		for i := range v.Rows {
			if got := int32(binary.LittleEndian.Uint32(b[i*row:])); got != int32(d) {
				t.Fatalf("row %d declares dimension %d, accepted as %d", i, got, d)
			}
			for k := range d {
				var want float32
				if bvecs {
					want = float32(b[i*row+4+k])
				} else {
					want = math.Float32frombits(binary.LittleEndian.Uint32(b[i*row+4+4*k:]))
				}
				if v.Row(i)[k] != want {
					t.Fatalf("row %d col %d: %v, the file holds %v", i, k, v.Row(i)[k], want)
				}
			}
		}
	})
}

func FuzzGraph(f *testing.F) {
	f.Add([]byte("%%MatrixMarket matrix coordinate real general\n3 3 2\n1 2 0.5\n3 3 1\n"), true)
	f.Add([]byte("%%MatrixMarket matrix coordinate pattern symmetric\n% c\n4 4 2\n2 1\n4 3\n"), true)
	f.Add([]byte("%%MatrixMarket matrix coordinate real general\n3 3 1\n1 4 1\n"), true)
	f.Add([]byte("# edges\n0 1\n1,2,0.5\n2 0 2\n"), false)
	f.Fuzz(func(t *testing.T, b []byte, mtx bool) {
		name := "g.txt"
		if mtx {
			name = "g.mtx"
		}
		g, err := LoadGraph(fuzzFile(t, name, b), GraphOptions{MaxBytes: 1 << 26})
		if err != nil {
			return
		}
		if g.Nodes <= 0 || len(g.Src) == 0 || len(g.Src) != len(g.Dst) || len(g.Src) != len(g.Weight) || g.Shape != [2]int{g.Nodes, len(g.Src)} {
			t.Fatalf("nodes %d, %d/%d/%d edges, shape %v", g.Nodes, len(g.Src), len(g.Dst), len(g.Weight), g.Shape)
		}
		for e := range g.Src {
			if g.Src[e] < 0 || int(g.Src[e]) >= g.Nodes || g.Dst[e] < 0 || int(g.Dst[e]) >= g.Nodes {
				t.Fatalf("edge %d: %d → %d outside %d nodes", e, g.Src[e], g.Dst[e], g.Nodes)
			}
			if w := float64(g.Weight[e]); !(w > 0) || math.IsInf(w, 0) {
				t.Fatalf("edge %d: weight %v", e, w)
			}
		}
		if err := g.Prefix(g.Nodes).Validate(); err != nil {
			t.Fatalf("CSR: %v", err)
		}
	})
}
