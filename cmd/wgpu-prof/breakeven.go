package main

import (
	"fmt"
	"io"

	"github.com/spf13/pflag"

	"github.com/wgpu-prof/wgpu-prof/experiment"
	"github.com/wgpu-prof/wgpu-prof/report"
)

func runBreakEven(stdout, stderr io.Writer, args []string) error {
	usage := "usage: wgpu-prof breakeven --kernel K [--batches 1,2,4,...] [--amdahl SHARE]\n" +
		"Sweeps the batch size on GPU and CPU, fits t(n) = overhead + n·per_item on\n" +
		"each side, and reports the fitted and measured crossovers, on end-to-end and\n" +
		"on kernel time."
	examples := `  wgpu-prof breakeven --kernel cosine-single --quick --batches 256,1024,4096,8192
  wgpu-prof breakeven --kernel hnsw --amdahl 0.3 --out be --plot`
	return measureCommand(stdout, stderr, args, "breakeven", usage, examples, true, func(fs *pflag.FlagSet) measureHooks {
		amdahl := fs.Float64("amdahl", -1, "share (0..1) of an application's time this operation takes: print the end-to-end application speedup the measurement allows")
		return measureHooks{ready: func(*outputFlags) error {
			if fs.Changed("amdahl") && !(*amdahl >= 0 && *amdahl <= 1) {
				return fmt.Errorf("--amdahl %v: the share must be in [0, 1]", *amdahl)
			}
			if b, err := parseInts("--batches", fs.Lookup("batches").Value.String()); err == nil && len(b) > 0 && len(b) < 3 {
				return fmt.Errorf("--batches %s: a fit needs at least 3 batch sizes", fs.Lookup("batches").Value.String())
			}
			return nil
		}, run: func(env *experiment.Env, cfg experiment.RunConfig, rep *report.Report) error {
			withAmdahl := fs.Changed("amdahl")
			if err := env.BreakEven(cfg, rep); err != nil {
				return err
			}
			if withAmdahl {
				lines, err := experiment.AmdahlLines(rep, *amdahl)
				if err != nil {
					return err
				}
				rep.Summary = append(rep.Summary, lines...)
			}
			return nil
		}}
	})
}
