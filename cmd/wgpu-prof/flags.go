package main

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/wgpu-prof/wgpu-prof/internal/experiment"
	"github.com/wgpu-prof/wgpu-prof/internal/experiment/ceilings"
	"github.com/wgpu-prof/wgpu-prof/internal/experiment/crossover"
	"github.com/wgpu-prof/wgpu-prof/internal/experiment/env"
	"github.com/wgpu-prof/wgpu-prof/internal/experiment/kernel"
	"github.com/wgpu-prof/wgpu-prof/internal/experiment/latency"
	"github.com/wgpu-prof/wgpu-prof/internal/experiment/plan"
	"github.com/wgpu-prof/wgpu-prof/internal/experiment/sweeps"
)

// The command line's flags come from one registry: flagSpecs (and the
// workload parameters) say what each name means, commandFlags which
// commands take it. A new flag is one flagSpec and its name in the lists
// of the commands that use it; TestFlagsOneMeaning walks every command's
// flag set.

// flagSpec is the one meaning of a flag name: every command that takes
// --name takes this spec, so its type, default and help are the same
// everywhere.
type flagSpec struct {
	name  string
	short string // a one-letter spelling ("" for none); never another flag's name
	// value is the default; its type is the flag's: string, int, int64,
	// uint64, float64, bool, time.Duration or []string (repeatable).
	value any
	help  string
}

