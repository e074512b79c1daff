package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/wgpu-prof/wgpu-prof/internal/experiment"
	"github.com/wgpu-prof/wgpu-prof/internal/experiment/env"
	"github.com/wgpu-prof/wgpu-prof/internal/experiment/sidebyside"
	"github.com/wgpu-prof/wgpu-prof/internal/experiment/sweeps"
	"github.com/wgpu-prof/wgpu-prof/internal/report"
)

// measurer is what a measuring command adds to measureCommand: its
// measurement into the report. A measurer may also be a workloadLister,
// a readyChecker, an openHook, a fileLister or a multiDevice.
type measurer interface {
	measure(e *env.Env, cfg experiment.RunConfig, rep *report.Report) error
}

// workloadLister gives the workload list to measure for --workloads (a
// command whose "all" is a list of its own).
type workloadLister interface{ workloads(given string) string }

// readyChecker checks the parsed flags before the device opens.
type readyChecker interface{ ready(o *outputFlags) error }

// openHook runs once the device is open.
type openHook interface{ opened(e *env.Env) }

// fileLister gives extra files for --out (asked for once measure
// returned, so they can depend on what it measured).
type fileLister interface {
	files(e *env.Env) []report.DirFile
}

// multiDevice marks a command that takes several backends or
// implementations (--backend vulkan,gl), measures on each in turn and
// reports them side by side.
type multiDevice interface{ several() }

// takesSeveral says whether m is a multiDevice.
func takesSeveral(m measurer) bool {
	_, ok := m.(multiDevice)
	return ok
}

// measureCommand is the shared shape of run, sweep, experiment,
// breakeven and hybrid: the command's flags (commandFlags[name]), an open
// device, one experiment call, the report. A command that takes --kernel
// K (required) measures that one workload.
func measureCommand(stdout, stderr io.Writer, args []string, name, usage, examples string, extra func(f *cmdFlags) measurer) error {
	f := newFlags(name, stdout, stderr, usage, examples)
	h := extra(f)
	if done, err := f.parse(args); done || err != nil {
		return err
	}
	if err := f.noArgs(); err != nil {
		return err
	}
	o := readOutput(f)
	if err := o.validate(); err != nil {
		return err
	}
	if r, ok := h.(readyChecker); ok {
		if err := r.ready(&o); err != nil {
			return err
		}
	}
	workloads, err := workloadsOf(f, h)
	if err != nil {
		return err
	}
	cfg, err := runConfig(f, workloads)
	if err != nil {
		return err
	}
	return measureDevices(stdout, stderr, name, &o, readDevice(f), cfg, h)
}

// workloadsOf is the workloads a measuring command measures: --kernel
// (required where the command takes it) or --workloads.
func workloadsOf(f *cmdFlags, h measurer) (string, error) {
	if f.takes("kernel") {
		k := f.str("kernel")
		if k == "" {
			return "", fmt.Errorf("--kernel is required (one of %s)", joinNames(experiment.AllWorkloads()))
		}
		return k, nil
	}
	w := f.str("workloads")
	if l, ok := h.(workloadLister); ok {
		w = l.workloads(w)
	}
	return w, nil
}

// measureDevices measures on the device dev names, or on each of several
// implementations or backends where the command takes several.
func measureDevices(stdout, stderr io.Writer, name string, o *outputFlags, dev deviceFlags, cfg experiment.RunConfig, h measurer) error {
	if strings.Contains(dev.impl, ",") {
		if !takesSeveral(h) {
			return fmt.Errorf("--impl %q: %s measures through one implementation (run takes several, e.g. --impl wgpu-native,dawn)", dev.impl, name)
		}
		return measureImpls(stdout, stderr, o, dev, cfg, h)
	}
	if backends := strings.Split(dev.backend, ","); len(backends) > 1 {
		if !takesSeveral(h) {
			return fmt.Errorf("--backend %q: %s measures on one backend (run takes several, e.g. --backend vulkan,gl)", dev.backend, name)
		}
		return measureBackends(stdout, stderr, o, dev, cfg, backends, h)
	}
	rep, files, err := measureOneBackend(stderr, dev, cfg, o, h)
	if rep == nil {
		return err
	}
	if err != nil {
		return reportPartial(stdout, o, rep, err, files...)
	}
	return failed(o.emit(stdout, rep, files...))
}

