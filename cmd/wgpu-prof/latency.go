package main

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/spf13/pflag"

	"github.com/wgpu-prof/wgpu-prof/internal/experiment"
	"github.com/wgpu-prof/wgpu-prof/internal/report"
)

func runLatency(stdout, stderr io.Writer, args []string) error {
	fs := pflag.NewFlagSet("latency", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	format := fs.String("format", "text", "output format: text or json")
	rounds := fs.Int("rounds", 10, "interleaved rounds over every point (3..1000)")
	maxBytes := fs.Uint64("max-bytes", experiment.DefaultLatencyMaxBytes, "largest readback and upload measured, in bytes")
	backend := fs.String("backend", "any", "GPU adapter backend: vulkan, metal, d3d12, gl or any")
	impl := fs.String("impl", "", "WebGPU implementation: wgpu-native or dawn (default: $WGPU_PROF_IMPL, else wgpu-native)")
	adapter := fs.Int("adapter", -1, "GPU adapter index (see wgpu-prof devices); -1: the best one")
	adapterName := fs.String("adapter-name", "", "pick the adapter whose name contains this text")
	setHelp(fs, stdout, "usage: wgpu-prof latency [flags]\n"+
		"The anatomy of one GPU call, apart from any kernel's work, each call made\n"+
		"as a lean application makes it (one submit, one wait) and verified: the round\n"+
		"trip of an empty call and of a tiny call (16-byte write, one dispatch of 64\n"+
		"invocations, 4-byte readback); the cost per dispatch with K = 1, 2, 4 … 64\n"+
		"dispatches per submit; readback and upload time against bytes (4 B up to\n"+
		"--max-bytes). Medians with their 95% CI, points interleaved round by round.",
		`  wgpu-prof latency
  wgpu-prof latency --format json --max-bytes 4194304`)
	if done, err := parseFlags(fs, args); done || err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("latency: unexpected argument(s) %q (every input is a --flag)", fs.Args())
	}
	if *format != "text" && *format != "json" {
		return fmt.Errorf("--format %q: want text or json", *format)
	}
	if *adapter < -1 {
		return fmt.Errorf("--adapter %d: an index from wgpu-prof devices (0, 1, …), or -1 for the best one", *adapter)
	}
	cfg := experiment.LatencyConfig{Rounds: *rounds, MaxBytes: *maxBytes}
	if *rounds == 0 {
		return fmt.Errorf("--rounds 0: must be in 3..1000")
	}
	if *maxBytes == 0 {
		return fmt.Errorf("--max-bytes 0: must be at least 4")
	}
	if err := cfg.Validate(); err != nil {
		return err
	}
	env, err := experiment.OpenStream(experiment.AdapterSelect{Impl: *impl, Backend: *backend, Index: *adapter, Name: *adapterName}, true)
	if err != nil {
		return failed(err)
	}
	defer env.Close()
	env.Progress = stderr
	a, err := env.Latency(cfg)
	if err != nil {
		return failed(err)
	}
	info := env.Device.Info
	if *format == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(report.LatencyFile{Tool: versionString(), Adapter: info.Name, Backend: info.Backend.String(), Latency: a})
	}
	writeLatencyText(stdout, fmt.Sprintf("%s (%s)", info.Name, info.Backend), a)
	return nil
}

func writeLatencyText(w io.Writer, adapter string, a *report.Anatomy) {
	writeWrapped(w, []string{fmt.Sprintf("latency on %s: %s", adapter, experiment.AnatomyLine(a))})
	report.WriteLatencyDetail(w, a)
}
