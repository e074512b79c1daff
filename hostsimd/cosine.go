package hostsimd

import (
	"fmt"
	"math"
	"sync"
)

// rowCount checks that a length-n buffer holds whole rows of d elements.
func rowCount(fn, name string, n, d int) (int, error) {
	if d <= 0 {
		return 0, fmt.Errorf("hostsimd: %s: d must be positive, got d=%d", fn, d)
	}
	if n%d != 0 {
		return 0, fmt.Errorf("hostsimd: %s: len(%s)=%d is not a multiple of d=%d", fn, name, n, d)
	}
	return n / d, nil
}

func checkLen(fn, name string, got, want int) error {
	if got < want {
		return fmt.Errorf("hostsimd: %s: len(%s)=%d, need at least %d", fn, name, got, want)
	}
	return nil
}

func checkQuery(fn string, q []float32, d int) error {
	if d <= 0 {
		return fmt.Errorf("hostsimd: %s: d must be positive, got d=%d", fn, d)
	}
	if len(q) != d {
		return fmt.Errorf("hostsimd: %s: len(q)=%d, want d=%d", fn, len(q), d)
	}
	return nil
}

// singleArgs checks the arguments of a one-query kernel over rows stored
// in lenV elements (any element type) writing one result per row, and
// returns the number of rows.
func singleArgs(fn string, q []float32, lenV, d, lenOut int) (int, error) {
	if err := checkQuery(fn, q, d); err != nil {
		return 0, err
	}
	n, err := rowCount(fn, "v", lenV, d)
	if err != nil {
		return 0, err
	}
	return n, checkLen(fn, "out", lenOut, n)
}

// rowGrain is the smallest number of rows of width d worth a task.
func rowGrain(d int) int { return max(1, 8192/d) }

// CosineSingle writes out[i] = cosine(q, v_i) for the N = len(v)/d rows
// v_i = v[i*d:(i+1)*d] (row-major, contiguous). ‖q‖ is computed once; each
// row is read once, fusing q·v_i and ‖v_i‖² in one pass. Zero vectors give
// 0 and NaN inputs NaN, as in Cosine. It returns an error for d <= 0,
// len(q) != d, len(v)%d != 0 or len(out) < N.
//
// The rows are split into contiguous ranges, one per thread, with as many
// threads as the size pays for (Host.ThreadsFor). Which level and row walk
// run is chosen per shape class (cache-resident or DRAM) by measurement
// unless the Host fixes a level (see Calibrate and Host.SingleChoice).
// CosineSingle runs with the zero Host.
func CosineSingle(q, v []float32, d int, out []float32) error {
	return Host{}.CosineSingle(q, v, d, out)
}

// CosineSingle is the package-level CosineSingle run with h.
func (h Host) CosineSingle(q, v []float32, d int, out []float32) error {
	r, err := h.resolve()
	if err != nil {
		return err
	}
	n, err := singleArgs("CosineSingle", q, len(v), d, len(out))
	if err != nil {
		return err
	}
	r.cosineSingleWith(r.singleImplFor(int64(len(v))*4), q, v, d, n, out)
	return nil
}

// singlePath is how CosineSingle walks the rows of one thread's range.
type singlePath int

const (
	// pathRowsPF runs blocks of rows through dotNormRows with software
	// prefetch singlePrefetch bytes ahead.
	pathRowsPF singlePath = iota
	// pathRows is dotNormRows without software prefetch (pfs = 0).
	pathRows
	// pathPerRow calls dotNorm once per row (hardware prefetch only).
	pathPerRow
	// pathPerRowPF calls dotNormPF once per row, prefetching
	// perRowPrefetch bytes ahead.
	pathPerRowPF
	// pathSeqPF runs blocks of rows through dotNormSeq (one stream, no Go
	// call per row) with software prefetch perRowPrefetch bytes ahead.
	pathSeqPF
	// pathSeq is dotNormSeq without software prefetch.
	pathSeq
)

var singlePathNames = [...]string{pathRowsPF: "rows3+prefetch", pathRows: "rows3", pathPerRow: "per-row", pathPerRowPF: "per-row+prefetch",
	pathSeqPF: "seq+prefetch", pathSeq: "seq"}

func (p singlePath) String() string { return singlePathNames[p] }

