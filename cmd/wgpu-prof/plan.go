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
	"unicode/utf8"

	"github.com/wgpu-prof/wgpu-prof/internal/experiment"
	"github.com/wgpu-prof/wgpu-prof/internal/experiment/env"
	"github.com/wgpu-prof/wgpu-prof/internal/experiment/plan"
	"github.com/wgpu-prof/wgpu-prof/internal/report"
)

const planUsage = `usage: wgpu-prof plan --pprof APP.pprof --op 'REGEX=WORKLOAD[@MIXFILE][,calls=N][,bench=F][,vectors=F][,queries=F][,graph=F]'... [flags]
       wgpu-prof plan --pprof APP.pprof --suggest
Which operations of an application to port, and where. For each --op: its
share of the application's CPU time (the cumulative samples of the functions
REGEX matches, each sample once), its batch sizes (MIXFILE: one size per line
or 'size count' pairs, the counts being its calls during the profile; default:
the workload's size), the application's own time per call (its profile time
over its calls: the mix file's counts, calls=N or --calls) and at each size
where it was measured (the profile's samples labelled with their call's size,
--size-label; or bench=F, a 'go test -bench' output whose sub-benchmarks name
the size: /size=N, /n=N, /q=N; otherwise it is compared at its mean only), the
tool's CPU kernel and the GPU per call at those sizes, the GPU's in parts
(kernel time and its roofline bound, the launch tax of one call, the transfer
tax of its bytes) each with its 95% CI, three verdicts each naming its baseline
and crossover (GPU vs your code, host SIMD vs your code, GPU vs host SIMD), the
GPU verdict (port, port above n = X, do not port) naming the dominant cost, and
the largest win against your code (keep, use the host SIMD kernel, port to the
GPU, route by size). Then the program summary: the best plan, then time before
and after the GPU port, fraction and number of operations ported, the ported
code's speedup and the application's by Amdahl's law with its CI. The
CPU-vs-GPU models come from --report inside their measured range, measured on
this adapter otherwise.
--validate AFTER.pprof compares the predictions with a profile of the
application after the port, each operation like with like, flagging errors
above 30%: --ported says how each ran after it (REGEX=keep|simd|gpu|routed,
repeatable or comma-separated; a bare value for the operations not named,
else keep). One that stayed on the host (keep, simd) is compared on CPU time,
its samples in each profile (those REGEX matches: it may name the old and the
new function, 'main\.score$|hostsimd\.Cosine=simd'); one that ran on the GPU
(gpu, routed), whose time no CPU profile holds, on wall time, from its
benchmark before and after the port (--wall-before, --wall-after: 'go test
-bench' outputs; REGEX=gpu@NAME names its benchmark), and is not validated
without them.`

const planExamples = `  wgpu-prof plan --pprof cpu.pprof --op 'main\.similarity$=cosine-single@sizes.txt' --op 'main\.spread$=spread-uniform,calls=400'
  wgpu-prof plan --pprof cpu.pprof --op 'main\.score$=cosine-single@sizes.txt,bench=score-bench.txt'
  wgpu-prof plan --pprof cpu.pprof --suggest
  wgpu-prof plan --pprof before.pprof --op 'main\.similarity$=cosine-single@sizes.txt' --report plan.json --validate after.pprof --ported simd
  wgpu-prof plan --pprof before.pprof --op 'main\.similarity$=cosine-single@sizes.txt' --report plan.json --validate after.pprof --ported routed --wall-before before.txt --wall-after after.txt`

func runPlan(stdout, stderr io.Writer, args []string) error {
	f := newFlags("plan", stdout, stderr, planUsage, planExamples)
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
	if f.str("pprof") == "" {
		return fmt.Errorf("--pprof is required (the application's CPU profile)")
	}
	if f.on("suggest") {
		return planSuggest(stdout, f.str("pprof"))
	}
	if err := checkPlanFlags(f); err != nil {
		return err
	}
	p := planRun{f: f}
	if err := p.readOps(); err != nil {
		return err
	}
	if err := p.models(); err != nil {
		return err
	}
	rep, err := p.measure(stderr, &o)
	if err != nil {
		return err
	}
	lines, err := p.conclude(rep)
	if err != nil {
		return err
	}
	return failed(emitPlan(stdout, &o, rep, lines))
}

