package dataset

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"
)

// readAll reads every row of rr (dim values a row).
func readAll(t *testing.T, rr rowReader) (format, dtype string, out [][]float32) {
	t.Helper()
	format, dtype, n, dim := rr.header()
	for range n {
		row := make([]float32, dim)
		if err := rr.readRow(row); err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		out = append(out, row)
	}
	return format, dtype, out
}

func reader(b []byte) *bufio.Reader { return bufio.NewReader(bytes.NewReader(b)) }

func TestNpyRows(t *testing.T) {
	b := npyBytes("<f4", false, "(2, 3)", f32Bytes([]float32{1, 2, 3, 4, 5, 6}))
	rr, err := newNpyRows(reader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	if f, d, got := readAll(t, rr); f != "npy" || d != "float32" || !slices.Equal(got[1], []float32{4, 5, 6}) {
		t.Errorf("npy float32: %s %s %v", f, d, got)
	}
	// float16: 1.0 is 0x3c00, −2.0 is 0xc000.
	h := binary.LittleEndian.AppendUint16(binary.LittleEndian.AppendUint16(nil, 0x3c00), 0xc000)
	b = npyBytes("<f2", false, "(1, 2)", h)
	rr, err = newNpyRows(reader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	if _, d, got := readAll(t, rr); d != "float16" || !slices.Equal(got[0], []float32{1, -2}) {
		t.Errorf("npy float16: %s %v", d, got)
	}
	// A file shorter than its header declares.
	if _, err := newNpyRows(reader(b), int64(len(b))-1); err == nil || !strings.Contains(err.Error(), "the header declares 1×2 float16") {
		t.Errorf("short npy: %v", err)
	}
}

func TestVecsRows(t *testing.T) {
	row := func(d int32, vals []byte) []byte {
		return append(binary.LittleEndian.AppendUint32(nil, uint32(d)), vals...)
	}
	f := append(row(2, f32Bytes([]float32{1, 2})), row(2, f32Bytes([]float32{3, 4}))...)
	rr, err := newVecsRows(reader(f), int64(len(f)), 4)
	if err != nil {
		t.Fatal(err)
	}
	if fm, d, got := readAll(t, rr); fm != "fvecs" || d != "float32" || len(got) != 2 || !slices.Equal(got[1], []float32{3, 4}) {
		t.Errorf("fvecs: %s %s %v", fm, d, got)
	}
	b := append(row(3, []byte{1, 2, 255}), row(3, []byte{0, 0, 7})...)
	rr, err = newVecsRows(reader(b), int64(len(b)), 1)
	if err != nil {
		t.Fatal(err)
	}
	if fm, d, got := readAll(t, rr); fm != "bvecs" || d != "uint8" || !slices.Equal(got[0], []float32{1, 2, 255}) {
		t.Errorf("bvecs: %s %s %v", fm, d, got)
	}
	// A later row declaring another dimension is named.
	bad := append(row(2, f32Bytes([]float32{1, 2})), row(3, f32Bytes([]float32{3, 4}))[:12]...)
	rr, err = newVecsRows(reader(bad), int64(len(bad)), 4)
	if err != nil {
		t.Fatal(err)
	}
	r0 := make([]float32, 2)
	if err := rr.readRow(r0); err != nil {
		t.Fatal(err)
	}
	if err := rr.readRow(r0); err == nil || err.Error() != "row 1 declares dimension 3, row 0 2" {
		t.Errorf("dimension change: %v", err)
	}
	if _, err := newVecsRows(reader(f), int64(len(f))-1, 4); err == nil || !strings.Contains(err.Error(), "not a whole number of rows") {
		t.Errorf("ragged fvecs: %v", err)
	}
}

func TestRawRows(t *testing.T) {
	b := f32Bytes([]float32{1, 2, 3, 4, 5, 6})
	rr, err := newRawRows(reader(b), int64(len(b)), 3)
	if err != nil {
		t.Fatal(err)
	}
	if f, d, got := readAll(t, rr); f != "raw-f32" || d != "float32" || len(got) != 2 || !slices.Equal(got[0], []float32{1, 2, 3}) {
		t.Errorf("raw: %s %s %v", f, d, got)
	}
	if err := rr.readRow(make([]float32, 3)); !errors.Is(err, io.EOF) {
		t.Errorf("read past the end: %v", err)
	}
	if _, err := newRawRows(reader(b), int64(len(b)), 0); err == nil || !strings.Contains(err.Error(), "needs its dimension") {
		t.Errorf("raw without d: %v", err)
	}
	if _, err := newRawRows(reader(b), int64(len(b)), 4); err == nil || !strings.Contains(err.Error(), "not a whole number of rows of 4 float32") {
		t.Errorf("raw d 4 over 6 values: %v", err)
	}
}