// singleImpl is a level's kernels with the row walk CosineSingle uses.
type singleImpl struct {
	k    *kernelTable
	path singlePath
}

// hasSinglePath reports whether level k has row walk p.
func hasSinglePath(k *kernelTable, p singlePath) bool {
	switch p {
	case pathRowsPF, pathRows:
		return k.dotNormRows != nil
	case pathPerRow:
		return true
	case pathPerRowPF:
		return k.dotNormPF != nil
	case pathSeqPF, pathSeq:
		return k.dotNormSeq != nil
	}
	return false
}

// firstSinglePath is the first walk level k has, in the order of the
// singlePath constants (singlePaths(k)[0], without building the list:
// CosineSingle asks on every call).
func firstSinglePath(k *kernelTable) singlePath {
	for p := range singlePath(len(singlePathNames)) {
		if hasSinglePath(k, p) {
			return p
		}
	}
	return pathPerRow // every level has it
}

// singlePaths lists the row walks level k has, in the order of the
// singlePath constants.
func singlePaths(k *kernelTable) []singlePath {
	var ps []singlePath
	for p := range singlePath(len(singlePathNames)) {
		if hasSinglePath(k, p) {
			ps = append(ps, p)
		}
	}
	return ps
}

func (r *run) cosineSingleWith(im singleImpl, q, v []float32, d, n int, out []float32) {
	k := im.k
	q, qq := scaleQuery(k, q)
	c := singleCall{k: k, q: q, v: v, d: d, out: out, qq: qq}
	switch im.path {
	case pathRowsPF, pathRows:
		c.rows = k.dotNormRows
		if im.path == pathRowsPF {
			c.pfs = singlePrefetch
		}
	case pathSeqPF, pathSeq:
		c.rows = k.dotNormSeq
		if im.path == pathSeqPF {
			c.pfs = perRowPrefetch
		}
	case pathPerRowPF:
		c.perRowPF = k.dotNormPF != nil
	}
	// On one thread the rows run here, with no closure to allocate: a
	// timed call that allocates can pay a page fault where the heap grows
	// into fresh pages (docs/HYBRID.md, "Totals and verdict";
	// TestCosineSingleOneThreadAllocatesNothing).
	if r.rowThreads(n, 4*d) <= 1 {
		c.run(0, n)
		return
	}
	cc := c // only this branch's copy escapes (to the workers)
	r.parallelRows(n, 4*d, func(lo, hi int) { cc.run(lo, hi) })
}

// singleCall is one CosineSingle call's arguments and row walk.
type singleCall struct {
	k         *kernelTable
	q, v, out []float32
	d         int
	qq        float32
	// rows is the block walk (dotNormRows or dotNormSeq) with its
	// prefetch distance pfs; nil: one row at a time, with dotNormPF when
	// perRowPF, else dotNorm.
	rows     func(q, v []float32, d, n int, ab, bb []float32, pfs int)
	pfs      int
	perRowPF bool
}

// run computes out[lo:hi].
func (c *singleCall) run(lo, hi int) {
	q, v, d, out, qq := c.q, c.v, c.d, c.out, c.qq
	if c.rows != nil {
		// The blocks' dot products and norms: pooled, since a slice
		// passed to a kernel through a func value escapes (two heap
		// allocations per call otherwise).
		sc := rowScratch.Get().(*[2][singleRowBlock]float32)
		ab, bb := &sc[0], &sc[1]
		for i := lo; i < hi; i += singleRowBlock {
			m := min(singleRowBlock, hi-i)
			// v runs to the end of this range so the kernel may
			// prefetch the next block's rows.
			c.rows(q, v[i*d:hi*d], d, m, ab[:m], bb[:m], c.pfs)
			for j, x := range ab[:m] {
				if normOK(bb[j]) {
					out[i+j] = cosineFinish(x, qq, bb[j])
				} else {
					out[i+j] = cosine64(q, v[(i+j)*d:(i+j+1)*d])
				}
			}
		}
		rowScratch.Put(sc)
		return
	}
	if c.perRowPF {
		for i := lo; i < hi; i++ {
			ab, vv := c.k.dotNormPF(q, v[i*d:(i+1)*d], perRowPrefetch)
			out[i] = cosineRow(ab, qq, vv, q, v[i*d:(i+1)*d])
		}
		return
	}
	for i := lo; i < hi; i++ {
		ab, vv := c.k.dotNorm(q, v[i*d:(i+1)*d])
		out[i] = cosineRow(ab, qq, vv, q, v[i*d:(i+1)*d])
	}
}

