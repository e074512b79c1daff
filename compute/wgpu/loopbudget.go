package wgpu

import (
	"fmt"
	"strings"
)

// llvmpipeLoopBudget is what Mesa's llvmpipe (lavapipe, the Vulkan
// adapter of machines without a GPU) lets one shader invocation spend on loops,
// over all its loops together (LP_MAX_TGSI_LOOP_ITERATIONS in Mesa 22):
// every loop it runs costs its iterations plus one (the test that ends
// it), and once 65,536 are spent every loop exits at its next back edge,
// silently: a loop of more than 65,535 iterations runs 65,535, and a
// second loop runs only what the first left of the budget, so a
// spreading-activation row of more edges than that, summed on one thread,
// would silently come out short. TestLoopBudget checks the model against
// the driver, and the runners' own tests check their counts at the largest
// size they let through.
const llvmpipeLoopBudget = 65536

// LoopBudget is what one invocation may spend on loops before the driver
// silently ends them, counting each loop run as its iterations plus one;
// 0 when the adapter is not known to have such a limit.
func (d *Device) LoopBudget() uint64 {
	if d == nil {
		return 0
	}
	id := strings.ToLower(d.Info.Name + " " + d.Info.Vendor + " " + d.Info.Driver)
	if strings.Contains(id, "llvmpipe") {
		return llvmpipeLoopBudget
	}
	return 0
}

// CheckLoopBudget refuses, with ErrLimit, a kernel whose invocations
// would spend more on loops than the adapter's budget (iterations counted
// as LoopBudget counts them; what says which input needs them).
func CheckLoopBudget(d *Device, iterations uint64, what string) error {
	if err := d.check("CheckLoopBudget"); err != nil {
		return err
	}
	if b := d.LoopBudget(); b > 0 && iterations > b {
		return fmt.Errorf("%s: one invocation would run %d loop iterations (each loop counted as its iterations + 1) > %d, after which %s silently ends a shader's loops: %w", what, iterations, b, d.Info.Name, ErrLimit)
	}
	return nil
}
