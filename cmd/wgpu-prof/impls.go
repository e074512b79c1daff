package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/wgpu-prof/wgpu-prof/internal/experiment"
	"github.com/wgpu-prof/wgpu-prof/internal/report"
)

// measureImpls runs the command through each WebGPU implementation in
// turn, on the same backend and adapter selection (each with its own
// ceilings and variant selection), and reports them side by side
// (experiment.MergeImpls). An implementation that cannot be opened, or
// whose run stops early, is reported beside the others and makes the exit
// status 1 (130 on an interrupt); a usage error stops everything.
func measureImpls(stdout, stderr io.Writer, o *outputFlags, dev deviceFlags, cfg experiment.RunConfig, h measureHooks) error {
	if strings.Contains(dev.backend, ",") {
		return fmt.Errorf("--impl %s with --backend %s: compare implementations on one backend, or backends through one implementation", dev.impl, dev.backend)
	}
	impls, err := experiment.ParseImplList(dev.impl)
	if err != nil {
		return err
	}
	var runs []experiment.BackendResult
	var files []report.DirFile
	var failures []string
	interrupted := false
	for _, impl := range impls {
		d := dev
		d.impl = impl
		rep, fs, err := measureOneBackend(stderr, d, cfg, o, h)
		if experiment.IsUsage(err) {
			return err
		}
		runs = append(runs, experiment.BackendResult{Label: impl, Report: rep, Err: err})
		for _, f := range fs {
			f.Name = impl + "-" + f.Name
			files = append(files, f)
		}
		if err != nil {
			failures = append(failures, fmt.Sprintf("%s: %v", impl, err))
		}
		if errors.Is(err, experiment.ErrInterrupted) {
			interrupted = true
			break
		}
	}
	rep := experiment.MergeImpls(runs)
	code := 1
	if interrupted {
		code = 130
	}
	if rep == nil {
		msg := "no implementation could be measured: " + strings.Join(failures, "; ")
		return exitError{code: code, msg: msg, err: errors.New(msg)}
	}
	if err := o.emit(stdout, rep, files...); err != nil {
		return failed(err)
	}
	if len(failures) > 0 {
		msg := "not every implementation was measured in full (the others are reported): " + strings.Join(failures, "; ")
		return exitError{code: code, msg: msg, err: errors.New(msg)}
	}
	return nil
}
