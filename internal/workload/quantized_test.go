package workload

import (
	"errors"
	"math"
	"testing"

	"github.com/wgpu-prof/wgpu-prof/hostsimd"
)

// recall@k counts the hits of got's top k among exact's: a planted wrong
// score that lifts a row into the top k costs one hit; NaN never hits.
func TestRecallAtK(t *testing.T) {
	exact := []float64{0.9, 0.1, 0.8, 0.2, 0.7, 0.3}
	if r := RecallAtK(exact, exact, 3, false); r != 1 {
		t.Fatalf("exact against itself: %v", r)
	}
	got := append([]float64(nil), exact...)
	got[1] = 0.95 // row 1 planted above row 4, the third best
	if r := RecallAtK(exact, got, 3, false); math.Abs(r-2.0/3) > 1e-12 {
		t.Fatalf("one planted row: recall %v, want 2/3", r)
	}
	// Distances: the smallest are nearest (rows 1 and 3 exact; 3 and 5
	// once row 1 is planted far).
	if r := RecallAtK(exact, got, 2, true); r != 0.5 {
		t.Fatalf("nearest 2 with one planted far: recall %v, want 0.5", r)
	}
	got = append([]float64(nil), exact...)
	got[0] = math.NaN()
	if r := RecallAtK(exact, got, 1, false); r != 0 {
		t.Fatalf("NaN as the best row: recall %v, want 0", r)
	}
}

// Every workload with a stored precision is Quantized: f32 against
// itself is exact; f16 and int8 lose a little and int8 more than f16;
// a planted wrong stored score lowers the recall (mean and worst).
func TestQuantizedAccuracy(t *testing.T) {
	for _, d := range All() {
		if !d.Has(ParamPrecision.Name) {
			continue
		}
		qw, ok := d.Workload.(Quantized)
		if !ok {
			t.Fatalf("%s has a precision but is not Quantized", d.Name)
		}
		c := small
		c.K = 5 // < c 7 (hnsw)
		c.Defaults()
		if err := qw.CheckRecall(c); err != nil {
			t.Fatalf("%s: %v", d.Name, err)
		}
		f32, err := d.Prepare(c)
		if err != nil {
			t.Fatal(err)
		}
		acc := map[string]Accuracy{}
		for _, p := range Precisions {
			cp := c
			cp.Precision = p
			pr, err := d.Prepare(cp)
			if err != nil {
				t.Fatal(err)
			}
			a, err := qw.Accuracy(f32, pr, c.K)
			if err != nil {
				t.Fatalf("%s %s: %v", d.Name, p, err)
			}
			if a.Precision != p || a.K != c.K || a.Queries < 1 || a.Worst > a.Recall || a.Worst < 0 || a.Recall > 1 || math.IsNaN(a.MaxScoreErr) {
				t.Fatalf("%s %s: %+v", d.Name, p, a)
			}
			acc[p] = a
			if p != PrecisionF32 {
				// Made from the f32 data, the same values.
				sp, err := qw.Stored(f32, p)
				if err != nil {
					t.Fatal(err)
				}
				if b, err := qw.Accuracy(f32, sp, c.K); err != nil || b != a {
					t.Fatalf("%s %s: from the f32 data %+v, %v; prepared %+v", d.Name, p, b, err, a)
				}
			}
			if p == PrecisionInt8 {
				plantRecall(t, d, qw, f32, pr, a)
			}
		}
		if a := acc[PrecisionF32]; a.Recall != 1 || a.Worst != 1 || a.MaxScoreErr != 0 {
			t.Fatalf("%s: f32 against itself: %+v", d.Name, a)
		}
		if acc[PrecisionInt8].MaxScoreErr <= acc[PrecisionF16].MaxScoreErr || acc[PrecisionF16].MaxScoreErr == 0 {
			t.Fatalf("%s: int8 error %v not above f16's %v > 0", d.Name, acc[PrecisionInt8].MaxScoreErr, acc[PrecisionF16].MaxScoreErr)
		}
	}
}

