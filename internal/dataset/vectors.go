// Package dataset reads a user's data for the workloads: vectors (NumPy
// .npy, the ANN-benchmark .fvecs and .bvecs formats, raw little-endian
// float32) and graphs (a text edge list, Matrix Market coordinate files).
// Every reader streams its file once into the one slice the workloads
// use, after checking the shape its header (or size) declares against a
// memory limit, so a file is never held twice; it checks every value
// (finite, ids in range) and describes the file (name, shape, type and a
// content hash) for the reports. Errors name the file, the row or line
// and what is wrong.
package dataset

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"
)

// FormatError is a file whose content is not what its format requires;
// the message says where (row, column or line) and what.
type FormatError struct{ Msg string }

func (e *FormatError) Error() string { return e.Msg }

// Info describes a file for the reports.
type Info struct {
	// File is the file's base name, Format how it was read ("npy",
	// "fvecs", "bvecs", "raw-f32", "edges", "mtx").
	File, Format string
	// Shape is rows × columns of vectors, or nodes × edges of a graph.
	Shape [2]int
	// DType is the stored value type ("float32", "float16", "uint8").
	DType string
	// Hash is the first 12 hex digits of the file's SHA-256.
	Hash string
	// Padded is the dimension after zero padding to a multiple of 4 (0:
	// not padded); zeros change neither dot products nor norms.
	Padded int
}

// String is the one-line description in reports.
func (i Info) String() string {
	s := fmt.Sprintf("%s (%s, %d×%d %s, sha256 %s)", i.File, i.Format, i.Shape[0], i.Shape[1], i.DType, i.Hash)
	if i.Format == "edges" || i.Format == "mtx" {
		s = fmt.Sprintf("%s (%s, %d nodes, %d edges, sha256 %s)", i.File, i.Format, i.Shape[0], i.Shape[1], i.Hash)
	}
	if i.Padded > 0 {
		s += fmt.Sprintf(", zero-padded to d %d", i.Padded)
	}
	return s
}

// Vectors are rows of float32, row-major, Dim values a row (the file's
// dimension rounded up to a multiple of 4, the extra values 0).
type Vectors struct {
	Info
	Rows, Dim int
	Data      []float32
	// ZeroRow is the first row whose values are all zero (−1: none); a
	// cosine against it is undefined.
	ZeroRow int
}

// Row returns row i.
func (v *Vectors) Row(i int) []float32 { return v.Data[i*v.Dim : (i+1)*v.Dim] }

// VectorOptions bound what LoadVectors may read.
type VectorOptions struct {
	// Dim is the dimension of a raw float32 file (required for it; for the
	// other formats, if set, it must match the file).
	Dim int
	// MaxBytes refuses a file whose rows would take more memory (0: no
	// limit); checked from the header before anything is allocated.
	MaxBytes uint64
}

// LoadVectors reads the vectors of path. The content decides first: a
// NumPy magic number is read as .npy whatever the name, and text (CSV,
// TSV or other) is refused, naming the formats read and how to convert
// it; otherwise the extension picks .npy, .fvecs or .bvecs, and anything
// else is raw little-endian float32 (which needs opts.Dim). Values must
// be finite and, when nonzero, of a magnitude whose square float32 holds
// (minMagnitude … maxMagnitude).
func LoadVectors(path string, opts VectorOptions) (*Vectors, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	h := sha256.New()
	r := bufio.NewReaderSize(io.TeeReader(f, h), 1<<20)
	v := &Vectors{}
	v.File = filepath.Base(path)
	head, _ := r.Peek(sniffBytes)
	if what, ok := textKind(head); ok {
		return nil, formatErr("%s is %s, not binary vectors: %s", v.File, what, vectorFormats)
	}
	ext := strings.ToLower(filepath.Ext(path))
	if isNpy(head) {
		// The content decides: a NumPy file is read as one whatever its
		// name.
		ext = ".npy"
	}
	rr, err := openRows(r, ext, st.Size(), opts.Dim)
	if err != nil {
		return nil, err
	}
	if err := v.shape(rr, opts); err != nil {
		return nil, err
	}
	if err := v.readRows(rr); err != nil {
		return nil, err
	}
	if _, err := io.Copy(io.Discard, r); err != nil {
		return nil, err
	}
	v.Hash = hashPrefix(h)
	return v, nil
}

