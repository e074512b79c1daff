package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/spf13/pflag"

	"github.com/wgpu-prof/wgpu-prof/internal/experiment"
	"github.com/wgpu-prof/wgpu-prof/internal/report"
)

const planUsage = `usage: wgpu-prof plan --pprof APP.pprof --op 'REGEX=WORKLOAD[@MIXFILE]'... [--report run.json] [flags]
Which operations of an application to port to the GPU. For each --op: its share
of the application's CPU time (the cumulative samples of the functions REGEX
matches, each sample once), its batch sizes (MIXFILE: one size per line or
'size count' pairs; default: the workload's default size), the CPU and GPU time
per call from the break-even models of --report inside their measured range
(measured on this adapter otherwise), the speedup on those calls routed at the
crossover, and the verdict: port, port above n = X, or do not port with the
reason. Ranked by the share of application time saved; then the application's
speedup by Amdahl's law for each operation and for all ported together.`

const planExamples = `  wgpu-prof plan --pprof cpu.pprof --op 'main\.similarity$=cosine-single' --op 'main\.spread$=spread-uniform'
  wgpu-prof plan --pprof cpu.pprof --op 'recall\.score=cosine-single@sizes.txt' --report be.json --format json`

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
	ops := fs.StringArray("op", nil, "an operation: REGEX=WORKLOAD[@MIXFILE] (REGEX over the profile's function names; WORKLOAD: "+joinNames(experiment.AllWorkloads())+"); repeat per operation")
	reportPath := fs.String("report", "", "a run or breakeven report (JSON) whose CPU-vs-GPU models give the times per call (default: measure them)")
	budget := fs.Duration("search-budget", experiment.DefaultSearchBudget, "time budget of each crossover search measured (20s with --quick)")
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
	if len(*ops) == 0 {
		return fmt.Errorf("--op is required: name at least one operation as REGEX=WORKLOAD")
	}
	if *budget <= 0 {
		return fmt.Errorf("--search-budget %v: must be positive", *budget)
	}
	var pops []experiment.PlanOp
	var res []*regexp.Regexp
	var names []string
	for _, s := range *ops {
		op, err := experiment.ParsePlanOp(s)
		if err != nil {
			return err
		}
		pops, res = append(pops, op), append(res, op.Regex)
		if !strings.Contains(","+strings.Join(names, ",")+",", ","+op.Workload+",") {
			names = append(names, op.Workload)
		}
	}
	shares, total, unit, err := experiment.ProfileShares(*pprofPath, res)
	if err != nil {
		return err
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
		BreakEvens: make([]report.BreakEven, len(pops)), Sizes: make([][]int, len(pops))}
	var measure []int
	for i, op := range pops {
		sz := []int{}
		if op.Mix != nil {
			sz = op.Mix.Sizes
		} else {
			n, err := experiment.DefaultBatch(cfg, op.Workload)
			if err != nil {
				return err
			}
			in.Sizes[i], sz = []int{n}, []int{n}
		}
		be, ok := experiment.PlanBreakEven(given, op.Workload)
		if ok && experiment.InRange(be, sz) {
			in.BreakEvens[i] = be
			continue
		}
		measure = append(measure, i)
	}
	rep := given
	if len(measure) > 0 {
		env, err := dev.open(stderr)
		if err != nil {
			return err
		}
		defer env.Close()
		prog := o.startProgress(stderr)
		env.Progress = progressWriter(prog)
		rep = env.NewReport(versionString())
		sb := *budget
		if suite.quick && !fs.Changed("search-budget") {
			sb = quickSearchBudget
		}
		for _, i := range measure {
			if in.BreakEvens[i], err = env.MeasurePlanBreakEven(cfg, pops[i].Workload, pops[i].Mix, sb, rep); err != nil {
				prog.finish()
				return failed(err)
			}
		}
		prog.finish()
	}
	pl := experiment.Plan(in)
	rep.Plan = &pl
	lines := experiment.PlanLines(pl)
	rep.Summary = append(append([]string(nil), lines...), rep.Summary...)
	return failed(emitPlan(stdout, &o, rep, lines))
}

// emitPlan writes the plan to stdout (text: its lines, verdicts first;
// json: the plan with ops[] and app_speedup at the top; other formats:
// the whole report) and, with --out, plan.{txt,json} beside the report in
// every format.
func emitPlan(stdout io.Writer, o *outputFlags, rep *report.Report, lines []string) error {
	text := func(w io.Writer) error {
		_, err := io.WriteString(w, strings.Join(lines, "\n")+"\n")
		return err
	}
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
