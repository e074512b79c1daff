package hostsimd

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// allowedCPUs lists the CPUs the calling thread may run on, in order.
func allowedCPUs() []int {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		return nil
	}
	var out []int
	for c := 0; c < 1024 && len(out) < set.Count(); c++ {
		if set.IsSet(c) {
			out = append(out, c)
		}
	}
	return out
}

// pinThread binds the calling OS thread to cpu.
func pinThread(cpu int) error {
	var set unix.CPUSet
	set.Set(cpu)
	if err := unix.SchedSetaffinity(0, &set); err != nil {
		return fmt.Errorf("hostsimd: ProbeState: pin to CPU %d: %w", cpu, err)
	}
	return nil
}