// checkPlanFlags checks plan's own flags (the profiles and --op are
// read by planRun).
func checkPlanFlags(f *cmdFlags) error {
	if len(f.list("op")) == 0 {
		return fmt.Errorf("--op is required: name at least one operation as REGEX=WORKLOAD (plan --suggest proposes some)")
	}
	if b := f.duration("search-budget"); b <= 0 {
		return fmt.Errorf("--search-budget %v: must be positive", b)
	}
	if c := f.integer64("calls"); c < 0 {
		return fmt.Errorf("--calls %d: must be ≥ 0 (0: unknown)", c)
	}
	if t := f.str("transfer"); t != plan.TransferOnce && t != plan.TransferPerCall {
		return fmt.Errorf("--transfer %q: want %q or %q", t, plan.TransferOnce, plan.TransferPerCall)
	}
	if m := f.float("min-speedup"); !(m > 0) || math.IsInf(m, 0) {
		return fmt.Errorf("--min-speedup %v: want a finite speedup > 0", m)
	}
	return checkValidateFlags(f)
}

// checkValidateFlags checks --validate's companions: --ported is given
// with it (and parses), --wall-before and --wall-after together and only
// with it.
func checkValidateFlags(f *cmdFlags) error {
	validate := f.str("validate") != ""
	for _, name := range []string{"ported", "wall-before", "wall-after"} {
		if f.changed(name) && !validate {
			return fmt.Errorf("--%s is for --validate AFTER.pprof (how the operations ran after the port)", name)
		}
	}
	if !validate {
		return nil
	}
	if len(f.list("ported")) == 0 {
		return fmt.Errorf("--validate needs --ported: how each operation ran after the port (REGEX=MODE, or one MODE for every operation; MODE: %s)",
			strings.Join(plan.PortedModes, ", "))
	}
	if _, err := plan.ParsePorted(f.list("ported")); err != nil {
		return err
	}
	if (f.str("wall-before") == "") != (f.str("wall-after") == "") {
		return fmt.Errorf("--wall-before and --wall-after go together: the operation's benchmark before and after the port")
	}
	return nil
}

// planRun is one plan in the making: its operations, their shares of the
// profile, the inputs of plan.Decide and which of them to measure.
type planRun struct {
	f          *cmdFlags
	ops        []plan.Op
	names      []string // the workloads measured with the command's data
	shares     []plan.ProfileShare
	total      int64
	unit       string
	ported     []plan.PortedOp // with --validate
	quickNotes []string        // GPU variants chosen the quick way
	in         plan.Input
	cfgs       []experiment.RunConfig
	measured   []int // the operations whose models are measured
	given      *report.Report
}

// readOps parses --op, finds each operation's share of the profile and,
// with --validate, how each ran after the port (--ported).
func (p *planRun) readOps() error {
	var res []*regexp.Regexp
	for _, s := range p.f.list("op") {
		op, err := plan.ParseOp(s)
		if err != nil {
			return err
		}
		if op.Calls == 0 && (op.Mix == nil || op.Mix.File == "") {
			op.Calls = p.f.integer64("calls")
		}
		if op.Precision == "" {
			op.Precision = p.f.str("precision")
		}
		p.ops, res = append(p.ops, op), append(res, op.Regex)
		if len(op.Files) == 0 && !slices.Contains(p.names, op.Workload) {
			p.names = append(p.names, op.Workload)
		}
	}
	if len(p.names) == 0 {
		p.names = []string{p.ops[0].Workload}
	}
	pprofPath := p.f.str("pprof")
	var err error
	if p.shares, p.total, p.unit, err = plan.ProfileSharesBy(pprofPath, res, p.f.str("size-label")); err != nil {
		return err
	}
	if err := plan.NoMatchError(pprofPath, res, p.shares); err != nil {
		return err
	}
	validate := p.f.str("validate")
	if validate == "" {
		return nil
	}
	if p.unit != "cpu/nanoseconds" {
		return &env.ParamError{Name: "validate", Value: validate, Limit: "the --pprof profile is not of CPU time (" + p.unit + "): its time before is unknown"}
	}
	specs, err := plan.ParsePorted(p.f.list("ported"))
	if err != nil {
		return err
	}
	p.ported, err = plan.AssignPorted(specs, p.ops, p.shares)
	return err
}

