package compute

import (
	"errors"
	"testing"
)

// TestMemStreamVerifiesEveryVariant runs A, B and E of the generic family
// over several shapes (one dispatch, several passes, a byte count that is
// not a whole block) and checks a wrong expectation is caught.
func TestMemStreamVerifiesEveryVariant(t *testing.T) {
	d := ceilingDevice(t)
	for _, c := range []struct {
		bytes, flops float64
		passes, wg   int
	}{{1 << 20, 1 << 22, 1, 64}, {3<<20 + 52, 5e6, 7, 32}, {4096, 0, 1, 256}} {
		m, err := NewMemStream(d, c.bytes, c.flops, c.passes, c.wg)
		if err != nil {
			t.Fatal(err)
		}
		if m.Bytes < c.bytes || m.Bytes >= c.bytes+16 {
			t.Errorf("%+v: A reads %v bytes", c, m.Bytes)
		}
		if m.Dispatches < c.passes {
			t.Errorf("%+v: %d dispatches", c, m.Dispatches)
		}
		for _, v := range []string{VariantMemory, VariantCompute, VariantEmpty} {
			if _, err := m.Run(v, nil); err != nil {
				t.Errorf("%+v %s: %v", c, v, err)
			}
		}
		m.want[VariantMemory][len(m.want[VariantMemory])-1]++
		if _, err := m.Run(VariantMemory, nil); !errors.Is(err, ErrVerify) {
			t.Errorf("%+v: a wrong A expectation passed: %v", c, err)
		}
		m.Release()
		m.Release()
		if _, err := m.Run(VariantMemory, nil); err == nil {
			t.Error("run after release succeeded")
		}
	}
	if _, err := NewMemStream(d, 0, 1, 1, 64); err == nil {
		t.Error("0 bytes accepted")
	}
}
