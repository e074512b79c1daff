package main

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/wgpu-prof/wgpu-prof/internal/experiment/ceilings"
	"github.com/wgpu-prof/wgpu-prof/internal/experiment/env"
	"github.com/wgpu-prof/wgpu-prof/internal/experiment/latency"
	"github.com/wgpu-prof/wgpu-prof/internal/report"
)

func runLatency(stdout, stderr io.Writer, args []string) error {
	f := newFlags("latency", stdout, stderr, "usage: wgpu-prof latency [flags]\n"+
		"The anatomy of one GPU call, apart from any kernel's work, each call made\n"+
		"as a lean application makes it (one submit, one wait) and verified: the round\n"+
		"trip of an empty call and of a tiny call (16-byte write, one dispatch of 64\n"+
		"invocations, 4-byte readback); the cost per dispatch with K = 1, 2, 4 … 64\n"+
		"dispatches per submit; readback and upload time against bytes (4 B up to\n"+
		"--max-bytes). Medians with their 95% CI, points interleaved round by round.",
		`  wgpu-prof latency
  wgpu-prof latency --format json --max-bytes 4194304`)
	if done, err := f.parse(args); done || err != nil {
		return err
	}
	if err := f.noArgs(); err != nil {
		return err
	}
	format, rounds, maxBytes := f.str("format"), f.integer("rounds"), f.unsigned("max-bytes")
	if format != "text" && format != "json" {
		return fmt.Errorf("--format %q: want text or json", format)
	}
	dev := readDevice(f)
	if dev.adapter < -1 {
		return fmt.Errorf("--adapter %d: an index from wgpu-prof devices (0, 1, …), or -1 for the best one", dev.adapter)
	}
	cfg := latency.Config{Rounds: rounds, MaxBytes: maxBytes}
	if rounds == 0 {
		return fmt.Errorf("--rounds 0: must be in 3..1000")
	}
	if maxBytes == 0 {
		return fmt.Errorf("--max-bytes 0: must be at least 4")
	}
	if err := cfg.Validate(); err != nil {
		return err
	}
	env, err := ceilings.OpenStream(env.AdapterSelect{Impl: dev.impl, Backend: dev.backend, Index: dev.adapter, Name: dev.adapterName}, true)
	if err != nil {
		return failed(err)
	}
	defer env.Close()
	env.Progress = stderr
	a, err := latency.Measure(env, cfg)
	if err != nil {
		return failed(err)
	}
	info := env.Device.Info
	if format == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(report.LatencyFile{Tool: versionString(), Adapter: info.Name, Backend: info.Backend.String(), Latency: a})
	}
	writeLatencyText(stdout, fmt.Sprintf("%s (%s)", info.Name, info.Backend), a)
	return nil
}

func writeLatencyText(w io.Writer, adapter string, a *report.Anatomy) {
	writeWrapped(w, []string{fmt.Sprintf("latency on %s: %s", adapter, latency.AnatomyLine(a))})
	report.WriteLatencyDetail(w, a)
}