// models sets each operation's configuration, sizes and bytes per call,
// and takes its CPU-vs-GPU models from --report where they cover its
// sizes; the others are to be measured.
func (p *planRun) models() error {
	cfg, err := runConfig(p.f, strings.Join(p.names, ","))
	if err != nil {
		return err
	}
	// --quick: GPU variants from the nearest cached shape, else from
	// fewer configurations (experiment.SelectOptions).
	cfg.QuickVariants = p.f.on("quick")
	if path := p.f.str("report"); path != "" {
		if p.given, err = report.Read(path); err != nil {
			return fmt.Errorf("--report %s: %w", path, err)
		}
	}
	n := len(p.ops)
	p.in = plan.Input{Profile: p.f.str("pprof"), Ops: p.ops, Shares: p.shares, Total: p.total, Unit: p.unit,
		BreakEvens: make([]report.BreakEven, n), Kernels: make([]*report.BreakEven, n),
		Sizes: make([][]int, n), IO: make([]plan.CallIO, n),
		Transfer: p.f.str("transfer"), MinSpeedup: p.f.float("min-speedup"), SizeLabel: p.f.str("size-label")}
	p.cfgs = make([]experiment.RunConfig, n)
	for i, op := range p.ops {
		if p.cfgs[i], err = opConfig(cfg, op, p.f.changed); err != nil {
			return err
		}
		sz := []int{}
		if op.Mix != nil {
			sz = op.Mix.Sizes
		} else {
			n, err := plan.DefaultBatch(p.cfgs[i], op.Workload)
			if err != nil {
				return err
			}
			p.in.Sizes[i], sz = []int{n}, []int{n}
		}
		p.in.IO[i] = plan.CallIOFor(p.cfgs[i], op.Workload)
		be, ok := plan.BreakEvenOf(p.given, op.Workload, p.cfgs[i].Precision)
		if ok && plan.InRange(be, sz) && len(op.Files) == 0 {
			p.in.BreakEvens[i], p.in.Kernels[i] = be, plan.KernelBreakEvenOf(p.given, op.Workload, p.cfgs[i].Precision)
			continue
		}
		p.measured = append(p.measured, i)
	}
	if p.given != nil {
		p.in.Rows = p.given.Measurements
	}
	return nil
}

// measure opens the device where a model is to be measured or the GPU
// taxes are asked for, measures them and returns the report they went
// to (--report's, or a new one). Taxes alone go without where the device
// does not open.
func (p *planRun) measure(stderr io.Writer, o *outputFlags) (*report.Report, error) {
	taxes := !p.f.on("no-taxes")
	if len(p.measured) == 0 && !taxes {
		return p.given, nil
	}
	dev := readDevice(p.f)
	env, err := dev.open(stderr)
	switch {
	case err != nil && len(p.measured) > 0:
		return nil, err
	case err != nil:
		fmt.Fprintf(stderr, "plan: no GPU taxes (the device did not open: %v)\n", err)
		return p.given, nil
	}
	defer env.Close()
	n0 := 0
	if p.given != nil {
		n0 = len(p.given.Summary)
	}
	rep, err := measurePlan(env, o, stderr, p.given, &p.in, p.cfgs, p.measured, searchBudget(p.f), taxes, p.f.on("quick"))
	if err != nil {
		return nil, err
	}
	// The GPU variants --quick chose the quick way (their choices'
	// summary lines) are said first in the answer.
	for _, l := range rep.Summary[n0:] {
		if strings.Contains(l, "[--quick:") {
			p.quickNotes = append(p.quickNotes, l)
		}
	}
	return rep, nil
}

// conclude makes the plan into rep, validates it against --validate's
// profile and returns its lines, what the flags asked for first.
func (p *planRun) conclude(rep *report.Report) ([]string, error) {
	pl := plan.Decide(p.in)
	if validate := p.f.str("validate"); validate != "" {
		var err error
		in := plan.ValidateInput{Before: p.f.str("pprof"), After: validate, Ops: p.ops, Ported: p.ported,
			PortedText: strings.Join(p.f.list("ported"), ","), WallBefore: p.f.str("wall-before"), WallAfter: p.f.str("wall-after")}
		in.Threads = rep.Host.Cores // the threads its host SIMD kernel was timed on
		if pl.Validation, err = plan.Validate(pl, in); err != nil {
			return nil, err
		}
	}
	rep.Plan = &pl
	// What the flags asked for leads the answer block.
	if v := pl.Validation; v != nil {
		rep.AddAsked("--validate "+p.f.str("validate"), validationAnswer(v))
	}
	if len(p.quickNotes) > 0 {
		rep.AddAsked("--quick", strings.Join(p.quickNotes, "; "))
	}
	for _, name := range []string{"transfer", "min-speedup"} {
		if p.f.changed(name) {
			rep.AddAsked("--"+name+" "+p.f.Lookup(name).Value.String(), fmt.Sprintf("%d of %d operation(s) ported, application %.2f× (95%% CI %.2f … %.2f)",
				pl.Summary.NumberPorted, len(pl.Ops), pl.AppSpeedup, pl.Summary.AppSpeedup.Lo, pl.Summary.AppSpeedup.Hi))
		}
	}
	lines := plan.Lines(pl)
	rep.Summary = append(append([]string(nil), lines...), rep.Summary...)
	return lines, nil
}