// measureBackends runs the command on each backend in turn (each with its
// own adapter, ceilings and variant selection) and reports them side by
// side (sidebyside.MergeBackends). A backend with no adapter here, or whose
// run stops early, is reported as such beside the others and makes the
// exit status 1 (130 on an interrupt, which also skips the backends not
// yet run); a usage error stops everything at once.
func measureBackends(stdout, stderr io.Writer, o *outputFlags, dev deviceFlags, cfg experiment.RunConfig, backends []string, h measurer) error {
	if dev.adapter >= 0 {
		return fmt.Errorf("--adapter %d with --backend %s: an index names an adapter of one backend; use --adapter-name or one backend", dev.adapter, dev.backend)
	}
	backends, err := sidebyside.ParseBackendList(dev.backend)
	if err != nil {
		return err
	}
	return measureEach(stdout, stderr, o, dev, cfg, h, backends, "backend",
		func(d *deviceFlags, b string) { d.backend = b }, sidebyside.MergeBackends)
}

// measureEach runs the command once per label (a backend or an
// implementation, set on a copy of dev by set), names each run's files
// after its label and reports the runs side by side (merge). A run that
// fails is reported beside the others and makes the exit status 1 (130
// on an interrupt, which also skips the labels not yet run); a usage
// error stops everything at once. what names a label in the messages.
func measureEach(stdout, stderr io.Writer, o *outputFlags, dev deviceFlags, cfg experiment.RunConfig, h measurer,
	labels []string, what string, set func(*deviceFlags, string), merge func([]sidebyside.BackendResult) *report.Report) error {
	var runs []sidebyside.BackendResult
	var files []report.DirFile
	var failures []string
	interrupted := false
	for _, l := range labels {
		d := dev
		set(&d, l)
		rep, fs, err := measureOneBackend(stderr, d, cfg, o, h)
		if env.IsUsage(err) {
			return err
		}
		runs = append(runs, sidebyside.BackendResult{Label: l, Report: rep, Err: err})
		for _, f := range fs {
			f.Name = l + "-" + f.Name
			files = append(files, f)
		}
		if err != nil {
			failures = append(failures, fmt.Sprintf("%s: %v", l, err))
		}
		if errors.Is(err, env.ErrInterrupted) {
			interrupted = true
			break
		}
	}
	rep := merge(runs)
	code := 1
	if interrupted {
		code = 130
	}
	if rep == nil {
		msg := "no " + what + " could be measured: " + strings.Join(failures, "; ")
		return exitError{code: code, msg: msg, err: errors.New(msg)}
	}
	if err := o.emit(stdout, rep, files...); err != nil {
		return failed(err)
	}
	if len(failures) > 0 {
		msg := "not every " + what + " was measured in full (the others are reported): " + strings.Join(failures, "; ")
		return exitError{code: code, msg: msg, err: errors.New(msg)}
	}
	return nil
}

// measureOneBackend opens dev's adapter, validates cfg against it and runs
// the command into a fresh report; the report is nil when the adapter
// could not be opened or cfg does not fit it.
func measureOneBackend(stderr io.Writer, dev deviceFlags, cfg experiment.RunConfig, o *outputFlags, h measurer) (*report.Report, []report.DirFile, error) {
	env, err := dev.open(stderr)
	if err != nil {
		return nil, nil, err
	}
	defer env.Close()
	prog := o.startProgress(stderr)
	env.Progress = progressWriter(prog)
	if oh, ok := h.(openHook); ok {
		oh.opened(env)
	}
	// One validation pass (sizes against each other, the host's memory and
	// this adapter's limits) before the first measurement of any command.
	check := cfg
	check.Defaults()
	if _, err := check.Validate(env.Device); err != nil {
		prog.finish()
		return nil, nil, err
	}
	defer stopOnSignal(stderr, env)()
	if testHookOpened != nil {
		testHookOpened(env)
	}
	rep := env.NewReport(versionString())
	var dataLines []string
	rep.Data, dataLines = cfg.DataFiles()
	rep.Summary = append(rep.Summary, dataLines...)
	rep.Warnings = append(rep.Warnings, cfg.DataWarnings()...)
	cfg.Stop = env.Stopped // preparing the data stops on an interrupt too
	err = asInterrupted(h.measure(env, cfg, rep))
	prog.finish()
	experiment.Conclude(rep)
	var files []report.DirFile
	if fl, ok := h.(fileLister); ok {
		files = fl.files(env)
	}
	return rep, files, err
}

// testHookOpened, set by tests, sees the environment once it is open.
var testHookOpened func(env *env.Env)