// flagSpecs are the flags of every command but the workload parameters,
// which come from their declarations (experiment.Params).
var flagSpecs = []flagSpec{
	// What to measure.
	{name: "workloads", value: "all", help: "comma-separated workloads, or all (every workload the command applies to): " + joinNames(experiment.AllWorkloads())},
	{name: "kernel", value: "", help: "workload: " + joinNames(experiment.AllWorkloads())},
	{name: "batches", value: "", help: "break-even batch sizes, e.g. 1,4,16,64 (default: powers of 4 up to each workload's size)"},
	{name: "quick", value: false, help: "a shorter look: smaller sizes, 32 MiB ceiling buffers, a 250ms budget per measurement and 20s per crossover search"},
	{name: "variant", value: "", help: "GPU design to measure (see wgpu-prof workloads); default: the design run chooses on this adapter (autotune cache or a fresh selection)"},
	{name: "retune", value: false, help: "re-measure which GPU variant of each workload is fastest on this adapter instead of reading the cached choice"},
	{name: "search-budget", value: crossover.DefaultSearchBudget, help: "time budget of each crossover search (its first three sizes are always measured; 20s with --quick)"},
	{name: "sides", value: "", help: "the two sides to compare, e.g. cpu:threads=1,cpu:threads=2; sides: gpu, cpu, cpu:threads=N, cpu:level=L, gpu:wg=N, gpu:data=shipped|resident (default: breakeven cpu,gpu and cpu,gpu:data=shipped; hybrid cpu,gpu)"},
	{name: "batch-mix", value: "", help: "FILE of the batch sizes an application calls the operation with (one size per line, or 'size count' pairs): price the mix on one side only and routed at the measured crossover, with the saving's CI"},
	{name: "report", value: "", help: "a run or breakeven report (JSON; plan --out writes one as report.json) whose break-even models stand in for measuring them: plan's times per call, hybrid's two sides (default: measure them)"},

	// Device and measurement.
	{name: "impl", value: "", help: "WebGPU implementation: wgpu-native or dawn (default: $WGPU_PROF_IMPL, else wgpu-native); run also takes both, wgpu-native,dawn, and reports them side by side; devices also takes browser (a web browser's WebGPU, through a page wgpu-prof serves)"},
	{name: "backend", value: "any", help: "adapter backend: vulkan, metal, d3d12, gl or any (devices: list only its adapters); run also takes several, comma-separated (vulkan,gl), and reports them side by side"},
	{name: "adapter", value: -1, help: "adapter index among those of --backend (see wgpu-prof devices); -1: the best one"},
	{name: "adapter-name", value: "", help: "pick the adapter whose name contains this text"},
	{name: "budget", value: env.DefaultBudget, help: "time budget per measurement (at least 10 samples are always taken)"},
	{name: "target", value: 0.02, help: "stop repeating when the median's 95% CI is within ±target"},
	{name: "no-timestamps", value: false, help: "do not use GPU timestamp queries (host clock only)"},
	{name: "cpu-level", value: "", help: "host SIMD level: generic, avx2, avx512, neon (default: the best available)"},
	{name: "cpu-levels", value: "all", help: "host SIMD levels to measure, comma-separated: generic, avx2, avx512, neon, or all (every level available)"},
	{name: "threads", value: 0, help: "host worker threads (0: GOMAXPROCS; 1: single-core speed; at most 8 per logical CPU)"},
	{name: "cv-warn", value: 0.05, help: "flag a measurement whose coefficient of variation exceeds this (0.05: 5%)"},
	{name: "max-memory", value: "", help: "memory budget of the working sets, e.g. 1GiB or 512MiB (default: 25% of the memory available at start, at most 1 GiB with --quick)"},

	// The browser (--impl browser).
	{name: "open", value: "headless", help: "with --impl browser: headless (launch headless Chromium on the page; it is closed after) or none (print the page's address, with its one-time token, for a browser of your own, and wait for it)"},
	{name: "listen", value: "", help: "with --impl browser: the address the page server listens on (default: 127.0.0.1 on a free port); one off loopback lets other machines reach it, guarded only by the token, and is warned about"},
	{name: "open-timeout", value: 2 * time.Minute, help: "with --impl browser: how long to wait for the page to connect"},

	// Output.
	{name: "format", value: "text", help: "output format on stdout: text, json, csv, bench (Go benchmark format) or html (devices, latency: text or json)"},
	{name: "out", value: "", help: "also write report.{json,txt,csv,bench,html} (and plots) into this directory"},
	{name: "force", value: false, help: "with --out: write over the earlier report in that folder (without it, --out refuses a folder holding one)"},
	{name: "plot", value: false, help: "with --out: write PNG and SVG plots"},
	{name: "verbose", value: false, help: "text output: add the details (measured ceilings, fits, what was timed, every warning on its own line); report.txt under --out has the details, its warnings one line per kind"},
	{name: "quiet", value: false, help: "no progress on stderr (by default: a status line on a terminal, a line every 15 s otherwise)"},

	// run.
	{name: "trace", value: false, help: "with --out: write trace.json (Chrome trace of every GPU call; open in Perfetto)"},
	{name: "dump-shaders", value: false, help: "with --out: write shaders.txt, the code the WebGPU implementation compiled from every WGSL module (Dawn: each module's WGSL and Tint's output for the backend; wgpu-native cannot show naga's output, and the file says so); per implementation with --impl wgpu-native,dawn"},

	// sweep.
	{name: "sizes", value: "32,64,128,256,512", help: "workgroup sizes to sweep"},
	{name: "tiles", value: "16,32,64,128", help: "tile sizes to sweep"},

	// experiment quantization.
	{name: "min-recall", value: sweeps.DefaultMinRecall, help: "recall@k a precision must reach to be accepted (k: --k)"},

	// breakeven.
	{name: "amdahl", value: -1.0, help: "share (0..1) of an application's time this operation takes: print the end-to-end application speedup the measurement allows"},

	// hybrid.
	{name: "requests", value: 2000, help: "requests in a generated stream"},
	{name: "min", value: 0, help: "smallest size of a generated stream (both 0: the pilot's range, see above; 0: 1/16 of the measured crossover)"},
	{name: "max", value: 0, help: "largest size of a generated stream (both 0: the pilot's range; 0: 16× the measured crossover, at most the workload's size)"},
	{name: "sizes-file", value: "", help: "replay the sizes in this file (integers separated by spaces, commas or lines) instead"},
	{name: "fault", value: []string(nil), help: "inject a fault: a:slow=F@FROM-TO (side a F× slower for requests FROM..TO-1) or b:fail@FROM-TO; repeatable"},
	{name: "requests-csv", value: false, help: "with --out: also write requests.csv, every request of every replay and strategy (about 7 MB for the default stream)"},

	// plan.
	{name: "pprof", value: "", help: "the application's CPU profile (pprof format: Go's runtime/pprof, or any writer of it)"},
	{name: "op", value: []string(nil), help: "an operation: REGEX=WORKLOAD[@MIXFILE][,calls=N][,precision=P][,vectors=FILE][,queries=FILE][,graph=FILE] (REGEX over the profile's function names; WORKLOAD: " + joinNames(experiment.AllWorkloads()) + "; the files replace the command's for this operation); repeat per operation"},
	{name: "calls", value: int64(0), help: "the calls of each operation during the profile, where its --op gives no calls=N and no mix file (0: unknown)"},
	{name: "transfer", value: plan.TransferOnce, help: "the GPU's data: 'once' (resident: uploaded once, each call moves its queries and results) or 'per-call' (uploaded with every call)"},
	{name: "min-speedup", value: 1.0, help: "the least speedup on an operation's calls for which it is ported"},
	{name: "suggest", value: false, help: "propose --op mappings for the profile's top functions from their names, and exit"},
	{name: "validate", value: "", help: "a profile of the application after the port (same work): compare the predicted and measured times"},
	{name: "ported", value: []string(nil), help: "with --validate: how each operation ran after the port: REGEX=MODE (REGEX: the operation's --op expression, or one matching its functions; it picks the operation's samples in the after profile, so it may name the new function too) or a bare MODE for the operations not named (else keep); MODE: keep (its own code), simd (the host SIMD kernel), gpu (every call on the GPU), routed (routed by the plan); gpu@NAME, routed@NAME: its benchmark in the wall files; repeatable or comma-separated"},
	{name: "wall-before", value: "", help: "with --validate: a 'go test -bench' output of the application's benchmark of each GPU-ported (gpu, routed) operation before the port: their wall time, which no CPU profile holds (calls/op and gpu-calls/op, where reported, say what a route did)"},
	{name: "wall-after", value: "", help: "with --validate: the same benchmarks after the port (see --wall-before)"},
	{name: "size-label", value: plan.DefaultSizeLabel, help: "the pprof label key whose value is a call's size (pprof.Do(ctx, pprof.Labels(\"size\", strconv.Itoa(n)), ...)): the application's own CPU time per size, over the mix file's calls per size"},
	{name: "no-taxes", value: false, help: "do not measure the GPU's launch and transfer taxes (no device is opened when --report holds every model)"},

	// kernel.
	{name: "buffer", value: []string(nil), help: "a storage buffer: NAME=TYPE:COUNT[:INIT] (repeat for each)"},
	{name: "dispatch", value: "", help: "workgroup counts X[,Y[,Z]] (integer expressions of the shader's override constants allowed)"},
	{name: "entry", value: "", help: "the @compute entry point (default: the only one)"},
	{name: "const", value: []string(nil), help: "a pipeline-overridable constant: NAME=VALUE (repeat for each)"},
	{name: "bytes", value: 0.0, help: "bytes one dispatch moves (default: each buffer read once, read_write ones also written once)"},
	{name: "flops", value: 0.0, help: "floating-point operations of one dispatch (for GFLOP/s and the roofline)"},
	{name: "sweep", value: "", help: "sweep an override constant: NAME=v1,v2,..."},
	{name: "no-check", value: false, help: "skip the repeatability check (outputs that legitimately vary between runs); the report marks the result unverified"},
	{name: "cpu-twin", value: "", help: "compare with the CPU side of a built-in workload computing the same operation (" + joinNames(kernel.TwinWorkloads()) + "): the tool fills the kernel's buffers with the workload's inputs at each batch size N (dispatch expressions may use N), checks its output against the workload's reference, and reports the adaptive break-even"},
	{name: "loop-iterations", value: uint64(0), help: "the most loop iterations one invocation runs (each loop's iterations + 1); checked against the adapter's loop budget where it has one (lavapipe), without it a shader with loops there is reported unverified"},

	// host.
	{name: "n-cached", value: 2_000, help: "rows of the cache-resident cosine"},

	// stream: BabelStream's spellings where they collide with no other flag.
	{name: "side", value: "gpu", help: "where the kernels run: gpu (WGSL) or cpu (host SIMD kernels)"},
	{name: "arraysize", short: "s", value: ceilings.StreamDefaultArraySize, help: "elements per array (BabelStream's -s, --arraysize)"},
	{name: "numtimes", value: ceilings.StreamDefaultNumTimes, help: "runs of the five kernels, the first excluded (≥ 2; BabelStream's --numtimes)"},
	{name: "float", value: false, help: "float32 elements, the default (BabelStream's --float)"},
	{name: "double", value: false, help: "float64 elements (GPU only, where the adapter has shader-f64; BabelStream's --double)"},
	{name: "csv", value: false, help: "print BabelStream's CSV instead of the table"},

	// latency.
	{name: "rounds", value: 10, help: "interleaved rounds over every point (3..1000)"},
	{name: "max-bytes", value: uint64(latency.DefaultLatencyMaxBytes), help: "largest readback and upload measured, in bytes"},

	// compare.
	{name: "threshold", value: "5%", help: "a significant slowdown past this fraction is a regression (e.g. 5% or 0.05)"},
	{name: "across-backends", value: false, help: "the two reports ran on different backends or adapters: match rows by workload, side and params (each adapter picks its own GPU variant)"},
	{name: "allow-incomplete", value: false, help: "compare a report of an interrupted run (marked INCOMPLETE) instead of refusing it"},

	// workloads.
	{name: "has", value: "", help: "print only the names, one per line, of the workloads to which this applies: " + hasWorkgroup + ", " + hasTile + ", " + hasMemCompute + " or all"},
}

