package timing_test

import (
	"testing"

	"github.com/wgpu-prof/wgpu-prof/timing"
)

func TestCompareAndRatio(t *testing.T) {
	a := timing.Summary{N: 10, Median: 10, Lo: 9, Hi: 11}
	b := timing.Summary{N: 10, Median: 13, Lo: 12, Hi: 14}
	c := timing.Summary{N: 10, Median: 11.5, Lo: 10.5, Hi: 12.5}
	if cmp := timing.Compare(a, b); !cmp.Significant || cmp.Margin < 0.299 || cmp.Margin > 0.301 {
		t.Errorf("disjoint CIs: %+v", cmp)
	}
	if cmp := timing.Compare(a, c); cmp.Significant {
		t.Errorf("overlapping CIs called significant: %+v", cmp)
	}
	r := timing.Ratio(b, a)
	if r.Median != 1.3 || r.Lo != 12.0/11 || r.Hi != 14.0/9 {
		t.Errorf("ratio %+v", r)
	}
	s := timing.Subtract(b, a)
	if s.Median != 3 || s.Lo != 1 || s.Hi != 5 {
		t.Errorf("subtract %+v", s)
	}
	k := timing.Classification{Kind: timing.MemoryBound}
	timing.RooflineCheck(&k, timing.Summary{Median: 1, Lo: 0.9, Hi: 1.1}, timing.Summary{Median: 5, Lo: 4, Hi: 6})
	if k.Consistent {
		t.Errorf("memory-bound with B ≫ A passed the roofline check: %+v", k)
	}
}
