package hostsimd

import (
	"testing"

	"github.com/wgpu-prof/wgpu-prof/machine"
)

// TestResidentClassIsTheLevelRule pins the calibration's resident/DRAM
// boundary to the one level rule (machine.ReachOf, no staircase: the
// capacity cpuid reports as the default threads see it): a buffer that
// fits the last-level cache is resident, one byte more is DRAM, on hosts
// with a small, a giant and no reported L3. Moving the boundary (to half
// the L3, to twice it, to a fixed size) fails here.
func TestResidentClassIsTheLevelRule(t *testing.T) {
	for _, m := range []machine.Machine{
		{L1D: 48 << 10, L2: 1 << 20, L3: 32 << 20, Cores: 2, MemAvailable: 8 << 30},
		{L1D: 48 << 10, L2: 2 << 20, L3: 480 << 20, Cores: 2, MemAvailable: 22 << 30},
		{L1D: 48 << 10, L2: 2 << 20, Cores: 8, MemAvailable: 16 << 30},
	} {
		restore := machine.Set(m)
		edge := m.L3
		if edge == 0 {
			edge = m.L2 * int64(defaultThreads)
		}
		for _, c := range []struct {
			bytes int64
			want  string
		}{{edge / 2, ClassResident}, {edge/2 + 1, ClassResident}, {edge, ClassResident}, {edge + 1, ClassDRAM}, {2 * edge, ClassDRAM}} {
			if got := ClassOf(c.bytes); got != c.want {
				t.Errorf("L3 %d, L2 %d: ClassOf(%d) = %s, want %s", m.L3, m.L2, c.bytes, got, c.want)
			}
			if got := machine.Current().LevelOf(float64(c.bytes), defaultThreads, nil) != machine.DRAM; got != (c.want == ClassResident) {
				t.Errorf("ClassOf(%d) disagrees with the level rule", c.bytes)
			}
		}
		// The calibration's DRAM buffer fits the budget with the other
		// arrays of a ceilings pass.
		if b, _ := DRAMWorkingSetPlan(defaultThreads); b*CeilingArrays > m.Budget(false) {
			t.Errorf("DRAMWorkingSet %d × %d past the budget %d", b, CeilingArrays, m.Budget(false))
		}
		restore()
	}
}