// validationAnswer is the validation in one answer: the application's
// error where it was validated, and how many operations were validated
// and flagged.
func validationAnswer(v *report.PlanValidation) string {
	done, flagged := 0, 0
	for _, o := range v.Ops {
		if o.Basis != "" {
			done++
		}
		if o.Flagged {
			flagged++
		}
	}
	s := fmt.Sprintf("%d of %d operation(s) validated, %d flagged", done, len(v.Ops), flagged)
	if a := v.App; a != nil {
		s += fmt.Sprintf("; application predicted %.3g s, measured %.3g s of CPU time after the port: error %+.1f%%", a.Predicted, a.Measured, 100*a.Error)
	}
	return s
}

// measurePlan says how long it will take (plan.EstimatePlan), then
// measures, on env, the GPU taxes (when taxes) and the break-evens of the
// operations in measure into in, and returns the report they were added
// to (rep, or a new one).
func measurePlan(env *env.Env, o *outputFlags, stderr io.Writer, rep *report.Report, in *plan.Input, cfgs []experiment.RunConfig, measure []int, budget time.Duration, taxes, quick bool) (*report.Report, error) {
	if !o.quiet {
		est := plan.EstimatePlan(env, rep, in.Ops, cfgs, measure, budget, taxes, quick)
		fmt.Fprintln(stderr, strings.Join(stderrLines("wgpu-prof: ", est.Line()), "\n"))
	}
	prog := o.startProgress(stderr)
	defer prog.finish()
	env.Progress = progressWriter(prog)
	if rep == nil {
		rep = env.NewReport(versionString())
	}
	if taxes {
		t, err := plan.Taxes(env, plan.LatencyConfigFor(quick), rep).GPUTaxes()
		if err != nil {
			return nil, failed(err)
		}
		in.Taxes = &t
		withInt8 := slices.ContainsFunc(in.Ops, func(op plan.Op) bool { return op.Precision == "int8" })
		roof, err := plan.GPURoof(env, plan.RoofBytes, withInt8, quick, rep)
		if err != nil {
			return nil, failed(err)
		}
		in.GPURoof, in.GPUInt8GOPs = &roof, rep.Ceilings.GPU[report.Int8PeakKey]
	}
	for _, i := range measure {
		op := in.Ops[i]
		cfgs[i].Stop = env.Stopped
		be, err := plan.MeasureBreakEven(env, cfgs[i], op.Workload, op.Mix, budget, rep)
		if err != nil {
			return nil, failed(err)
		}
		in.BreakEvens[i], in.Kernels[i] = be, plan.KernelBreakEvenOf(rep, op.Workload, cfgs[i].Precision)
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
	if err := o.refuseEarlier(); err != nil {
		return fmt.Errorf("%w (the plan went to stdout; the folder was left as it was)", err)
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
func opConfig(cfg experiment.RunConfig, op plan.Op, changed func(string) bool) (experiment.RunConfig, error) {
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
	sug, err := plan.Suggest(path, 5)
	if err != nil {
		return err
	}
	top, err := plan.ProfileTop(path, 10)
	if err != nil {
		return err
	}
	var b strings.Builder
	if len(sug) == 0 {
		b.WriteString("no function's name says which workload it is; map one yourself with --op 'REGEX=WORKLOAD'\n")
	}
	// One --op per line, its note beside it where that fits report.MaxLine
	// and in comment lines under it otherwise.
	for _, s := range sug {
		op := fmt.Sprintf("--op '%s'", s.Op)
		note := fmt.Sprintf("%s, %.1f%% of CPU time: %s", s.Function, 100*s.Share, s.Why)
		if utf8.RuneCountInString(op)+6+utf8.RuneCountInString(note) <= report.MaxLine {
			fmt.Fprintf(&b, "%s    # %s\n", op, note)
			continue
		}
		b.WriteString(op + "\n")
		for _, l := range report.WrapBullet("", note, report.MaxLine-6) {
			b.WriteString("    # " + l + "\n")
		}
	}
	if len(sug) > 0 {
		b.WriteString("# each --op may add @MIXFILE or ,calls=N, for the operation's own time per call\n")
	}
	b.WriteString("top functions (cumulative CPU time):\n")
	for _, f := range top {
		fmt.Fprintf(&b, "  %5.1f%%  %s\n", 100*f.Share, f.Name)
	}
	_, err = io.WriteString(stdout, b.String())
	return err
}