// cosineRow is cosineFinish for a row whose squared norm vv is in range,
// else cosine64 of the query and the row.
func cosineRow(ab, qq, vv float32, q, row []float32) float32 {
	if normOK(vv) {
		return cosineFinish(ab, qq, vv)
	}
	return cosine64(q, row)
}

// rowScratch holds the row blocks' scratch of CosineSingle's ranges.
var rowScratch = sync.Pool{New: func() any { return new([2][singleRowBlock]float32) }}

// perRowPrefetch is how far ahead (bytes) the per-row+prefetch walk
// prefetches the rows it streams.
const perRowPrefetch = 12 << 10

// singleRowBlock is the number of rows CosineSingle passes to one
// dotNormRows call. singlePrefetch is how far ahead (bytes) dotNormRows
// prefetches: 18 KiB (two 3-row blocks at d=768) streamed best among
// 0, 9, 12, 18, 24 and 36 KiB on a 2-core AVX-512 VM.
const singleRowBlock = 48

const singlePrefetch = 18 << 10

// CosineSingleNorms is CosineSingle with precomputed row norms:
// norms[i] = ‖v_i‖ (not squared), e.g. from RowNorms. Each row then only
// needs q·v_i. It runs with the zero Host.
func CosineSingleNorms(q, v []float32, d int, norms, out []float32) error {
	return Host{}.CosineSingleNorms(q, v, d, norms, out)
}

// CosineSingleNorms is the package-level CosineSingleNorms run with h.
func (h Host) CosineSingleNorms(q, v []float32, d int, norms, out []float32) error {
	const fn = "CosineSingleNorms"
	r, err := h.resolve()
	if err != nil {
		return err
	}
	if err := checkQuery(fn, q, d); err != nil {
		return err
	}
	n, err := rowCount(fn, "v", len(v), d)
	if err != nil {
		return err
	}
	if err := checkLen(fn, "norms", len(norms), n); err != nil {
		return err
	}
	if err := checkLen(fn, "out", len(out), n); err != nil {
		return err
	}
	k := r.k
	q, qq := scaleQuery(k, q)
	qn := float32(math.Sqrt(float64(qq)))
	r.parallelRows(n, 4*d, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			row := v[i*d : (i+1)*d]
			ab := k.dot(q, row)
			if nb := norms[i]; nb*nb >= normLo && nb <= math.MaxFloat32 && !math.IsInf(float64(ab), 0) {
				out[i] = cosineNorms(ab, qn, nb)
			} else {
				// A row norm out of range: its dot product may have
				// over- or underflowed too.
				out[i] = cosine64(q, row)
			}
		}
	})
	return nil
}

// RowNorms writes out[i] = ‖v_i‖ for the len(v)/d rows of v. It runs
// with the zero Host.
func RowNorms(v []float32, d int, out []float32) error { return Host{}.RowNorms(v, d, out) }

// RowNorms is the package-level RowNorms run with h.
func (h Host) RowNorms(v []float32, d int, out []float32) error {
	const fn = "RowNorms"
	r, err := h.resolve()
	if err != nil {
		return err
	}
	n, err := rowCount(fn, "v", len(v), d)
	if err != nil {
		return err
	}
	if err := checkLen(fn, "out", len(out), n); err != nil {
		return err
	}
	k := r.k
	r.parallelRows(n, 4*d, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			row := v[i*d : (i+1)*d]
			ss := k.dot(row, row)
			if normOK(ss) {
				out[i] = float32(math.Sqrt(float64(ss)))
				continue
			}
			// Out of float32's range squared: the norm in float64
			// (it may still exceed float32, and is then +Inf).
			var s64 float64
			for _, x := range row {
				s64 += float64(x) * float64(x)
			}
			out[i] = float32(math.Sqrt(s64))
		}
	})
	return nil
}

// CosineSingleF16 is CosineSingle with rows stored as IEEE binary16 bits
// (see ops.F32ToF16). Halves are widened in registers (F16C VCVTPH2PS on the
// AVX2 and AVX512 levels, FCVTL on NEON, ops.F16ToF32 on Generic); products
// and sums are float32. It runs with the zero Host.
func CosineSingleF16(q []float32, v []uint16, d int, out []float32) error {
	return Host{}.CosineSingleF16(q, v, d, out)
}