// formatErr is a FormatError with a formatted message.
func formatErr(format string, args ...any) error {
	return &FormatError{fmt.Sprintf(format, args...)}
}

// rowReader reads the rows of one vector format, its header already read
// and checked against the file's size.
type rowReader interface {
	// header is the format's name, the stored value type and the shape.
	header() (format, dtype string, rows, dim int)
	// readRow fills row (dim values) with the next row.
	readRow(row []float32) error
}

// openRows reads the header of a vector file of the format ext names
// (anything but .npy, .fvecs and .bvecs is raw float32 of dimension dim)
// and returns the reader of its rows.
func openRows(r *bufio.Reader, ext string, size int64, dim int) (rowReader, error) {
	switch ext {
	case ".npy":
		return newNpyRows(r, size)
	case ".fvecs":
		return newVecsRows(r, size, 4)
	case ".bvecs":
		return newVecsRows(r, size, 1)
	}
	return newRawRows(r, size, dim)
}

// shape checks the reader's shape against opts and the limits and sets
// v's format, shape and padded dimension.
func (v *Vectors) shape(rr rowReader, opts VectorOptions) error {
	format, dtype, rows, dim := rr.header()
	v.Format, v.DType = format, dtype
	if opts.Dim > 0 && opts.Dim != dim && v.Format != "raw-f32" {
		return formatErr("dimension %d, but d %d was asked for", dim, opts.Dim)
	}
	if rows <= 0 || dim <= 0 {
		return formatErr("no rows (shape %d×%d)", rows, dim)
	}
	v.Shape, v.Rows, v.Dim = [2]int{rows, dim}, rows, (dim+3)/4*4
	if v.Dim != dim {
		v.Padded = v.Dim
	}
	need := uint64(rows) * uint64(v.Dim) * 4
	if opts.MaxBytes > 0 && need > opts.MaxBytes {
		return fmt.Errorf("%d×%d float32 need %d bytes of memory; the limit is %d", rows, v.Dim, need, opts.MaxBytes)
	}
	if int64(rows)*int64(v.Dim) >= 1<<31 {
		return formatErr("%d×%d values is past 2³¹", rows, v.Dim)
	}
	return nil
}

// readRows allocates v.Data and fills it row by row from rr (the padding
// columns left 0), checking every value and noting the first zero row.
func (v *Vectors) readRows(rr rowReader) error {
	dim := v.Shape[1]
	v.Data = make([]float32, v.Rows*v.Dim)
	v.ZeroRow = -1
	for i := range v.Rows {
		row := v.Data[i*v.Dim : i*v.Dim+dim]
		if err := rr.readRow(row); err != nil {
			if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
				return formatErr("ends inside row %d", i)
			}
			return formatErr("%v", err)
		}
		zero := true
		for k, x := range row {
			if err := checkValue(x, v.DType); err != nil {
				return formatErr("row %d, column %d is %v: %v", i, k, x, err)
			}
			zero = zero && x == 0
		}
		if zero && v.ZeroRow < 0 {
			v.ZeroRow = i
		}
	}
	return nil
}

// checkValue refuses a value that is not finite, or whose nonzero
// magnitude lies outside minMagnitude … maxMagnitude (dtype is the type
// the file was read as, for the message).
func checkValue(x float32, dtype string) error {
	if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
		return errors.New("values must be finite")
	}
	if a := math.Abs(float64(x)); a != 0 && (a < minMagnitude || a > maxMagnitude) {
		return fmt.Errorf("outside ±[%.2g, %.2g], where its square leaves float32's normal range and the kernels' float32 arithmetic loses it; "+
			"a value like this usually means the file holds another type than %s (float64? integers?) or needs rescaling", minMagnitude, maxMagnitude, dtype)
	}
	return nil
}

