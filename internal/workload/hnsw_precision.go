package workload

import (
	"fmt"
	"math"

	"github.com/wgpu-prof/wgpu-prof/compute"
	"github.com/wgpu-prof/wgpu-prof/compute/wgpu"
	"github.com/wgpu-prof/wgpu-prof/hostsimd"
	"github.com/wgpu-prof/wgpu-prof/internal/report"
	"github.com/wgpu-prof/wgpu-prof/ops"
)

// hnswStored is hnsw's base set in a stored precision other than f32:
// binary16 rows (f16) or int8 codes with one scale per row (the rule of
// precision.go). The queries stay f32 (int8: quantized by the same rule
// on each side).
type hnswStored struct {
	prec   string
	f16    []uint16
	codes  []int8
	scales []float32
	// bound is the largest per-pair bound the stored distances were
	// checked against (the precision's bound plus the f32 tolerance).
	bound float64
}

// store puts h's rows in precision p: the reference distances become
// those of the stored values (f16: float64 of the rounded rows, with the
// f32 kernels' bound, L2² through ‖q‖² + v·v − 2q·v as the host computes
// it; int8: hostsimd.Int8Metric of the exact integer sums, with the f32
// rescaling's rounding), after checking that each lies within the
// precision's bound of the f32 distance (hnswBound).
func (h *hnswData) store(p string) error {
	switch p {
	case PrecisionF32, "":
		return nil
	case PrecisionF16:
		hv, err := compute.ToF16(h.v)
		if err != nil {
			return invalid(ParamPrecision.Name, p, "the stored vectors do not fit binary16: %v", err)
		}
		h.st = &hnswStored{prec: p, f16: hv}
	case PrecisionInt8:
		if h.dim > hostsimd.MaxInt8Dim {
			return invalid(ParamPrecision.Name, p, "dimension %d exceeds %d, the int32 sums' exact range", h.dim, hostsimd.MaxInt8Dim)
		}
		st := &hnswStored{prec: p, codes: make([]int8, len(h.v)), scales: make([]float32, h.n)}
		if err := hostsimd.QuantizeInt8(h.v, h.dim, st.codes, st.scales); err != nil {
			return err
		}
		h.st = st
	default:
		return invalid(ParamPrecision.Name, p, "want one of %v", Precisions)
	}
	nq := len(h.qs) / h.dim
	qcodes, qscales := make([]int8, len(h.qs)), make([]float32, nq)
	if p == PrecisionInt8 {
		if err := hostsimd.QuantizeInt8(h.qs, h.dim, qcodes, qscales); err != nil {
			return err
		}
	}
	for i := range h.want {
		j, id := i/h.c, int(h.ids[i])
		q, row := h.qs[j*h.dim:][:h.dim], h.v[id*h.dim:][:h.dim]
		var want, tol, bound float64
		if p == PrecisionF16 {
			want, tol, bound = f16Pair(h.metric, q, row, h.st.f16[id*h.dim:][:h.dim])
		} else {
			want, tol, bound = int8Pair(h.metric, q, qcodes[j*h.dim:][:h.dim], qscales[j], row, h.st.codes[id*h.dim:][:h.dim], h.st.scales[id])
		}
		if d := math.Abs(want - h.want[i]); !(d <= bound+h.tol[i]) {
			return fmt.Errorf("%s: pair %d: stored distance %v, f32 distance %v: %.3g past the bound %.3g: %w", p, i, want, h.want[i], d, bound, ErrMismatch)
		}
		h.st.bound = max(h.st.bound, bound+h.tol[i])
		h.want[i], h.tol[i] = want, tol
	}
	return nil
}

// f16Pair is the metric of q and the binary16 row hr (of the f32 row v):
// its float64 value, the f32 kernels' tolerance and the bound on its
// distance from the f32 metric (hnswBound).
func f16Pair(m ops.Metric, q, v []float32, hr []uint16) (want, tol, bound float64) {
	var dot, dabs, vv, qq, ev, l2, l2f, vf float64
	for k, x := range hr {
		a, b, f := float64(q[k]), float64(ops.F16ToF32(x)), float64(v[k])
		dot, dabs, vv, qq = dot+a*b, dabs+math.Abs(a*b), vv+b*b, qq+a*a
		ev, l2, l2f, vf = ev+(b-f)*(b-f), l2+(a-b)*(a-b), l2f+(a-f)*(a-f), vf+f*f
	}
	bound = hnswBound(m, 0, math.Sqrt(ev), math.Sqrt(qq), math.Sqrt(vv), math.Sqrt(vf), math.Sqrt(l2)+math.Sqrt(l2f))
	switch m {
	case ops.L2Sq:
		return l2, DotTol(len(q), qq+vv+2*dabs), bound
	case ops.InnerProduct:
		return dot, DotTol(len(q), dabs), bound
	}
	if qq == 0 || vv == 0 {
		return 0, 1e-6, bound
	}
	den := math.Sqrt(qq) * math.Sqrt(vv)
	return dot / den, DotTol(len(q), dabs)/den + 2*float64(len(q))*eps32*math.Abs(dot/den), bound
}