// CosineSingleF16 is the package-level CosineSingleF16 run with h.
func (h Host) CosineSingleF16(q []float32, v []uint16, d int, out []float32) error {
	r, err := h.resolve()
	if err != nil {
		return err
	}
	n, err := singleArgs("CosineSingleF16", q, len(v), d, len(out))
	if err != nil {
		return err
	}
	k := r.f16Table()
	// Binary16 rows are always in range squared (|x| ≤ 65504, and the
	// smallest subnormal squared is 2⁻⁴⁸); only the query may not be.
	q, qq := scaleQuery(k, q)
	r.parallelRows(n, 2*d, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			ab, vv := k.dotNormF16(q, v[i*d:(i+1)*d])
			if vv == 0 || vv >= normLo {
				out[i] = cosineFinish(ab, qq, vv)
			} else {
				out[i] = cosineF16x64(q, v[i*d:(i+1)*d])
			}
		}
	})
	return nil
}

// batchBlockBytes is the size of the block of rows CosineBatch keeps hot
// in cache while a group of queries runs over it.
const batchBlockBytes = 256 << 10

// batchQueryChunk is the number of queries one task runs over a row block
// when there are too few row blocks to keep every thread busy.
const batchQueryChunk = 16

// queryGroup is a group of m = 4 or 8 consecutive queries starting at j0,
// packed for the tile kernel; queries past the end are zero.
type queryGroup struct {
	j0, m  int
	packed []float32
	iqs    []float32 // cosTile8's inverse norms (m = 8 only)
}

// batchGroups splits the nq queries into groups: groups of 8 for levels
// with cosTile8, else of 4. With groups of 8, a remainder of 1 to 4
// queries gets a group of 4 and one of 5 to 7 a padded group of 8.
func batchGroups(k *kernelTable, qs []float32, d int, iq []float32) []queryGroup {
	nq := len(iq)
	var gs []queryGroup
	for j0 := 0; j0 < nq; {
		m := 4
		if k.cosTile8 != nil && nq-j0 > 4 {
			m = 8
		}
		j1 := min(j0+m, nq)
		g := queryGroup{j0: j0, m: m, packed: packQueries(qs[j0*d:j1*d], m, d, k.tileW)}
		if m == 8 {
			// Four copies of each for the 3-row kernel, two for the
			// 2-row one (see genCosTile8 in _gen).
			g.iqs = make([]float32, 48)
			for j := j0; j < j1; j++ {
				for r := 0; r < 4; r++ {
					g.iqs[4*(j-j0)+r] = iq[j]
				}
				g.iqs[32+2*(j-j0)] = iq[j]
				g.iqs[32+2*(j-j0)+1] = iq[j]
			}
		}
		gs = append(gs, g)
		j0 = j1
	}
	return gs
}

// packQueries packs the len(q)/d <= m queries of length d in q for the
// tile kernels: for each chunk c of w elements the m queries' chunks
// follow each other, p[(c*m+j)*w+l] = q[j*d+c*w+l]. The last chunk is
// zero-padded, and so are queries j >= len(q)/d.
func packQueries(q []float32, m, d, w int) []float32 {
	nc := (d + w - 1) / w
	p := make([]float32, nc*m*w)
	for j := 0; j < len(q)/d; j++ {
		qj := q[j*d : (j+1)*d]
		for c := 0; c < nc; c++ {
			copy(p[(c*m+j)*w:(c*m+j+1)*w], qj[c*w:min((c+1)*w, d)])
		}
	}
	return p
}

// CosineBatch writes the Q×N cosine scores of the Q = len(qs)/d queries
// against the N = len(v)/d rows: out[q*N+i] = cosine(qs_q, v_i). Rows are
// processed in blocks of about 256 KiB that stay in cache while the
// queries run over them. Inside a block, AVX512 register-blocks 8 queries
// × 3 rows, reduces the 24 dot products with two transpose-and-add trees
// and writes finished cosines; its first group of queries also computes
// the row norms, and every group prefetches a share of the next block.
// The other levels run groups of 4 queries through dotTile4 (4 queries ×
// 2 rows on AVX2, 4×4 on NEON, 4×1 on Generic) with a separate norm and
// scaling pass. Queries are packed so one pointer walks a whole
// group. Norms are computed once per query and once per row and block.
// Zero vectors give 0, NaN inputs NaN, as in Cosine. It runs with the zero
// Host.
func CosineBatch(qs, v []float32, d int, out []float32) error {
	return Host{}.CosineBatch(qs, v, d, out)
}

