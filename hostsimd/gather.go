package hostsimd

import (
	"fmt"

	"github.com/wgpu-prof/wgpu-prof/ops"
)

// Gather computes, for each of the Q = len(q)/d queries and each
// of its C = len(ids)/Q candidates, out[j*C+c] = metric(q_j, v[ids[j*C+c]])
// where v holds N = len(v)/d rows. All ids are checked before any work:
// an id outside [0,N) gives an error naming the id and its position. It
// also returns an error for d <= 0, len(q) or len(v) not a multiple of d,
// len(ids) not a multiple of Q, len(out) < len(ids) or an unknown metric.
// It runs with the zero Host.
func Gather(q, v []float32, d int, ids []int32, metric ops.Metric, out []float32) error {
	return Host{}.Gather(q, v, d, ids, metric, out)
}

// Gather is the package-level Gather run with h.
func (h Host) Gather(q, v []float32, d int, ids []int32, metric ops.Metric, out []float32) error {
	const fn = "Gather"
	r, err := h.resolve()
	if err != nil {
		return err
	}
	n, err := rowCount(fn, "v", len(v), d)
	if err != nil {
		return err
	}
	nq, c, err := gatherArgs(fn, len(q), n, d, ids, metric, len(out))
	if err != nil || nq == 0 {
		return err
	}
	k := r.k
	var qq []float32
	if metric == ops.Cosine {
		// Queries out of float32's range squared are scaled by a power
		// of two (scaleQuery; scale.go).
		qq = make([]float32, nq)
		scaled := q
		for j := range qq {
			row := q[j*d : (j+1)*d]
			s, ss := scaleQuery(k, row)
			if &s[0] != &row[0] {
				if &scaled[0] == &q[0] {
					scaled = append([]float32(nil), q[:nq*d]...)
				}
				copy(scaled[j*d:(j+1)*d], s)
			}
			qq[j] = ss
		}
		q = scaled
	}
	r.parallelFor(len(ids), d, rowGrain(d), func(lo, hi int) {
		for p := lo; p < hi; p++ {
			j := p / c
			qv := q[j*d : (j+1)*d]
			id := int(ids[p])
			row := v[id*d : (id+1)*d]
			switch metric {
			case ops.L2Sq:
				out[p] = k.l2(qv, row)
			case ops.InnerProduct:
				out[p] = k.dot(qv, row)
			default:
				ab, vv := k.dotNorm(qv, row)
				out[p] = cosineRow(ab, qq[j], vv, qv, row)
			}
		}
	})
	return nil
}

// gatherArgs checks a gather's arguments (the rules of Gather) against n
// stored rows and returns the query count and the candidates per query.
func gatherArgs(fn string, lenQ, n, d int, ids []int32, metric ops.Metric, lenOut int) (nq, c int, err error) {
	if nq, err = rowCount(fn, "q", lenQ, d); err != nil {
		return 0, 0, err
	}
	if metric < ops.L2Sq || metric > ops.Cosine {
		return 0, 0, fmt.Errorf("hostsimd: %s: unknown metric %v", fn, metric)
	}
	if nq == 0 {
		if len(ids) != 0 {
			return 0, 0, fmt.Errorf("hostsimd: %s: len(ids)=%d but there are no queries", fn, len(ids))
		}
		return 0, 0, nil
	}
	if len(ids)%nq != 0 {
		return 0, 0, fmt.Errorf("hostsimd: %s: len(ids)=%d is not a multiple of the query count %d", fn, len(ids), nq)
	}
	c = len(ids) / nq
	if err := checkLen(fn, "out", lenOut, len(ids)); err != nil {
		return 0, 0, err
	}
	for p, id := range ids {
		if id < 0 || int(id) >= n {
			return 0, 0, fmt.Errorf("hostsimd: %s: ids[%d]=%d (query %d, candidate %d) out of range [0,%d)", fn, p, id, p/c, p%c, n)
		}
	}
	return nq, c, nil
}