// int8Pair is the metric of the int8 query (codes qc, scale sq; of the f32
// q) and row (codes vc, scale sv; of the f32 v): hostsimd.Int8Metric of
// the exact integer sums, the tolerance of rescaling them in f32, and the
// bound on its distance from the f32 metric (hnswBound).
func int8Pair(m ops.Metric, q []float32, qc []int8, sq float32, v []float32, vc []int8, sv float32) (want, tol, bound float64) {
	var dot, vv, qq int64
	var eq, ev, nq, nv, nvf, l2, l2f float64
	a, b := float64(sq), float64(sv)
	for k := range qc {
		x, y := int64(qc[k]), int64(vc[k])
		dot, vv, qq = dot+x*y, vv+y*y, qq+x*x
		qh, vh, qf, vf := a*float64(x), b*float64(y), float64(q[k]), float64(v[k])
		eq, ev, nq, nv, nvf = eq+(qh-qf)*(qh-qf), ev+(vh-vf)*(vh-vf), nq+qf*qf, nv+vh*vh, nvf+vf*vf
		l2, l2f = l2+(qh-vh)*(qh-vh), l2f+(qf-vf)*(qf-vf)
	}
	want = hostsimd.Int8Metric(m, dot, vv, qq, sq, sv)
	bound = hnswBound(m, math.Sqrt(eq), math.Sqrt(ev), math.Sqrt(nq), math.Sqrt(nv), math.Sqrt(nvf), math.Sqrt(l2)+math.Sqrt(l2f))
	tol = 8 * 0x1p-24 * (math.Abs(want) + a*a*float64(qq) + b*b*float64(vv) + 2*a*b*math.Abs(float64(dot)))
	if m == ops.Cosine {
		tol = 8 * 0x1p-24
	}
	return want, tol + 1e-30, bound
}

// hnswBound is how far a metric of the stored vectors q̂, v̂ may lie from
// that of q, v, from e_q = ‖q − q̂‖, e_v = ‖v − v̂‖ (triangle inequality):
// inner product e_q‖v̂‖ + ‖q‖e_v; L2² (e_q + e_v)(‖q̂ − v̂‖ + ‖q − v‖)
// (l2sum); cosine 2(e_q/‖q‖ + e_v/‖v‖), since normalising moves a vector
// by at most twice its relative error.
func hnswBound(m ops.Metric, eq, ev, nq, nvStored, nv, l2sum float64) float64 {
	switch m {
	case ops.InnerProduct:
		return eq*nvStored + nq*ev
	case ops.L2Sq:
		return (eq + ev) * l2sum
	}
	rel := func(e, n float64) float64 {
		if n == 0 {
			return 0
		}
		return e / n
	}
	return 2 * (rel(eq, nq) + rel(ev, nv))
}

// hnswSides is what differs between hnsw's stored precisions in a case:
// the variant suffix and params naming it and the bytes a gathered row
// moves (the runner and host kernel are newGather and hostGather).
type hnswSides struct {
	suffix   string
	params   []report.Param
	rowBytes int
}

func (h *hnswData) sides() hnswSides {
	switch {
	case h.st == nil:
		return hnswSides{rowBytes: 4 * h.dim}
	case h.st.prec == PrecisionF16:
		return hnswSides{suffix: "-" + h.st.prec, params: []report.Param{p("precision", h.st.prec)}, rowBytes: 2 * h.dim}
	}
	return hnswSides{suffix: "-" + h.st.prec, params: []report.Param{p("precision", h.st.prec)}, rowBytes: h.dim + 4}
}

// newGather builds the GPU runner for h's storage precision.
func (h *hnswData) newGather(d *wgpu.Device, o compute.GatherOptions) (*compute.Gather, error) {
	switch {
	case h.st == nil:
		return compute.NewGather(d, h.v, h.dim, o)
	case h.st.prec == PrecisionF16:
		return compute.NewGatherF16(d, h.v, h.dim, o)
	}
	return compute.NewGatherInt8(d, h.v, h.dim, o)
}

// hostGather runs the host kernel for h's storage precision.
func (h *hnswData) hostGather(host hostsimd.Host, qs []float32, ids []int32, out []float32) error {
	switch {
	case h.st == nil:
		return host.Gather(qs, h.v, h.dim, ids, h.metric, out)
	case h.st.prec == PrecisionF16:
		return host.GatherF16(qs, h.st.f16, h.dim, ids, h.metric, out)
	}
	return host.GatherInt8(qs, h.st.codes, h.st.scales, h.dim, ids, h.metric, out)
}
