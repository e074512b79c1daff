package machine_test

import (
	"fmt"

	"github.com/wgpu-prof/wgpu-prof/machine"
)

// A working set is planned against a host's caches and memory budget
// before anything is allocated: here a host with a 480 MiB L3 and 4 GiB
// of memory given to the run.
func Example() {
	m := machine.Machine{L1D: 48 << 10, L2: 2 << 20, L3: 480 << 20, Cores: 8, MaxMemory: 4 << 30}
	want := m.DRAMWant(8)
	per, capped := machine.Plan(want, 3, m.Budget(false))
	fmt.Println("level of 1 MiB on 1 thread:", m.LevelOf(1<<20, 1, nil))
	fmt.Println("dram arrays wanted:", machine.IEC(float64(want)), "each")
	fmt.Println("planned:", machine.IEC(float64(per)), "each, capped:", capped)
	// Output:
	// level of 1 MiB on 1 thread: l2
	// dram arrays wanted: 7.5 GiB each
	// planned: 1.33 GiB each, capped: true
}