// plantRecall makes the worst-ranked item of the first query the best by
// its stored score and checks that recall drops by 1/k there.
func plantRecall(t *testing.T, d *Descriptor, qw Quantized, f32, pr *Prepared, before Accuracy) {
	t.Helper()
	var scores []float64
	smaller := false
	switch x := pr.Cases.(type) {
	case cosineSingleCases:
		scores = x.st.ref.want
	case cosineTopKCases:
		scores = x.st.ref.want
	case *batchData:
		scores = x.refs[0].want
	case *hnswData:
		scores, smaller = x.want[:x.c], true
	default:
		t.Fatalf("%s: data %T", d.Name, pr.Cases)
	}
	worst := topK(scores, len(scores), smaller)[len(scores)-1]
	old := scores[worst]
	defer func() { scores[worst] = old }()
	scores[worst] = 1e9
	if smaller {
		scores[worst] = -1e9
	}
	a, err := qw.Accuracy(f32, pr, before.K)
	if err != nil {
		t.Fatal(err)
	}
	drop := 1 / float64(before.K*before.Queries)
	if a.Recall > before.Recall-drop+1e-9 || a.Worst > 1-1/float64(before.K)+1e-9 {
		t.Fatalf("%s: a planted wrong stored score left recall %v (worst %v), was %v", d.Name, a.Recall, a.Worst, before.Recall)
	}
}

// Same bytes: f32 over the stored bytes of the other precision (rows for
// the single-query workloads and cosine-batch, batches for hnsw); k must
// leave something to miss.
func TestQuantizedSameBytesAndK(t *testing.T) {
	c := small
	c.Defaults()
	for _, tc := range []struct {
		d             *Descriptor
		batch, want   int
		p, what       string
		rows, wantRow int
	}{
		{CosineSingle, 1000, 250, PrecisionInt8, "rows", 0, 0},
		{CosineTopK, 1000, 500, PrecisionF16, "rows", 0, 0},
		{CosineBatch, 5, 5, PrecisionInt8, "rows", 1, c.N / 4},
		{HNSW, 40, 11, PrecisionInt8, "batches", 0, 0}, // 40·(64+4)/256 = 10.6
		{HNSW, 40, 20, PrecisionF16, "batches", 0, 0},
	} {
		qw := tc.d.Workload.(Quantized)
		pr, err := tc.d.Prepare(c)
		if err != nil {
			t.Fatal(err)
		}
		sp, b, what, err := qw.SameBytes(pr, tc.batch, tc.p)
		if err != nil {
			t.Fatalf("%s %s: %v", tc.d.Name, tc.p, err)
		}
		if b != tc.want || what != tc.what {
			t.Errorf("%s %s: same bytes at %d %s, want %d %s", tc.d.Name, tc.p, b, what, tc.want, tc.what)
		}
		if tc.rows == 1 {
			if n := sp.Cases.(*batchData).n; n != tc.wantRow {
				t.Errorf("%s: same bytes over %d rows, want %d", tc.d.Name, n, tc.wantRow)
			}
			cpu, err := sp.At(b, Knobs{}).CPU.BuildCPU(hostsimd.Host{})
			if err != nil {
				t.Fatal(err)
			}
			if err := runSide(cpu); err != nil {
				t.Errorf("%s: the same-bytes case fails verification: %v", tc.d.Name, err)
			}
		}
	}
	hc := c
	hc.K = hc.C
	if err := HNSW.Workload.(Quantized).CheckRecall(hc); err == nil {
		t.Error("hnsw recall@k with k = c passed")
	}
	cc := c
	cc.K = cc.N
	if err := CosineBatch.Workload.(Quantized).CheckRecall(cc); err == nil {
		t.Error("cosine-batch recall@k with k = n passed")
	}
}