// npyRows reads a NumPy .npy file's rows of float32 or float16.
type npyRows struct {
	r    *bufio.Reader
	hdr  npyHeader
	size int // bytes a value
	buf  []byte
}

func newNpyRows(r *bufio.Reader, fileSize int64) (*npyRows, error) {
	hdr, err := readNpyHeader(r)
	if err != nil {
		return nil, formatErr("%v", err)
	}
	size := 4
	if hdr.dtype == "float16" {
		size = 2
	}
	if want := int64(hdr.offset) + int64(hdr.rows)*int64(hdr.cols)*int64(size); fileSize != want {
		return nil, formatErr("the header declares %d×%d %s (%d bytes with the header) but the file has %d bytes", hdr.rows, hdr.cols, hdr.dtype, want, fileSize)
	}
	return &npyRows{r: r, hdr: hdr, size: size, buf: make([]byte, hdr.cols*size)}, nil
}

func (n *npyRows) header() (string, string, int, int) {
	return "npy", n.hdr.dtype, n.hdr.rows, n.hdr.cols
}

func (n *npyRows) readRow(row []float32) error {
	if _, err := io.ReadFull(n.r, n.buf); err != nil {
		return err
	}
	for k := range row {
		if n.size == 2 {
			row[k] = halfToFloat(binary.LittleEndian.Uint16(n.buf[2*k:]))
		} else {
			row[k] = math.Float32frombits(binary.LittleEndian.Uint32(n.buf[4*k:]))
		}
	}
	return nil
}

// vecsRows reads the rows of an .fvecs (float32, size 4) or .bvecs
// (uint8, size 1) file: each row a little-endian int32 dimension, then its
// values.
type vecsRows struct {
	r         *bufio.Reader
	size      int // bytes a value
	rows, dim int
	buf       []byte
	next      int // the row readRow reads
}

func newVecsRows(r *bufio.Reader, fileSize int64, size int) (*vecsRows, error) {
	head, err := r.Peek(4)
	if err != nil {
		return nil, formatErr("shorter than one row's dimension field")
	}
	dim := int(int32(binary.LittleEndian.Uint32(head)))
	if dim <= 0 || dim > 1<<20 {
		return nil, formatErr("row 0 declares dimension %d", dim)
	}
	rowBytes := int64(4 + dim*size)
	if fileSize%rowBytes != 0 {
		return nil, formatErr("%d bytes is not a whole number of rows of 4+%d×%d bytes (dimension %d)", fileSize, dim, size, dim)
	}
	return &vecsRows{r: r, size: size, rows: int(fileSize / rowBytes), dim: dim, buf: make([]byte, rowBytes)}, nil
}

func (b *vecsRows) header() (string, string, int, int) {
	if b.size == 1 {
		return "bvecs", "uint8", b.rows, b.dim
	}
	return "fvecs", "float32", b.rows, b.dim
}

func (b *vecsRows) readRow(row []float32) error {
	if _, err := io.ReadFull(b.r, b.buf); err != nil {
		return err
	}
	if d := int(int32(binary.LittleEndian.Uint32(b.buf))); d != b.dim {
		return fmt.Errorf("row %d declares dimension %d, row 0 %d", b.next, d, b.dim)
	}
	for k := range row {
		if b.size == 1 {
			row[k] = float32(b.buf[4+k])
		} else {
			row[k] = math.Float32frombits(binary.LittleEndian.Uint32(b.buf[4+4*k:]))
		}
	}
	b.next++
	return nil
}

// rawRows reads raw little-endian float32 rows of a dimension the caller
// gives.
type rawRows struct {
	r         *bufio.Reader
	rows, dim int
	buf       []byte
}

func newRawRows(r *bufio.Reader, fileSize int64, dim int) (*rawRows, error) {
	if dim <= 0 {
		return nil, formatErr("a raw float32 file needs its dimension (d)")
	}
	if fileSize%int64(4*dim) != 0 || fileSize == 0 {
		return nil, formatErr("%d bytes is not a whole number of rows of %d float32", fileSize, dim)
	}
	return &rawRows{r: r, rows: int(fileSize / int64(4*dim)), dim: dim, buf: make([]byte, 4*dim)}, nil
}