// paramSpecs are the workload parameters as flags: --NAME with the
// parameter's default and help.
func paramSpecs() []flagSpec {
	var out []flagSpec
	for _, p := range experiment.Params() {
		s := flagSpec{name: p.Name, help: p.Help}
		switch p.Kind {
		case experiment.StringParam, experiment.FileParam:
			s.value = p.Str
		case experiment.Uint64Param:
			s.value = p.U64
		default:
			s.value = p.Default
		}
		out = append(out, s)
	}
	return out
}

// paramNames are the workload parameters' flag names, in their order.
func paramNames() []string {
	var out []string
	for _, p := range experiment.Params() {
		out = append(out, p.Name)
	}
	return out
}

// registry is every flag's spec by name.
var registry = func() map[string]flagSpec {
	m := map[string]flagSpec{}
	for _, s := range append(slices.Clone(flagSpecs), paramSpecs()...) {
		if _, dup := m[s.name]; dup {
			panic("flag --" + s.name + " declared twice")
		}
		m[s.name] = s
	}
	return m
}()

// flagGroup is a titled list of flags several commands take; it orders
// the help.
type flagGroup struct {
	title string
	names []string
}

// The shared groups. A command takes a group whole or names the flags
// it takes one by one.
var (
	sizesGroup  = flagGroup{"sizes (every workload parameter)", append(paramNames(), "quick")}
	deviceGroup = flagGroup{"device and measurement", []string{"impl", "backend", "adapter", "adapter-name", "budget", "target", "no-timestamps", "cpu-level", "threads", "cv-warn", "max-memory"}}
	outputGroup = flagGroup{"output", []string{"format", "out", "force", "plot", "verbose", "quiet"}}
)

