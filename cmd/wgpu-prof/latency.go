package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

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
  wgpu-prof latency --format json --max-bytes 4194304
  wgpu-prof latency --out latency-report`)
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
	o := outputFlags{format: format, out: f.str("out"), force: f.on("force")}
	if err := o.validateOut(); err != nil {
		return err
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
		// Before any measurement, as in every measuring command (an
		// adapter the flags cannot select, e.g. --backend metal on Linux).
		return err
	}
	defer env.Close()
	env.Progress = stderr
	a, err := latency.Measure(env, cfg)
	if err != nil {
		return failed(err)
	}
	info := env.Device.Info
	adapter := fmt.Sprintf("%s (%s)", info.Name, info.Backend)
	if format == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(report.LatencyFile{Tool: versionString(), Adapter: info.Name, Backend: info.Backend.String(), Latency: a}); err != nil {
			return failed(fmt.Errorf("stdout: %w", err))
		}
	} else {
		writeLatencyText(stdout, adapter, a)
	}
	if o.out == "" {
		return nil
	}
	// report.txt has the anatomy's line; latency.txt what stdout's text has.
	text := report.DirFile{Name: "latency.txt", Write: func(w io.Writer) error { writeLatencyText(w, adapter, a); return nil }}
	return failed(o.writeDir(latencyReport(env, a), text))
}

// latencyReport is the anatomy as a report (the one run carries), for
// --out: its header and the anatomy.
func latencyReport(e *env.Env, a *report.Anatomy) *report.Report {
	rep := e.NewReport(versionString())
	// The anatomy times whole calls by the host clock; the device was
	// opened without timestamps, which is no warning here.
	warnings := rep.Warnings[:0]
	for _, w := range rep.Warnings {
		if !strings.HasPrefix(w, "GPU timestamps unavailable") {
			warnings = append(warnings, w)
		}
	}
	rep.Warnings = warnings
	rep.Latency = a
	return rep
}

func writeLatencyText(w io.Writer, adapter string, a *report.Anatomy) {
	writeWrapped(w, []string{fmt.Sprintf("latency on %s: %s", adapter, latency.AnatomyLine(a))})
	report.WriteLatencyDetail(w, a)
}