func (w *rawRows) header() (string, string, int, int) { return "raw-f32", "float32", w.rows, w.dim }

func (w *rawRows) readRow(row []float32) error {
	if _, err := io.ReadFull(w.r, w.buf); err != nil {
		return err
	}
	for k := range row {
		row[k] = math.Float32frombits(binary.LittleEndian.Uint32(w.buf[4*k:]))
	}
	return nil
}

func hashPrefix(h hash.Hash) string { return hex.EncodeToString(h.Sum(nil))[:12] }

// The magnitudes a nonzero value may have: 2⁻⁶³ … 2⁶³, so that its square
// and a product of two of them stay within float32's normal range
// (2⁻¹²⁶ … 2¹²⁸), where the GPU kernels' float32 arithmetic neither
// flushes it to zero nor overflows. Real vectors sit far inside; values
// outside are nearly always another type read as float32.
const (
	minMagnitude = 0x1p-63
	maxMagnitude = 0x1p63
)

// sniffBytes is how much of a file's start identifies its content.
const sniffBytes = 4096

// vectorFormats says what the vector readers take and how to get there
// from text.
const vectorFormats = "vectors are read from NumPy .npy (2-D, C order, float32 or float16), .fvecs, .bvecs or raw little-endian float32 (with d); " +
	`convert text with NumPy, e.g. numpy.save("vectors.npy", numpy.loadtxt("vectors.csv", delimiter=",", dtype="float32"))`

func isNpy(head []byte) bool { return bytes.HasPrefix(head, []byte("\x93NUMPY")) }

// textKind reports whether head, the start of a file, is text (printable
// ASCII or UTF-8, tabs and line breaks, with a line break or a digit)
// and names it: comma- or tab-separated values, or text. Binary vectors
// start with a dimension field or a magic number holding control bytes,
// and float32 data whose every byte is printable for 4 KiB does not occur.
func textKind(head []byte) (string, bool) {
	head = bytes.TrimPrefix(head, []byte("\xef\xbb\xbf"))
	if len(head) == 0 || isNpy(head) {
		return "", false
	}
	digits, commas, tabs, lines := 0, 0, 0, 0
	utf := utf8Text(head)
	for _, b := range head {
		switch {
		case b == '\n' || b == '\r':
			lines++
		case b == '\t':
			tabs++
		case b == ',' || b == ';':
			commas++
		case b >= '0' && b <= '9':
			digits++
		case b >= 0x20 && b < 0x7f, b >= 0x80 && utf:
		default:
			return "", false
		}
	}
	if digits == 0 && lines == 0 {
		return "", false
	}
	switch {
	case commas > 0:
		return "text (comma-separated values)", true
	case tabs > 0:
		return "text (tab-separated values)", true
	}
	return "text", true
}

// utf8Text reports whether b, cut at a character boundary at most 3 bytes
// from its end, is valid UTF-8.
func utf8Text(b []byte) bool {
	for cut := 0; cut < 4 && cut <= len(b); cut++ {
		if utf8.Valid(b[:len(b)-cut]) {
			return true
		}
	}
	return false
}

type npyHeader struct {
	rows, cols int
	dtype      string
	offset     int
}