// withoutPlot is the output group less --plot (a command with no plots).
var outputNoPlot = flagGroup{outputGroup.title, []string{"format", "out", "force", "verbose", "quiet"}}

// sizesWithout is the sizes group less the parameters a command sets
// itself (a sweep's swept knob, the precisions quantization runs).
func sizesWithout(names ...string) flagGroup {
	g := flagGroup{title: sizesGroup.title}
	for _, n := range sizesGroup.names {
		if !slices.Contains(names, n) {
			g.names = append(g.names, n)
		}
	}
	return g
}

// own is a command's own flags (titled "flags" in its help).
func own(names ...string) flagGroup { return flagGroup{"flags", names} }

// commandFlags are the flags each command takes: its own, then the shared
// groups. A flag not listed here is refused by the command.
var commandFlags = map[string][]flagGroup{
	"run":                       {own("workloads", "batches", "trace", "dump-shaders", "retune"), sizesGroup, deviceGroup, outputGroup},
	"sweep workgroup":           {own("kernel", "sizes", "variant", "retune"), sizesWithout("wg"), deviceGroup, outputGroup},
	"sweep tile":                {own("kernel", "tiles", "variant", "retune"), sizesWithout("tile"), deviceGroup, outputGroup},
	"sweep variant":             {own("kernel"), sizesGroup, deviceGroup, outputGroup},
	"experiment memory-compute": {own("kernel", "variant", "retune"), sizesGroup, deviceGroup, outputGroup},
	"experiment quantization":   {own("workloads", "min-recall", "variant", "retune"), sizesWithout("precision"), deviceGroup, outputGroup},
	"breakeven":                 {own("kernel", "sides", "batches", "search-budget", "amdahl", "batch-mix", "retune"), sizesGroup, deviceGroup, outputGroup},
	"hybrid": {own("kernel", "sides", "report", "requests", "min", "max", "sizes-file", "fault", "batches", "search-budget", "requests-csv", "batch-mix", "retune"),
		sizesGroup, deviceGroup, outputGroup},
	"plan": {own("pprof", "op", "report", "batches", "search-budget", "calls", "transfer", "min-speedup", "suggest", "validate", "ported", "wall-before", "wall-after", "no-taxes", "size-label"),
		sizesGroup, deviceGroup, outputNoPlot},
	"kernel": {own("buffer", "dispatch", "entry", "const", "bytes", "flops", "sweep", "no-check", "seed", "cpu-twin", "search-budget", "loop-iterations", "quick", "dump-shaders"),
		deviceGroup, outputGroup},
	"host":      {own("cpu-levels", "d", "n", "n-cached", "q", "threads", "budget", "max-memory"), outputNoPlot},
	"stream":    {own("side", "arraysize", "numtimes", "float", "double", "csv", "threads", "cpu-level", "backend", "impl", "adapter", "adapter-name", "no-timestamps", "max-memory")},
	"latency":   {own("format", "out", "force", "rounds", "max-bytes", "backend", "impl", "adapter", "adapter-name")},
	"devices":   {own("format", "backend", "impl", "open", "listen", "open-timeout")},
	"compare":   {own("threshold", "across-backends", "allow-incomplete")},
	"workloads": {own("has")},
	"version":   {},
}