// CosineBatch is the package-level CosineBatch run with h.
func (h Host) CosineBatch(qs, v []float32, d int, out []float32) error {
	r, err := h.resolve()
	if err != nil {
		return err
	}
	return r.cosineBatch(qs, v, d, out)
}

// cosineBatch is CosineBatch with r's kernels and threads.
func (r *run) cosineBatch(qs, v []float32, d int, out []float32) error {
	const fn = "CosineBatch"
	nq, err := rowCount(fn, "qs", len(qs), d)
	if err != nil {
		return err
	}
	n, err := rowCount(fn, "v", len(v), d)
	if err != nil {
		return err
	}
	if err := checkLen(fn, "out", len(out), nq*n); err != nil {
		return err
	}
	if nq == 0 || n == 0 {
		return nil
	}
	k := r.k
	qs, iq := scaledQueries(k, qs, nq, d)
	j := &batchJob{k: k, qs: qs, v: v, out: out, iq: iq, d: d, n: n, nq: nq, groups: batchGroups(k, qs, d, iq)}
	j.rb = max(4, batchBlockBytes/(4*d)) &^ 3
	nb := (n + j.rb - 1) / j.rb
	// A task is one row block with a chunk of query groups: all groups
	// when there are enough blocks to keep every thread busy.
	j.gpc = len(j.groups)
	if nb < 4*r.threads {
		j.gpc = min(j.gpc, max(1, batchQueryChunk/j.groups[0].m))
	}
	j.nqc = (len(j.groups) + j.gpc - 1) / j.gpc
	r.parallelFor(nb*j.nqc, j.rb*j.gpc*j.groups[0].m*d, 1, func(lo, hi int) {
		s := batchScratch{iv: make([]float32, j.rb)}
		for u := lo; u < hi; u++ {
			j.task(u, hi, &s)
		}
	})
	return nil
}

// scaledQueries returns the queries' inverse norms (0 for zero vectors,
// NaN for NaN ones) so that the finishing step is two multiplies per
// score. Queries whose squared norm leaves float32's range are scaled by
// a power of two first (scaleQuery; scale.go), in a copy of qs.
func scaledQueries(k *kernelTable, qs []float32, nq, d int) ([]float32, []float32) {
	iq := make([]float32, nq)
	scaled := qs
	for j := range iq {
		row := qs[j*d : (j+1)*d]
		s, ss := scaleQuery(k, row)
		if &s[0] != &row[0] {
			if &scaled[0] == &qs[0] {
				scaled = append([]float32(nil), qs[:nq*d]...)
			}
			copy(scaled[j*d:(j+1)*d], s)
		}
		iq[j] = invNorm(ss)
	}
	return scaled, iq
}

// batchJob is one CosineBatch: task u is row block u/nqc (rb rows) with
// the u%nqc-th chunk of gpc query groups.
type batchJob struct {
	k                      *kernelTable
	qs, v, out, iq         []float32
	d, n, nq, rb, gpc, nqc int
	groups                 []queryGroup
}

// batchScratch is one goroutine's buffers: the row block's inverse norms
// and, allocated on first use, the 4-query tile and the padded output of
// a partial group of 8.
type batchScratch struct{ iv, tile, pad []float32 }