// readNpyHeader reads the magic, version and header dict of a .npy file
// (format versions 1-3) and accepts a 2-D, C-order array of little-endian
// float32 or float16.
func readNpyHeader(r *bufio.Reader) (npyHeader, error) {
	var h npyHeader
	magic := make([]byte, 8)
	if _, err := io.ReadFull(r, magic); err != nil || string(magic[:6]) != "\x93NUMPY" {
		return h, fmt.Errorf("not a NumPy .npy file (no \\x93NUMPY magic)")
	}
	var n int
	switch magic[6] {
	case 1:
		b := make([]byte, 2)
		if _, err := io.ReadFull(r, b); err != nil {
			return h, fmt.Errorf("truncated header")
		}
		n, h.offset = int(binary.LittleEndian.Uint16(b)), 10
	case 2, 3:
		b := make([]byte, 4)
		if _, err := io.ReadFull(r, b); err != nil {
			return h, fmt.Errorf("truncated header")
		}
		n, h.offset = int(binary.LittleEndian.Uint32(b)), 12
	default:
		return h, fmt.Errorf(".npy format version %d is not supported (1, 2 or 3)", magic[6])
	}
	if n <= 0 || n > 1<<20 {
		return h, fmt.Errorf("header length %d", n)
	}
	h.offset += n
	b := make([]byte, n)
	if _, err := io.ReadFull(r, b); err != nil {
		return h, fmt.Errorf("truncated header")
	}
	dict := string(b)
	descr, ok := dictValue(dict, "descr")
	if !ok {
		return h, fmt.Errorf("header has no 'descr'")
	}
	switch strings.Trim(descr, `'"`) {
	case "<f4", "=f4":
		h.dtype = "float32"
	case "<f2", "=f2":
		h.dtype = "float16"
	default:
		return h, fmt.Errorf("dtype %s: want little-endian float32 ('<f4') or float16 ('<f2')", descr)
	}
	order, ok := dictValue(dict, "fortran_order")
	if !ok {
		return h, fmt.Errorf("header has no 'fortran_order'")
	}
	if order != "False" {
		return h, fmt.Errorf("Fortran (column-major) order: rows must be contiguous; save a C-order array (np.ascontiguousarray)")
	}
	shape, ok := dictValue(dict, "shape")
	if !ok {
		return h, fmt.Errorf("header has no 'shape'")
	}
	var dims []int
	for _, s := range strings.Split(strings.Trim(shape, "()"), ",") {
		if s = strings.TrimSpace(s); s == "" {
			continue
		}
		d, err := strconv.Atoi(s)
		if err != nil || d < 0 {
			return h, fmt.Errorf("shape %s", shape)
		}
		dims = append(dims, d)
	}
	if len(dims) != 2 {
		return h, fmt.Errorf("shape %s is %d-D: want a 2-D array (rows × dimension)", shape, len(dims))
	}
	h.rows, h.cols = dims[0], dims[1]
	return h, nil
}

// dictValue returns the value of key in a .npy header dict: a quoted
// string, True/False, or a parenthesised tuple.
func dictValue(dict, key string) (string, bool) {
	i := strings.Index(dict, "'"+key+"'")
	if i < 0 {
		return "", false
	}
	rest := dict[i+len(key)+2:]
	j := strings.Index(rest, ":")
	if j < 0 {
		return "", false
	}
	rest = strings.TrimSpace(rest[j+1:])
	switch {
	case strings.HasPrefix(rest, "("):
		k := strings.Index(rest, ")")
		if k < 0 {
			return "", false
		}
		return rest[:k+1], true
	case strings.HasPrefix(rest, "'"):
		k := strings.Index(rest[1:], "'")
		if k < 0 {
			return "", false
		}
		return rest[:k+2], true
	}
	k := strings.IndexAny(rest, ",}")
	if k < 0 {
		return "", false
	}
	return strings.TrimSpace(rest[:k]), true
}

// halfToFloat converts an IEEE 754 binary16 value.
func halfToFloat(h uint16) float32 {
	sign := uint32(h>>15) << 31
	exp := uint32(h>>10) & 0x1f
	mant := uint32(h) & 0x3ff
	switch {
	case exp == 0x1f:
		return math.Float32frombits(sign | 0xff<<23 | mant<<13)
	case exp == 0 && mant == 0:
		return math.Float32frombits(sign)
	case exp == 0:
		// Subnormal: m·2⁻²⁴.
		v := float32(mant) * (1.0 / (1 << 24))
		if sign != 0 {
			v = -v
		}
		return v
	}
	return math.Float32frombits(sign | (exp+112)<<23 | mant<<13)
}
