package main

import (
	"strings"
	"testing"
)

// flagTable says, for a few commands and flags, whether the command takes
// the flag. It is written out here, not derived from commandFlags: a flag
// listed for a command that has no use for it (latency measuring no host
// kernel yet taking --threads) is accepted and ignored, which the
// registry-driven tests cannot see.
var flagTable = []struct {
	cmd, flag string
	takes     bool
}{
	// latency: one GPU call's anatomy, no host kernel, no sizes, no budget.
	{"latency", "threads", false},
	{"latency", "cpu-level", false},
	{"latency", "budget", false},
	{"latency", "quick", false},
	{"latency", "n", false},
	{"latency", "plot", false},
	{"latency", "verbose", false},
	{"latency", "workloads", false},
	{"latency", "rounds", true},
	{"latency", "max-bytes", true},
	{"latency", "format", true},
	{"latency", "out", true},
	{"latency", "force", true},
	{"latency", "backend", true},
	{"latency", "impl", true},
	{"latency", "adapter", true},
	// devices, compare, version, workloads measure nothing.
	{"devices", "threads", false},
	{"devices", "out", false},
	{"devices", "budget", false},
	{"devices", "backend", true},
	{"compare", "threads", false},
	{"compare", "out", false},
	{"compare", "threshold", true},
	{"version", "threads", false},
	{"workloads", "threads", false},
	// stream: BabelStream's table or CSV; its CPU side has threads.
	{"stream", "threads", true},
	{"stream", "plot", false},
	{"stream", "rounds", false},
	// host: CPU only.
	{"host", "threads", true},
	{"host", "backend", false},
	{"host", "impl", false},
	{"host", "plot", false},
	{"host", "out", true},
	{"host", "force", true},
	// The measuring commands with a device.
	{"run", "threads", true},
	{"run", "trace", true},
	{"run", "rounds", false},
	{"breakeven", "amdahl", true},
	{"breakeven", "trace", false},
	{"plan", "plot", false},
	{"plan", "force", true},
	{"kernel", "workloads", false},
	{"kernel", "force", true},
}

// Each command takes exactly the flags flagTable says it takes: its flag
// set holds them, and a flag it does not take is refused with exit
// status 2 naming the flag.
func TestFlagsTakenByTable(t *testing.T) {
	sets := commandFlagSets(t)
	for _, c := range flagTable {
		set := sets[c.cmd]
		if set == nil {
			t.Errorf("no command %q", c.cmd)
			continue
		}
		if got := set.Lookup(c.flag) != nil; got != c.takes {
			t.Errorf("%s --%s: taken %v, want %v", c.cmd, c.flag, got, c.takes)
		}
		if c.takes {
			continue
		}
		_, _, err := runCmd(append(strings.Fields(c.cmd), "--"+c.flag+"=1")...)
		code, msg := exitStatus(err)
		if want := c.cmd + " does not take --" + c.flag; code != 2 || !strings.Contains(msg, want) {
			t.Errorf("%s --%s=1: exit %d %q, want 2 and %q", c.cmd, c.flag, code, msg, want)
		}
	}
}
