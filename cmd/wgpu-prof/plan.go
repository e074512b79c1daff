package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/wgpu-prof/wgpu-prof/internal/experiment"
	"github.com/wgpu-prof/wgpu-prof/internal/report"
)

const planUsage = `usage: wgpu-prof plan --pprof APP.pprof --op 'REGEX=WORKLOAD[@MIXFILE][,calls=N][,vectors=F][,queries=F][,graph=F]'... [flags]
       wgpu-prof plan --pprof APP.pprof --suggest
Which operations of an application to port, and where. For each --op: its
share of the application's CPU time (the cumulative samples of the functions
REGEX matches, each sample once), its batch sizes (MIXFILE: one size per line
or 'size count' pairs, the counts being its calls during the profile; default:
the workload's size), the application's own time per call (its profile time
over its calls: the mix file's counts, calls=N or --calls), the tool's CPU
kernel and the GPU per call at those sizes, the GPU's in parts (kernel time
and its roofline bound, the launch tax of one call, the transfer tax of its
bytes) each with its 95% CI, the verdict (port, port above n = X, do not port)
naming the dominant cost, and the largest win (keep, use the host SIMD kernel,
port to the GPU, route by size). Then the program summary: time before and
after, fraction and number of operations ported, the ported code's speedup and
the application's by Amdahl's law with its CI. The CPU-vs-GPU models come from
--report inside their measured range, measured on this adapter otherwise.
--validate AFTER.pprof compares the predictions with a profile of the
application after the port, flagging errors above 30%.`

const planExamples = `  wgpu-prof plan --pprof cpu.pprof --op 'main\.similarity$=cosine-single@sizes.txt' --op 'main\.spread$=spread-uniform,calls=400'
  wgpu-prof plan --pprof cpu.pprof --suggest
  wgpu-prof plan --pprof before.pprof --op 'main\.similarity$=cosine-single@sizes.txt' --report plan.json --validate after.pprof --ported gpu`