// SameBytes of another workload's data, or of stored (not f32) data, is
// an error, not a panic.
func TestQuantizedSameBytesMismatch(t *testing.T) {
	c := small
	c.K = 5
	c.Defaults()
	var ds []*Descriptor
	prs := map[string]*Prepared{}
	for _, d := range All() {
		if _, ok := d.Workload.(Quantized); !ok || !d.Has(ParamPrecision.Name) {
			continue
		}
		pr, err := d.Prepare(c)
		if err != nil {
			t.Fatal(err)
		}
		ds, prs[d.Name] = append(ds, d), pr
	}
	if len(ds) < 4 {
		t.Fatalf("quantized workloads %d, want 4", len(ds))
	}
	for i, d := range ds {
		qw := d.Workload.(Quantized)
		other := ds[(i+1)%len(ds)]
		if _, _, _, err := qw.SameBytes(prs[other.Name], 4, PrecisionInt8); err == nil {
			t.Errorf("%s: SameBytes of %s's data passed", d.Name, other.Name)
		}
		st, err := qw.Stored(prs[d.Name], PrecisionInt8)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, _, err := qw.SameBytes(st, 4, PrecisionInt8); err == nil {
			t.Errorf("%s: SameBytes of int8 data passed (it scales f32)", d.Name)
		}
		if _, _, _, err := qw.SameBytes(prs[d.Name], 4, PrecisionInt8); err != nil {
			t.Errorf("%s: SameBytes of its own f32 data: %v", d.Name, err)
		}
	}
}

// Every stored precision of every quantized workload reports a bound
// (the largest per-pair bound of its check) that covers its largest
// score error; a stored score moved past it after the check fails
// CheckBound, and a batch quantizer past its rule fails the check itself.
func TestQuantizedBoundCoversScoreError(t *testing.T) {
	c := small
	c.K = 5
	c.Defaults()
	for _, d := range All() {
		qw, ok := d.Workload.(Quantized)
		if !ok || !d.Has(ParamPrecision.Name) {
			continue
		}
		f32, err := d.Prepare(c)
		if err != nil {
			t.Fatal(err)
		}
		if a, err := qw.Accuracy(f32, f32, c.K); err != nil || a.Bound != 0 || a.CheckBound() != nil {
			t.Fatalf("%s f32: %+v %v", d.Name, a, err)
		}
		for _, p := range Precisions[1:] {
			st, err := qw.Stored(f32, p)
			if err != nil {
				t.Fatal(err)
			}
			a, err := qw.Accuracy(f32, st, c.K)
			if err != nil {
				t.Fatal(err)
			}
			if !(a.Bound > 0) || !(a.MaxScoreErr > 0) || a.CheckBound() != nil {
				t.Fatalf("%s %s: score error %v, bound %v: want 0 < error ≤ bound", d.Name, p, a.MaxScoreErr, a.Bound)
			}
			// Plant: one stored score moved by twice the bound.
			var s *float64
			switch x := st.Cases.(type) {
			case cosineSingleCases:
				s = &x.st.ref.want[1]
			case cosineTopKCases:
				s = &x.st.ref.want[1]
			case *batchData:
				s = &x.refs[1].want[2]
			case *hnswData:
				s = &x.want[3]
			default:
				t.Fatalf("%s: data %T", d.Name, st.Cases)
			}
			old := *s
			*s += 2 * a.Bound
			b, err := qw.Accuracy(f32, st, c.K)
			if err != nil {
				t.Fatal(err)
			}
			if err := b.CheckBound(); !errors.Is(err, ErrMismatch) {
				t.Errorf("%s %s: a score moved past the bound %v (error %v) passed: %v", d.Name, p, b.Bound, b.MaxScoreErr, err)
			}
			*s = old
		}
	}
	// The batch check itself: a bound below what int8 moves fails.
	cfg := small
	cfg.Defaults()
	data := cfg.cosineData(cfg.Seed + 1)
	b, err := newBatchDataIn(PrecisionInt8, data, cfg.N, cfg.Q, cfg.Seed+2, nil)
	if err != nil {
		t.Fatal(err)
	}
	f, err := newBatchData(data, cfg.N, cfg.Q, cfg.Seed+2, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := checkBatchBound(PrecisionInt8, f, b, func(int, int) float64 { return 0 }); !errors.Is(err, ErrMismatch) {
		t.Errorf("int8 batch against a zero bound passed: %v", err)
	}
}