// reportPartial handles a measurement that failed part way (a device
// lost, a GPU that did not finish, an interrupt): a usage error is
// returned as it is; otherwise the rows finished so far are reported,
// marked incomplete, and the run exits 1 with the reason.
func reportPartial(stdout io.Writer, o *outputFlags, rep *report.Report, runErr error, extra ...report.DirFile) error {
	if env.IsUsage(runErr) {
		return runErr
	}
	code := 1
	if errors.Is(runErr, env.ErrInterrupted) {
		code = 130
	}
	if !hasResults(rep) {
		return exitError{code: code, msg: runErr.Error(), err: runErr}
	}
	rep.Incomplete = fmt.Sprintf("the run stopped early (%v); the %d rows here are those finished before it", runErr, len(rep.Measurements))
	rep.Warnings = append(rep.Warnings, report.IncompleteMark+": "+rep.Incomplete)
	if err := o.emit(stdout, rep, extra...); err != nil {
		return failed(fmt.Errorf("%w; and writing the finished rows: %v", runErr, err))
	}
	err := fmt.Errorf("the run stopped early, %d finished rows reported: %w", len(rep.Measurements), runErr)
	return exitError{code: code, msg: err.Error(), err: err}
}

// hasResults reports whether rep holds anything measured: rows, or the
// ceilings and the staircase measured before the first row, which a run
// stopped during them still reports (TestInterruptDuringCeilingsReports).
func hasResults(rep *report.Report) bool {
	return len(rep.Measurements) > 0 || len(rep.Ceilings.CPU) > 0 || len(rep.Ceilings.GPU) > 0 ||
		rep.Staircase != nil || len(rep.BreakEvens) > 0 || len(rep.Sweeps) > 0
}

// stopOnSignal makes SIGINT and SIGTERM stop the run cleanly: the
// measurement in progress ends, the rows finished so far are reported
// (marked INCOMPLETE) and the exit status is 130; a second signal quits at
// once. It returns the function that stops listening.
func stopOnSignal(stderr io.Writer, env *env.Env) func() {
	return onInterrupt(stderr, env.Interrupt)
}

// onInterrupt calls interrupt on the first SIGINT or SIGTERM (the command
// then ends its measurement and reports what finished, marked INCOMPLETE);
// a second signal quits at once with status 130. It returns the function
// that stops listening.
func onInterrupt(stderr io.Writer, interrupt func()) func() {
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		if _, ok := <-sigs; !ok {
			return
		}
		fmt.Fprintln(stderr, "wgpu-prof: interrupted: stopping after the current measurement (again to quit at once)")
		interrupt()
		if _, ok := <-sigs; ok {
			os.Exit(130)
		}
	}()
	return func() {
		signal.Stop(sigs)
		close(sigs)
	}
}

const sweepExamples = `  wgpu-prof sweep workgroup --kernel cosine-single --quick --sizes 32,64,128,256
  wgpu-prof sweep tile --kernel cosine-batch --variant tiled --tiles 16,32,64 --out sweep --plot
  wgpu-prof sweep variant --kernel cosine-batch --quick`

// sweepUsage is each sweep's usage.
var sweepUsage = map[string]string{
	"workgroup": "usage: wgpu-prof sweep workgroup --kernel K [--sizes 32,64,128,256,512]\n" +
		"Times the GPU kernel at each workgroup size (results verified); sizes the adapter\n" +
		"rejects are listed with the reason.",
	"tile": "usage: wgpu-prof sweep tile --kernel cosine-batch [--tiles 16,32,64,128]\n" +
		"Times the tiled batch kernel at each tile size (its workgroup is (tile/4)² threads,\n" +
		"so tile and workgroup move jointly); tiles the adapter rejects are listed with the reason.",
	"variant": "usage: wgpu-prof sweep variant --kernel K [--wg N] [--tile T]\n" +
		"Times every GPU design of the kernel side by side at its default size (each verified\n" +
		"against the reference; a design that fails is listed, never timed) and names the fastest.",
}

func runSweep(stdout, stderr io.Writer, args []string) error {
	if len(args) > 0 && isHelp(args[0]) {
		return writeFamilyHelp(stdout, "sweep", []string{"workgroup", "tile", "variant"},
			"usage: wgpu-prof sweep workgroup|tile|variant --kernel K [flags]\n"+
				"workgroup: times the GPU kernel at each --sizes workgroup size; tile: times the\n"+
				"tiled batch kernel at each --tiles tile size; variant: times every GPU design of\n"+
				"the kernel. Every result is verified before it is timed; configurations the\n"+
				"adapter rejects are listed with the reason. Each takes the flags of its own\n"+
				"section below and the shared ones.", sweepExamples)
	}
	if len(args) == 0 || sweepUsage[args[0]] == "" {
		return fmt.Errorf("sweep: say which: wgpu-prof sweep workgroup|tile|variant --kernel K")
	}
	kind := args[0]
	return measureCommand(stdout, stderr, args[1:], "sweep "+kind, sweepUsage[kind], sweepExamples, func(f *cmdFlags) measurer { return &sweepMeasurer{f: f, kind: kind} })
}

