package main

import (
	"fmt"
	"io"

	"github.com/spf13/pflag"

	"github.com/wgpu-prof/wgpu-prof/experiment"
	"github.com/wgpu-prof/wgpu-prof/report"
)

// measureHooks are what a measuring command adds to measureCommand.
type measureHooks struct {
	// ready, if set, checks the parsed flags before the device opens.
	ready func(o *outputFlags) error
	// opened, if set, runs once the device is open.
	opened func(env *experiment.Env)
	// run measures into the report.
	run func(*experiment.Env, experiment.RunConfig, *report.Report) error
	// emitted, if set, runs after the report is written.
	emitted func(env *experiment.Env, o *outputFlags) error
}

// measureCommand is the shared shape of run, sweep, experiment and
// breakeven: flags, an open device, one experiment call, the report. With
// withKernel, --kernel K (required) picks the one workload in place of
// --workloads.
func measureCommand(stdout, stderr io.Writer, args []string, name, usage string, withKernel bool, extra func(fs *pflag.FlagSet) measureHooks) error {
	fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
	fs.SetOutput(stderr)
	var o outputFlags
	var dev deviceFlags
	var suite suiteFlags
	o.register(fs, true)
	dev.register(fs)
	suite.register(fs)
	var kernel *string
	if withKernel {
		kernel = fs.String("kernel", "", "workload: "+joinNames(experiment.AllWorkloads()))
	}
	h := extra(fs)
	fs.Usage = func() {
		fmt.Fprintln(stderr, usage)
		fs.PrintDefaults()
	}
	if done, err := parseFlags(fs, args); done || err != nil {
		return err
	}
	if err := o.validate(); err != nil {
		return err
	}
	if h.ready != nil {
		if err := h.ready(&o); err != nil {
			return err
		}
	}
	if withKernel {
		if *kernel == "" {
			return fmt.Errorf("--kernel is required (one of %s)", joinNames(experiment.AllWorkloads()))
		}
		suite.workloads = *kernel
	}
	cfg, err := suite.config(fs, &dev)
	if err != nil {
		return err
	}
	env, err := dev.open(stderr)
	if err != nil {
		return err
	}
	defer env.Close()
	if h.opened != nil {
		h.opened(env)
	}
	rep := env.NewReport(versionString())
	if err := h.run(env, cfg, rep); err != nil {
		return err
	}
	if err := o.emit(stdout, rep); err != nil {
		return err
	}
	if h.emitted != nil {
		return h.emitted(env, &o)
	}
	return nil
}

func runSweep(stdout, stderr io.Writer, args []string) error {
	if len(args) == 0 || (args[0] != "workgroup" && args[0] != "tile" && args[0] != "variant") {
		if len(args) > 0 && (args[0] == "--help" || args[0] == "-h") {
			fmt.Fprintln(stdout, "usage: wgpu-prof sweep workgroup|tile|variant --kernel K [flags]")
			return nil
		}
		return fmt.Errorf("sweep: say which: wgpu-prof sweep workgroup|tile|variant --kernel K")
	}
	kind := args[0]
	usage := "usage: wgpu-prof sweep workgroup --kernel K [--sizes 32,64,128,256,512]\n" +
		"Times the GPU kernel at each workgroup size (results verified); sizes the adapter\n" +
		"rejects are listed with the reason."
	if kind == "tile" {
		usage = "usage: wgpu-prof sweep tile --kernel cosine-batch [--tiles 16,32,64,128]\n" +
			"Times the tiled batch kernel at each tile size (its workgroup is (tile/4)² threads,\n" +
			"so tile and workgroup move jointly); tiles the adapter rejects are listed with the reason."
	}
	if kind == "variant" {
		usage = "usage: wgpu-prof sweep variant --kernel K [--wg N] [--tile T]\n" +
			"Times every GPU design of the kernel side by side at its default size (each verified\n" +
			"against the reference; a design that fails is listed, never timed) and names the fastest."
	}
	return measureCommand(stdout, stderr, args[1:], "sweep "+kind, usage, true, func(fs *pflag.FlagSet) measureHooks {
		sizes := fs.String("sizes", "32,64,128,256,512", "workgroup sizes (sweep workgroup)")
		tiles := fs.String("tiles", "16,32,64,128", "tile sizes (sweep tile)")
		return measureHooks{run: func(env *experiment.Env, cfg experiment.RunConfig, rep *report.Report) error {
			if kind == "variant" {
				return env.VariantSweep(cfg.Workloads[0], cfg, rep)
			}
			if kind == "tile" {
				t, err := parseInts("--tiles", *tiles)
				if err != nil {
					return err
				}
				return env.Sweep(cfg.Workloads[0], cfg, nil, t, rep)
			}
			s, err := parseInts("--sizes", *sizes)
			if err != nil {
				return err
			}
			return env.Sweep(cfg.Workloads[0], cfg, s, nil, rep)
		}}
	})
}

func runExperiment(stdout, stderr io.Writer, args []string) error {
	if len(args) == 0 || args[0] != "memory-compute" {
		if len(args) > 0 && (args[0] == "--help" || args[0] == "-h") {
			fmt.Fprintln(stdout, "usage: wgpu-prof experiment memory-compute --kernel cosine-single [flags]")
			return nil
		}
		return fmt.Errorf("experiment: the only experiment is memory-compute: wgpu-prof experiment memory-compute --kernel K")
	}
	usage := "usage: wgpu-prof experiment memory-compute --kernel cosine-single [flags]\n" +
		"Runs three shaders over the same data: A reads every input with minimal work, B does\n" +
		"the arithmetic with no global reads, C is the full kernel; classifies the kernel as\n" +
		"memory-bound (A≈C), compute-bound (B≈C), no-overlap (A+B≈C) or mixed."
	return measureCommand(stdout, stderr, args[1:], "experiment memory-compute", usage, true, func(fs *pflag.FlagSet) measureHooks {
		return measureHooks{run: func(env *experiment.Env, cfg experiment.RunConfig, rep *report.Report) error {
			return env.MemCompute(cfg.Workloads[0], cfg, rep)
		}}
	})
}