// takers are the commands that take --name, sorted.
func takers(name string) []string {
	var out []string
	for cmd, groups := range commandFlags {
		for _, g := range groups {
			if slices.Contains(g.names, name) {
				out = append(out, cmd)
				break
			}
		}
	}
	sort.Strings(out)
	return out
}

// cmdFlags is a command's flag set, built from the registry: exactly the
// flags commandFlags lists for it.
type cmdFlags struct {
	*pflag.FlagSet
	cmd    string
	groups []flagGroup
	// shared: reads of a shared group's reader (readDevice, readOutput,
	// runConfig), which read every flag of the group, taken or not.
	shared bool
}

// sharedReads is f for a reader of a shared group: a flag the command
// does not take reads as its registry default.
func (f *cmdFlags) sharedReads() *cmdFlags {
	g := *f
	g.shared = true
	return &g
}

// newFlags builds cmd's flag set; its help (on stdout, as asked-for
// help is no error) prints usage, the flags by group and the examples.
func newFlags(cmd string, stdout, stderr io.Writer, usage, examples string) *cmdFlags {
	groups, ok := commandFlags[cmd]
	if !ok {
		panic("no flags declared for command " + cmd)
	}
	fs := pflag.NewFlagSet(cmd, pflag.ContinueOnError)
	fs.SetOutput(stderr)
	f := &cmdFlags{FlagSet: fs, cmd: cmd, groups: groups}
	for _, g := range groups {
		for _, name := range g.names {
			if fs.Lookup(name) != nil {
				continue
			}
			define(fs, registry[name], name)
		}
	}
	fs.Usage = func() { writeHelp(stdout, usage, examples, f.sections()) }
	return f
}