// writeFamilyHelp is the help of a command with subcommands (sweep,
// experiment): usage, each subcommand's own flags, the shared groups once
// and the examples.
func writeFamilyHelp(stdout io.Writer, family string, subs []string, usage, examples string) error {
	var own, shared []helpSection
	seen := map[string]bool{}
	for _, sub := range subs {
		secs := newFlags(family+" "+sub, stdout, io.Discard, "", "").sections()
		secs[0].title = family + " " + sub
		own = append(own, secs[0])
		for _, s := range secs[1:] {
			if !seen[s.title] {
				seen[s.title] = true
				shared = append(shared, s)
			}
		}
	}
	writeHelp(stdout, usage, examples, append(own, shared...))
	return nil
}

// sweepMeasurer runs the sweep of kind (workgroup, tile or variant).
type sweepMeasurer struct {
	f      *cmdFlags
	kind   string
	values []int
}

func (m *sweepMeasurer) ready(*outputFlags) error {
	if m.kind == "variant" {
		return nil
	}
	flag := map[string]string{"workgroup": "sizes", "tile": "tiles"}[m.kind]
	var err error
	m.values, err = parseInts("--"+flag, m.f.str(flag))
	if err == nil && len(m.values) == 0 {
		err = fmt.Errorf("sweep %s: no values to sweep", m.kind)
	}
	return err
}

func (m *sweepMeasurer) measure(e *env.Env, cfg experiment.RunConfig, rep *report.Report) error {
	if m.kind == "variant" {
		return sweeps.Variants(e, cfg.Workloads[0], cfg, rep)
	}
	cfg.Variant, cfg.Retune = m.f.str("variant"), m.f.on("retune")
	if m.kind == "tile" {
		return sweeps.Sweep(e, cfg.Workloads[0], cfg, nil, m.values, rep)
	}
	return sweeps.Sweep(e, cfg.Workloads[0], cfg, m.values, nil, rep)
}

const experimentExamples = `  wgpu-prof experiment memory-compute --kernel cosine-single --quick
  wgpu-prof experiment memory-compute --kernel hnsw --q 16 --c 64 --format json`

const memComputeUsage = "usage: wgpu-prof experiment memory-compute --kernel cosine-single [flags]\n" +
	"Runs three shaders over the same data: A reads every input with minimal work, B does\n" +
	"the arithmetic with no global reads, C is the full kernel; classifies the kernel as\n" +
	"memory-bound (A≈C), compute-bound (B≈C), no-overlap (A+B≈C) or mixed."

func runExperiment(stdout, stderr io.Writer, args []string) error {
	if len(args) > 0 && isHelp(args[0]) {
		return writeFamilyHelp(stdout, "experiment", []string{"memory-compute", "quantization"},
			"usage: wgpu-prof experiment memory-compute|quantization [flags]\n"+
				"memory-compute: memory-only, compute-only and full shaders of one kernel, classified;\n"+
				"quantization: stored vectors in f32, f16 and int8, timed and their recall measured.\n"+
				"'wgpu-prof experiment memory-compute --help' (or quantization) says more.",
			experimentExamples+"\n"+quantizationExamples)
	}
	if len(args) > 0 && args[0] == "quantization" {
		return runQuantization(stdout, stderr, args[1:])
	}
	if len(args) == 0 || args[0] != "memory-compute" {
		return fmt.Errorf("experiment: want memory-compute or quantization: wgpu-prof experiment memory-compute --kernel K, wgpu-prof experiment quantization")
	}
	return measureCommand(stdout, stderr, args[1:], "experiment memory-compute", memComputeUsage, experimentExamples, func(f *cmdFlags) measurer {
		return memComputeMeasurer{f}
	})
}

// memComputeMeasurer runs the memory-vs-compute experiment.
type memComputeMeasurer struct{ f *cmdFlags }

func (m memComputeMeasurer) measure(e *env.Env, cfg experiment.RunConfig, rep *report.Report) error {
	cfg.Variant, cfg.Retune = m.f.str("variant"), m.f.on("retune")
	return sweeps.MemCompute(e, cfg.Workloads[0], cfg, rep)
}

// asInterrupted turns a phase's ErrStopped (a host measurement, a data
// preparation) into env.ErrInterrupted.
var asInterrupted = env.Stopped
