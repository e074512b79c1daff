package main

import (
	"fmt"
	"io"

	"github.com/spf13/pflag"

	"github.com/wgpu-prof/wgpu-prof/experiment"
)

func runBreakEven(stdout, stderr io.Writer, args []string) error {
	fs := pflag.NewFlagSet("breakeven", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	var o outputFlags
	var dev deviceFlags
	var suite suiteFlags
	o.register(fs, true)
	dev.register(fs)
	suite.register(fs)
	kernel := fs.String("kernel", "", "workload to sweep: "+joinNames(experiment.AllWorkloads))
	amdahl := fs.Float64("amdahl", -1, "share (0..1) of an application's time this operation takes: print the end-to-end application speedup the measurement allows")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: wgpu-prof breakeven --kernel K [--batches 1,2,4,...] [--amdahl SHARE]")
		fmt.Fprintln(stderr, "Sweeps the batch size on GPU and CPU, fits t(n) = overhead + n·per_item on")
		fmt.Fprintln(stderr, "each side, and reports the fitted and measured crossovers, on end-to-end and")
		fmt.Fprintln(stderr, "on kernel time.")
		fs.PrintDefaults()
	}
	if done, err := parseFlags(fs, args); done || err != nil {
		return err
	}
	if err := o.validate(); err != nil {
		return err
	}
	if *kernel == "" {
		return fmt.Errorf("--kernel is required (one of %s)", joinNames(experiment.AllWorkloads))
	}
	suite.workloads = *kernel
	cfg, err := suite.config(fs, &dev)
	if err != nil {
		return err
	}
	if fs.Changed("amdahl") && !(*amdahl >= 0 && *amdahl <= 1) {
		return fmt.Errorf("--amdahl %v: the share must be in [0, 1]", *amdahl)
	}
	env, err := dev.open(stderr)
	if err != nil {
		return err
	}
	defer env.Close()
	rep := env.NewReport(versionString())
	if err := env.BreakEven(cfg, rep); err != nil {
		return err
	}
	if fs.Changed("amdahl") {
		lines, err := experiment.AmdahlLines(rep, *amdahl)
		if err != nil {
			return err
		}
		rep.Summary = append(rep.Summary, lines...)
	}
	return o.emit(stdout, rep)
}
