package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/wgpu-prof/wgpu-prof/internal/experiment"
	"github.com/wgpu-prof/wgpu-prof/internal/experiment/sidebyside"
)

// measureImpls runs the command through each WebGPU implementation in
// turn, on the same backend and adapter selection (each with its own
// ceilings and variant selection), and reports them side by side
// (sidebyside.MergeImpls). An implementation that cannot be opened, or
// whose run stops early, is reported beside the others and makes the exit
// status 1 (130 on an interrupt); a usage error stops everything.
func measureImpls(stdout, stderr io.Writer, o *outputFlags, dev deviceFlags, cfg experiment.RunConfig, h measurer) error {
	if strings.Contains(dev.backend, ",") {
		return fmt.Errorf("--impl %s with --backend %s: compare implementations on one backend, or backends through one implementation", dev.impl, dev.backend)
	}
	impls, err := sidebyside.ParseImplList(dev.impl)
	if err != nil {
		return err
	}
	return measureEach(stdout, stderr, o, dev, cfg, h, impls, "implementation",
		func(d *deviceFlags, i string) { d.impl = i }, sidebyside.MergeImpls)
}