// define adds spec to fs (name names a flag the registry lacks: a
// mistake in commandFlags, caught by every command's --help test).
func define(fs *pflag.FlagSet, s flagSpec, name string) {
	switch v := s.value.(type) {
	case string:
		fs.StringP(s.name, s.short, v, s.help)
	case int:
		fs.IntP(s.name, s.short, v, s.help)
	case int64:
		fs.Int64P(s.name, s.short, v, s.help)
	case uint64:
		fs.Uint64P(s.name, s.short, v, s.help)
	case float64:
		fs.Float64P(s.name, s.short, v, s.help)
	case bool:
		fs.BoolP(s.name, s.short, v, s.help)
	case time.Duration:
		fs.DurationP(s.name, s.short, v, s.help)
	case []string:
		fs.StringArrayP(s.name, s.short, v, s.help)
	default:
		panic(fmt.Sprintf("flag --%s: no spec of a known type in the registry (%T)", name, s.value))
	}
}

// helpSection is one titled block of a command's help.
type helpSection struct {
	title string
	fs    *pflag.FlagSet
}

// sections are f's flags by group, each flag in the first group that
// lists it.
func (f *cmdFlags) sections() []helpSection {
	seen := map[string]bool{}
	var out []helpSection
	for _, g := range f.groups {
		s := helpSection{title: g.title, fs: pflag.NewFlagSet(g.title, pflag.ContinueOnError)}
		for _, name := range g.names {
			if !seen[name] {
				seen[name] = true
				s.fs.AddFlag(f.Lookup(name))
			}
		}
		out = append(out, s)
	}
	return out
}

// testHookParse, set by tests, sees each command's flag set as it is
// parsed.
var testHookParse func(f *cmdFlags)

// testStrictFlags, set by tests, makes reading a flag the command does
// not take a panic (a command reading a flag it does not list).
var testStrictFlags bool

// lookup is --name of f's command; nil when the command does not take it.
func (f *cmdFlags) lookup(name string) *pflag.Flag {
	fl := f.Lookup(name)
	if fl == nil && testStrictFlags && !f.shared {
		panic(fmt.Sprintf("%s reads --%s, which it does not take", f.cmd, name))
	}
	return fl
}

// takes reports whether f's command takes --name.
func (f *cmdFlags) takes(name string) bool { return f.Lookup(name) != nil }

// changed reports whether --name was given.
func (f *cmdFlags) changed(name string) bool { return f.lookup(name) != nil && f.Changed(name) }

// value is --name's value, or its registry default where the command
// does not take it.
func value[T any](f *cmdFlags, name string) T {
	if fl := f.lookup(name); fl != nil {
		switch v := fl.Value.(type) {
		case pflag.SliceValue:
			var out any = v.GetSlice()
			return out.(T)
		}
		var out any
		var err error
		switch any(*new(T)).(type) {
		case string:
			out, err = f.GetString(name)
		case int:
			out, err = f.GetInt(name)
		case int64:
			out, err = f.GetInt64(name)
		case uint64:
			out, err = f.GetUint64(name)
		case float64:
			out, err = f.GetFloat64(name)
		case bool:
			out, err = f.GetBool(name)
		case time.Duration:
			out, err = f.GetDuration(name)
		}
		if err != nil {
			panic(fmt.Sprintf("--%s: %v", name, err))
		}
		return out.(T)
	}
	return registry[name].value.(T)
}