func runPlan(stdout, stderr io.Writer, args []string) error {
	fs := pflag.NewFlagSet("plan", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	var o outputFlags
	var dev deviceFlags
	var suite suiteFlags
	sizes, devg, outg := newGroup("sizes of the measured workloads"), newGroup("device and measurement"), newGroup("output")
	suite.register(sizes.fs)
	dev.register(devg.fs)
	o.register(outg.fs, false)
	pprofPath := fs.String("pprof", "", "the application's CPU profile (pprof format: Go's runtime/pprof, or any writer of it)")
	ops := fs.StringArray("op", nil, "an operation: REGEX=WORKLOAD[@MIXFILE][,calls=N][,precision=P][,vectors=FILE][,queries=FILE][,graph=FILE] (REGEX over the profile's function names; WORKLOAD: "+joinNames(experiment.AllWorkloads())+"; the files replace the command's for this operation); repeat per operation")
	reportPath := fs.String("report", "", "a run or breakeven report (JSON; plan --out writes one as report.json) whose CPU-vs-GPU models give the times per call (default: measure them)")
	budget := fs.Duration("search-budget", experiment.DefaultSearchBudget, "time budget of each crossover search measured (20s with --quick)")
	calls := fs.Int64("calls", 0, "the calls of each operation during the profile, where its --op gives no calls=N and no mix file (0: unknown)")
	transfer := fs.String("transfer", experiment.TransferOnce, "the GPU's data: 'once' (resident: uploaded once, each call moves its queries and results) or 'per-call' (uploaded with every call)")
	minSpeedup := fs.Float64("min-speedup", 1, "the least speedup on an operation's calls for which it is ported")
	suggest := fs.Bool("suggest", false, "propose --op mappings for the profile's top functions from their names, and exit")
	validate := fs.String("validate", "", "a profile of the application after the port (same work): compare the predicted and measured times")
	portedAs := fs.String("ported", experiment.PortedRouted, "with --validate: how the ported operations ran: 'routed' (each call where the plan routes it) or 'gpu' (every call on the GPU)")
	noTaxes := fs.Bool("no-taxes", false, "do not measure the GPU's launch and transfer taxes (no device is opened when --report holds every model)")
	setHelp(fs, stdout, planUsage, planExamples, sizes, devg, outg)
	if done, err := parseFlags(fs, args); done || err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("plan: unexpected argument(s) %q (every input is a --flag)", fs.Args())
	}
	if err := o.validate(); err != nil {
		return err
	}
	if *pprofPath == "" {
		return fmt.Errorf("--pprof is required (the application's CPU profile)")
	}
	if *suggest {
		return planSuggest(stdout, *pprofPath)
	}
	if len(*ops) == 0 {
		return fmt.Errorf("--op is required: name at least one operation as REGEX=WORKLOAD (plan --suggest proposes some)")
	}
	if *budget <= 0 {
		return fmt.Errorf("--search-budget %v: must be positive", *budget)
	}
	if *calls < 0 {
		return fmt.Errorf("--calls %d: must be ≥ 0 (0: unknown)", *calls)
	}
	if *transfer != experiment.TransferOnce && *transfer != experiment.TransferPerCall {
		return fmt.Errorf("--transfer %q: want %q or %q", *transfer, experiment.TransferOnce, experiment.TransferPerCall)
	}
	if !(*minSpeedup > 0) || math.IsInf(*minSpeedup, 0) {
		return fmt.Errorf("--min-speedup %v: want a finite speedup > 0", *minSpeedup)
	}
	if *portedAs != experiment.PortedRouted && *portedAs != experiment.PortedGPU {
		return fmt.Errorf("--ported %q: want %q or %q", *portedAs, experiment.PortedRouted, experiment.PortedGPU)
	}
	var pops []experiment.PlanOp
	var res []*regexp.Regexp
	var names []string
	for _, s := range *ops {
		op, err := experiment.ParsePlanOp(s)
		if err != nil {
			return err
		}
		if op.Calls == 0 && (op.Mix == nil || op.Mix.File == "") {
			op.Calls = *calls
		}
		if op.Precision == "" {
			op.Precision = suite.cfg.Precision
		}
		pops, res = append(pops, op), append(res, op.Regex)
		if len(op.Files) == 0 && !slices.Contains(names, op.Workload) {
			names = append(names, op.Workload)
		}
	}
	shares, total, unit, err := experiment.ProfileShares(*pprofPath, res)
	if err != nil {
		return err
	}
	if err := experiment.NoMatchError(*pprofPath, res, shares); err != nil {
		return err
	}
	var beforeWall, afterWall float64
	if *validate != "" {
		if unit != "cpu/nanoseconds" {
			return &experiment.ParamError{Name: "validate", Value: *validate, Limit: "the --pprof profile is not of CPU time (" + unit + "): its time before is unknown"}
		}
		beforeWall = float64(total) * 1e-9
		if afterWall, err = experiment.ProfileWall("validate", *validate); err != nil {
			return err
		}
	}
	if len(names) == 0 {
		names = []string{pops[0].Workload}
	}
	suite.workloads = strings.Join(names, ",")
	cfg, err := suite.config(fs, &dev)
	if err != nil {
		return err
	}
	var given *report.Report
	if *reportPath != "" {
		if given, err = report.Read(*reportPath); err != nil {
			return fmt.Errorf("--report %s: %w", *reportPath, err)
		}
	}
	in := experiment.PlanInput{Profile: *pprofPath, Ops: pops, Shares: shares, Total: total, Unit: unit,
		BreakEvens: make([]report.BreakEven, len(pops)), Kernels: make([]*report.BreakEven, len(pops)),
		Sizes: make([][]int, len(pops)), IO: make([]experiment.CallIO, len(pops)),
		Transfer: *transfer, MinSpeedup: *minSpeedup}
	cfgs := make([]experiment.RunConfig, len(pops))
	var measure []int
	for i, op := range pops {
		if cfgs[i], err = opConfig(cfg, op, fs.Changed); err != nil {
			return err
		}
		sz := []int{}
		if op.Mix != nil {
			sz = op.Mix.Sizes
		} else {
			n, err := experiment.DefaultBatch(cfgs[i], op.Workload)
			if err != nil {
				return err
			}
			in.Sizes[i], sz = []int{n}, []int{n}
		}
		in.IO[i] = experiment.PlanCallIO(cfgs[i], op.Workload)
		be, ok := experiment.PlanBreakEven(given, op.Workload, cfgs[i].Precision)
		if ok && experiment.InRange(be, sz) && len(op.Files) == 0 {
			in.BreakEvens[i], in.Kernels[i] = be, experiment.PlanKernelBreakEven(given, op.Workload, cfgs[i].Precision)
			continue
		}
		measure = append(measure, i)
	}
	rep := given
	if given != nil {
		in.Rows = given.Measurements
	}
	if len(measure) > 0 || !*noTaxes {
		env, err := dev.open(stderr)
		switch {
		case err != nil && len(measure) > 0:
			return err
		case err != nil:
			fmt.Fprintf(stderr, "plan: no GPU taxes (the device did not open: %v)\n", err)
		default:
			defer env.Close()
			if rep, err = measurePlan(env, &o, stderr, rep, &in, cfgs, measure, planBudget(fs, &suite, *budget), !*noTaxes, suite.quick); err != nil {
				return err
			}
		}
	}
	pl := experiment.Plan(in)
	if *validate != "" {
		if pl.Validation, err = experiment.ValidatePlan(pl, *validate, beforeWall, afterWall, *portedAs); err != nil {
			return err
		}
	}
	rep.Plan = &pl
	// What the flags asked for leads the answer block.
	if v := pl.Validation; v != nil {
		rep.AddAsked("--validate "+*validate, fmt.Sprintf("application predicted %.3g s, measured %.3g s after the port: error %+.1f%%", v.App.Predicted, v.App.Measured, 100*v.App.Error))
	}
	for _, f := range []string{"transfer", "min-speedup"} {
		if fs.Changed(f) {
			rep.AddAsked("--"+f+" "+fs.Lookup(f).Value.String(), fmt.Sprintf("%d of %d operation(s) ported, application %.2f× (95%% CI %.2f … %.2f)",
				pl.Summary.NumberPorted, len(pl.Ops), pl.AppSpeedup, pl.Summary.AppSpeedup.Lo, pl.Summary.AppSpeedup.Hi))
		}
	}
	lines := experiment.PlanLines(pl)
	rep.Summary = append(append([]string(nil), lines...), rep.Summary...)
	return failed(emitPlan(stdout, &o, rep, lines))
}