// task runs task u; hi is the end of this goroutine's tasks. Row norms
// are computed per block, while the block is being brought into cache
// anyway.
func (j *batchJob) task(u, hi int, s *batchScratch) {
	d, n := j.d, j.n
	b, qc := u/j.nqc, u%j.nqc
	r0 := b * j.rb
	r1 := min(r0+j.rb, n)
	rows := r1 - r0
	blk := j.v[r0*d : r1*d]
	gs := j.groups[qc*j.gpc : min((qc+1)*j.gpc, len(j.groups))]
	// Groups of 8 come first; the first computes the row norms.
	norms := gs[0].m == 8
	if !norms {
		for i := range rows {
			r := blk[i*d : (i+1)*d]
			s.iv[i] = invNorm(j.k.dot(r, r))
		}
	}
	// The next block this goroutine works on, when it is a different
	// one: cosTile8 prefetches it, a share per group, spread over the
	// group's inner-loop iterations.
	var next []float32
	if j.nqc == 1 && u+1 < hi {
		next = j.v[r1*d : min(r1+j.rb, n)*d]
	}
	lines := (4*len(next)+63)/64 + 1
	iters := (rows / 3) * (d / 32)
	for gi, g := range gs {
		if g.m == 4 {
			j.group4(g, blk, r0, r1, s)
			continue
		}
		var pf []float32
		pfs := 0
		if len(next) > 0 && iters > 0 {
			l0, l1 := gi*lines/len(gs), (gi+1)*lines/len(gs)
			if l0*16 < len(next) {
				pf = next[l0*16:]
				pfs = ((l1-l0)*64 + iters - 1) / iters
			}
		}
		j.group8(g, blk, r0, r1, s, norms, pf, pfs)
		norms = false
	}
	j.rescore(gs, blk, r0, s.iv[:rows])
}

// group4 scores a group of 4 queries against rows [r0, r1) with dotTile4
// and a separate scaling pass.
func (j *batchJob) group4(g queryGroup, blk []float32, r0, r1 int, s *batchScratch) {
	rows, n := r1-r0, j.n
	if s.tile == nil {
		s.tile = make([]float32, 4*j.rb)
	}
	j.k.dotTile4(g.packed, blk, j.d, rows, s.tile)
	for q := g.j0; q < min(g.j0+4, j.nq); q++ {
		scaleCosTile(j.out[q*n+r0:q*n+r1], s.tile[q-g.j0:], j.iq[q], s.iv[:rows])
	}
}

// group8 scores a group of 8 queries against rows [r0, r1) with
// cosTile8 (computing the row norms when norms is set, prefetching pfs
// lines of pf); a partial group writes to the padded buffer first.
func (j *batchJob) group8(g queryGroup, blk []float32, r0, r1 int, s *batchScratch, norms bool, pf []float32, pfs int) {
	rows, n := r1-r0, j.n
	if g.j0+8 <= j.nq {
		j.k.cosTile8(g.packed, blk, j.d, rows, j.out[g.j0*n+r0:], n, g.iqs, s.iv[:rows], norms, pf, pfs)
		return
	}
	if s.pad == nil {
		s.pad = make([]float32, 8*j.rb)
	}
	j.k.cosTile8(g.packed, blk, j.d, rows, s.pad, rows, g.iqs, s.iv[:rows], norms, pf, pfs)
	for q := g.j0; q < j.nq; q++ {
		copy(j.out[q*n+r0:q*n+r1], s.pad[(q-g.j0)*rows:])
	}
}

// rescore scores again in float64 the rows whose squared norm left
// float32's range (inverse norm 0, huge or NaN; zero rows too), for every
// query of gs (scale.go).
func (j *batchJob) rescore(gs []queryGroup, blk []float32, r0 int, iv []float32) {
	d, n := j.d, j.n
	for i, x := range iv {
		if x >= 0x1p-64 && x <= 0x1p40 {
			continue
		}
		row := blk[i*d : (i+1)*d]
		for _, g := range gs {
			for q := g.j0; q < min(g.j0+g.m, j.nq); q++ {
				j.out[q*n+r0+i] = cosine64(j.qs[q*d:(q+1)*d], row)
			}
		}
	}
}

// invNorm returns 1/sqrt(ss), 0 for ss == 0 and NaN for NaN.
func invNorm(ss float32) float32 {
	if ss == 0 {
		return 0
	}
	return float32(1 / math.Sqrt(float64(ss)))
}

// scaleCosTile turns dot products into cosines:
// o[i] = clamp(tile[4*i]*iq*iv[i]). Zero vectors (inverse norm 0) give 0
// for finite dots; NaN propagates.
func scaleCosTile(o, tile []float32, iq float32, iv []float32) {
	iv = iv[:len(o)]
	for i := range o {
		c := tile[4*i] * iq * iv[i]
		if c > 1 {
			c = 1
		} else if c < -1 {
			c = -1
		}
		o[i] = c
	}
}