// The typed values of f's flags (value).
func (f *cmdFlags) str(name string) string             { return value[string](f, name) }
func (f *cmdFlags) integer(name string) int            { return value[int](f, name) }
func (f *cmdFlags) integer64(name string) int64        { return value[int64](f, name) }
func (f *cmdFlags) unsigned(name string) uint64        { return value[uint64](f, name) }
func (f *cmdFlags) float(name string) float64          { return value[float64](f, name) }
func (f *cmdFlags) on(name string) bool                { return value[bool](f, name) }
func (f *cmdFlags) duration(name string) time.Duration { return value[time.Duration](f, name) }
func (f *cmdFlags) list(name string) []string          { return value[[]string](f, name) }

// parse parses args; --help prints the help and reports done. A flag the
// command does not take is an error naming the commands that take it.
func (f *cmdFlags) parse(args []string) (done bool, err error) {
	if testHookParse != nil {
		testHookParse(f)
	}
	if err := f.Parse(args); err != nil {
		if err == pflag.ErrHelp {
			return true, nil
		}
		return false, f.parseError(err)
	}
	return false, checkBrowserImpl(f)
}

// parseError is a parse error of f: for a flag another command takes,
// which ones; for a name near one of f's, "did you mean"; and the
// pointer to --help.
func (f *cmdFlags) parseError(err error) error {
	msg := err.Error()
	var names []string
	f.VisitAll(func(fl *pflag.Flag) { names = append(names, fl.Name) })
	if s, ok := strings.CutPrefix(msg, "unknown shorthand flag: '"); ok && len(s) > 1 {
		// "unknown shorthand flag: 'n' in -n"
		name := s[:strings.IndexByte(s, '\'')]
		if t := takers(name); len(t) > 0 {
			err = fmt.Errorf("%s does not take -%s (--%s is a flag of %s)", f.cmd, name, name, strings.Join(t, ", "))
			if note := shortNotes[f.cmd][name]; note != "" {
				err = fmt.Errorf("%w; %s", err, note)
			}
		}
		return hinted{err: err, hint: helpHint(f.cmd)}
	}
	name, ok := strings.CutPrefix(msg, "unknown flag: --")
	if !ok {
		return hinted{err: err, hint: helpHint(f.cmd)}
	}
	name, _, _ = strings.Cut(name, "=")
	if t := takers(name); len(t) > 0 {
		err = fmt.Errorf("%s does not take --%s (it is a flag of %s)", f.cmd, name, strings.Join(t, ", "))
	}
	if why := notTaken[f.cmd][name]; why != "" {
		err = fmt.Errorf("%s does not take --%s: %s", f.cmd, name, why)
		if t := takers(name); len(t) > 0 {
			err = fmt.Errorf("%w (--%s is a flag of %s)", err, name, strings.Join(t, ", "))
		}
	}
	if s := nearest(name, names); s != "" {
		err = fmt.Errorf("%w (did you mean --%s?)", err, s)
	}
	return hinted{err: err, hint: helpHint(f.cmd)}
}

// shortNotes say, per command, what a one-letter spelling it does not
// take is called there.
var shortNotes = map[string]map[string]string{
	"stream": {"n": "BabelStream's -n is --numtimes here"},
}

// notTaken say why a command does not take a flag whose name its user
// may reach for.
var notTaken = map[string]map[string]string{
	"hybrid":                  {"profile": "the break-even report to take the two sides' profiles from is --report"},
	"experiment quantization": {"precision": "it runs every precision"},
	"sweep workgroup":         {"wg": "it sweeps the workgroup size over --sizes"},
	"sweep tile":              {"tile": "it sweeps the tile over --tiles"},
}

// noArgs refuses positional arguments of a command whose every input is
// a flag.
func (f *cmdFlags) noArgs() error {
	if f.NArg() > 0 {
		return fmt.Errorf("%s: unexpected argument(s) %q (every input is a --flag)", f.cmd, f.Args())
	}
	return nil
}