// planBudget is the crossover searches' budget (20s with --quick unless
// given).
func planBudget(fs *pflag.FlagSet, suite *suiteFlags, b time.Duration) time.Duration {
	if suite.quick && !fs.Changed("search-budget") {
		return quickSearchBudget
	}
	return b
}

// measurePlan measures, on env, the GPU taxes (when taxes) and the
// break-evens of the operations in measure into in, and returns the
// report they were added to (rep, or a new one).
func measurePlan(env *experiment.Env, o *outputFlags, stderr io.Writer, rep *report.Report, in *experiment.PlanInput, cfgs []experiment.RunConfig, measure []int, budget time.Duration, taxes, quick bool) (*report.Report, error) {
	prog := o.startProgress(stderr)
	defer prog.finish()
	env.Progress = progressWriter(prog)
	if rep == nil {
		rep = env.NewReport(versionString())
	}
	if taxes {
		t, err := env.Taxes(experiment.PlanLatencyConfig(quick), rep).GPUTaxes()
		if err != nil {
			return nil, failed(err)
		}
		in.Taxes = &t
		roof, err := env.GPURoof(64<<20, rep)
		if err != nil {
			return nil, failed(err)
		}
		in.GPURoof = &roof
	}
	for _, i := range measure {
		op := in.Ops[i]
		be, err := env.MeasurePlanBreakEven(cfgs[i], op.Workload, op.Mix, budget, rep)
		if err != nil {
			return nil, failed(err)
		}
		in.BreakEvens[i], in.Kernels[i] = be, experiment.PlanKernelBreakEven(rep, op.Workload, cfgs[i].Precision)
	}
	in.Rows = rep.Measurements
	return rep, nil
}

