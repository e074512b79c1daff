package main

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// npyFile writes a NumPy format 1.0 file byte for byte: magic, version,
// header length, the header dict padded to a 64-byte boundary, the data.
func npyFile(t *testing.T, path string, fortran bool, shape string, v []float32) string {
	t.Helper()
	order := "False"
	if fortran {
		order = "True"
	}
	dict := fmt.Sprintf("{'descr': '<f4', 'fortran_order': %s, 'shape': %s, }", order, shape)
	dict += strings.Repeat(" ", (64-(10+len(dict)+1)%64)%64) + "\n"
	b := binary.LittleEndian.AppendUint16([]byte("\x93NUMPY\x01\x00"), uint16(len(dict)))
	b = append(b, dict...)
	for _, x := range v {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// fvecsFile writes rows of d float32 in the .fvecs layout (int32 d, then
// the values, per row).
func fvecsFile(t *testing.T, path string, v []float32, d int) string {
	t.Helper()
	var b []byte
	for i := 0; i < len(v)/d; i++ {
		b = binary.LittleEndian.AppendUint32(b, uint32(d))
		for _, x := range v[i*d : (i+1)*d] {
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
		}
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func values(n int) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32((i*7919)%211) - 105.5
	}
	return v
}

// Files the user brings: vectors from .npy and queries from .fvecs drive
// a break-even whose report names the files and their shapes; a NaN, a
// Fortran-order or 3-D array and a workload that does not read a file are
// refused before anything runs (exit 2, the row or the reason named).
func TestDataFiles(t *testing.T) {
	dir := t.TempDir()
	const rows, d = 256, 64
	v := npyFile(t, filepath.Join(dir, "V.npy"), false, fmt.Sprintf("(%d, %d)", rows, d), values(rows*d))
	q := fvecsFile(t, filepath.Join(dir, "Q.fvecs"), values(4 * d)[:4*d], d)
	nan := values(rows * d)
	nan[17*d+3] = float32(math.NaN())
	bad := map[string]string{
		"nan":     npyFile(t, filepath.Join(dir, "nan.npy"), false, fmt.Sprintf("(%d, %d)", rows, d), nan),
		"fortran": npyFile(t, filepath.Join(dir, "f.npy"), true, fmt.Sprintf("(%d, %d)", rows, d), values(rows*d)),
		"3d":      npyFile(t, filepath.Join(dir, "c.npy"), false, fmt.Sprintf("(4, %d, %d)", rows/4, d), values(rows*d)),
	}
	edges := filepath.Join(dir, "edges.txt")
	if err := os.WriteFile(edges, []byte("0 1\n1 2\n2 3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"breakeven", "--kernel", "spread-uniform", "--graph", edges, "--nodes", "3"}, "--nodes 3: " + edges + ` line 3 ("2 3") has an edge to node 3, past the 3 nodes allowed`},
		{[]string{"breakeven", "--kernel", "cosine-single", "--vectors", bad["nan"]}, "--vectors " + bad["nan"] + ": row 17, column 3 is NaN"},
		{[]string{"breakeven", "--kernel", "cosine-single", "--vectors", bad["fortran"]}, "Fortran (column-major) order"},
		{[]string{"breakeven", "--kernel", "cosine-single", "--vectors", bad["3d"]}, "is 3-D: want a 2-D array"},
		{[]string{"breakeven", "--kernel", "spread-uniform", "--vectors", v}, "spread-uniform do(es) not read it"},
		{[]string{"breakeven", "--kernel", "cosine-single", "--vectors", v, "--n", "300"}, "--n 300: past the 256 rows"},
		{[]string{"breakeven", "--kernel", "spread-uniform", "--graph", filepath.Join(dir, "missing.txt")}, "--graph"},
	} {
		_, _, err := runCmd(c.args...)
		if code, msg := exitStatus(err); code != 2 || !strings.Contains(msg, c.want) {
			t.Errorf("%v: exit %d %q, want 2 and %q", c.args, code, msg, c.want)
		}
	}
	if testing.Short() {
		return
	}
	stdout, stderr, err := runCmd("breakeven", "--kernel", "cosine-single", "--sides", "cpu,gpu", "--vectors", v, "--queries", q,
		"--quick", "--search-budget", "3s", "--budget", "20ms", "--format", "json")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	var rep struct {
		Data []struct {
			Param, File string
			Shape       [2]int
			Used        int
		}
		BreakEvens []struct{ Batches []int } `json:"break_evens"`
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Data) != 2 || rep.Data[0].File != "V.npy" || rep.Data[0].Shape != [2]int{rows, d} || rep.Data[0].Used != rows ||
		rep.Data[1].File != "Q.fvecs" || rep.Data[1].Shape != [2]int{4, d} {
		t.Errorf("data: %+v", rep.Data)
	}
	for _, be := range rep.BreakEvens {
		for _, n := range be.Batches {
			if n > rows {
				t.Errorf("batch %d past the file's %d rows", n, rows)
			}
		}
	}
}