// emitPlan writes the plan to stdout (text: its lines, verdicts first;
// json: the plan with ops[] and app_speedup at the top; other formats:
// the whole report) and, with --out, plan.{txt,json} beside the report in
// every format.
func emitPlan(stdout io.Writer, o *outputFlags, rep *report.Report, lines []string) error {
	text := func(w io.Writer) error { return writeWrapped(w, append(askedLines(rep), lines...)) }
	js := func(w io.Writer) error {
		b, err := json.MarshalIndent(rep.Plan, "", "  ")
		if err != nil {
			return err
		}
		_, err = w.Write(append(b, '\n'))
		return err
	}
	var buf bytes.Buffer
	var err error
	switch o.format {
	case "text":
		err = text(&buf)
	case "json":
		err = js(&buf)
	default:
		err = writeFormat(&buf, o.format, rep, o.verbose)
	}
	if err != nil {
		return err
	}
	if _, err := stdout.Write(buf.Bytes()); err != nil {
		return fmt.Errorf("stdout: %w", err)
	}
	if o.out == "" {
		return nil
	}
	files := []report.DirFile{{Name: "plan.txt", Write: text}, {Name: "plan.json", Write: js}}
	for _, f := range []struct{ name, format string }{{"report.json", "json"}, {"report.txt", "text"}, {"report.html", "html"}} {
		f := f
		files = append(files, report.DirFile{Name: f.name, Write: func(w io.Writer) error { return writeFormat(w, f.format, rep, true) }})
	}
	if err := report.WriteDir(o.out, files); err != nil {
		return fmt.Errorf("--out %s: %w (the plan went to stdout; the folder was left as it was)", o.out, err)
	}
	return nil
}

// opConfig is cfg with op's own data files in place of the command's.
func opConfig(cfg experiment.RunConfig, op experiment.PlanOp, changed func(string) bool) (experiment.RunConfig, error) {
	c := cfg
	c.Workloads = []string{op.Workload}
	if op.Precision != "" {
		c.Precision = op.Precision
	}
	if len(op.Files) == 0 {
		return c, nil
	}
	for k, v := range op.Files {
		switch k {
		case "vectors":
			c.VectorsFile, c.Vectors = v, nil
		case "queries":
			c.QueriesFile, c.Queries = v, nil
		case "graph":
			c.GraphFile, c.Graph = v, nil
		}
	}
	if err := c.LoadData(changed); err != nil {
		return c, err
	}
	return c, nil
}

// planSuggest prints proposed --op mappings for the profile's top
// functions.
func planSuggest(stdout io.Writer, path string) error {
	sug, err := experiment.Suggest(path, 5)
	if err != nil {
		return err
	}
	top, err := experiment.ProfileTop(path, 10)
	if err != nil {
		return err
	}
	var b strings.Builder
	if len(sug) == 0 {
		b.WriteString("no function's name says which workload it is; map one yourself with --op 'REGEX=WORKLOAD'\n")
	}
	for _, s := range sug {
		fmt.Fprintf(&b, "--op '%s'    # %s, %.1f%% of CPU time: %s; add @MIXFILE or ,calls=N for its own time per call\n", s.Op, s.Function, 100*s.Share, s.Why)
	}
	b.WriteString("top functions (cumulative CPU time):\n")
	for _, f := range top {
		fmt.Fprintf(&b, "  %5.1f%%  %s\n", 100*f.Share, f.Name)
	}
	_, err = io.WriteString(stdout, b.String())
	return err
}
