package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/wgpu-prof/wgpu-prof/internal/experiment"
	"github.com/wgpu-prof/wgpu-prof/internal/experiment/crossover"
	"github.com/wgpu-prof/wgpu-prof/internal/experiment/env"
	"github.com/wgpu-prof/wgpu-prof/internal/experiment/hybrid"
	"github.com/wgpu-prof/wgpu-prof/internal/experiment/plan"
	"github.com/wgpu-prof/wgpu-prof/internal/report"
)

func runHybrid(stdout, stderr io.Writer, args []string) error {
	usage := "usage: wgpu-prof hybrid --kernel K [--sides A,B] [--report breakeven.json] [--requests N] [--min N --max N | --sizes-file F] [--fault a:slow=3@500-1000] [--fault b:fail@700-900]\n" +
		"Replays a stream of calls of mixed sizes through side A only, side B only, a\n" +
		"static threshold at the measured crossover, and the adaptive dispatcher (package\n" +
		"dispatch), every output verified; reports total time, per-request p50/p99, the\n" +
		"share of each side and every switch with its reason. The profiles come from a\n" +
		"break-even report (--report) or are measured at start-up. Default sides: cpu,gpu.\n" +
		"Without --min, --max or --sizes-file the stream is log-uniform over the range\n" +
		"where neither side alone is the answer: a pilot times both sides at 64 sizes\n" +
		"from 1 to 64× the crossover in the replay's own context (each call poisoned and\n" +
		"verified), and the range runs from the smallest of them to where the two\n" +
		"sides' totals come closest (no crossover in the pilot: 1/16 to 16× break-even's).\n" +
		"With --out DIR --requests-csv it also writes requests.csv: every request of\n" +
		"every replay and strategy (size, side, time, routing time, probe)."
	examples := `  wgpu-prof hybrid --kernel cosine-single --sides cpu:threads=1,cpu:threads=2
  wgpu-prof hybrid --kernel cosine-single --sides cpu:threads=1,cpu:threads=2 --fault b:slow=3@700-1300`
	return measureCommand(stdout, stderr, args, "hybrid", usage, examples, func(f *cmdFlags) measurer {
		return &hybridArgs{f: f}
	})
}

// ready reads and checks every input before the device opens: a bad one
// exits 2 and nothing is measured.
func (h *hybridArgs) ready(o *outputFlags) error { return h.read(h.f, o) }

func (h *hybridArgs) measure(e *env.Env, cfg experiment.RunConfig, rep *report.Report) error {
	// The sizes of a file must fit the workload's size before the
	// profile is measured: an input error, exit status 2.
	if err := checkStreamSizes(cfg, h.sizesFile, h.hc.Sizes); err != nil {
		return err
	}
	cfg.Retune = h.f.on("retune")
	h.hc.Seed = cfg.Seed
	err := hybrid.Run(e, cfg, h.hc, rep)
	h.replay = rep.Hybrid
	if err == nil && h.mix != nil {
		crossover.PriceMix(rep, *h.mix)
	}
	return err
}

// hybridArgs are hybrid's inputs, read and checked before the device
// opens, and the replay once run (for requests.csv).
type hybridArgs struct {
	f         *cmdFlags
	hc        hybrid.Config
	sizesFile string
	mix       *crossover.BatchMix
	replay    *report.Hybrid
}

// read checks hybrid's flags and reads its files: the sizes, the batch
// mix and the break-even report.
func (h *hybridArgs) read(f *cmdFlags, o *outputFlags) error {
	requests, minN, maxN := f.integer("requests"), f.integer("min"), f.integer("max")
	rows := f.on("requests-csv")
	if rows && o.out == "" {
		return fmt.Errorf("--requests-csv needs --out DIR")
	}
	if requests <= 0 {
		return fmt.Errorf("--requests %d: must be positive", requests)
	}
	if minN < 0 || maxN < 0 || (minN > 0 && maxN > 0 && minN > maxN) {
		return fmt.Errorf("--min %d --max %d: want 0 < min ≤ max (0: from the crossover)", minN, maxN)
	}
	if f.duration("search-budget") <= 0 {
		return fmt.Errorf("--search-budget %v: must be positive", f.duration("search-budget"))
	}
	sides := f.str("sides")
	if sides == "" {
		sides = "cpu,gpu"
	}
	pair, err := experiment.ParseSides(sides)
	if err != nil {
		return err
	}
	h.hc = hybrid.Config{Sides: pair, Requests: requests, Min: minN, Max: maxN, SearchBudget: searchBudget(f), Rows: rows}
	for _, s := range f.list("fault") {
		ft, err := hybrid.ParseFault(s)
		if err != nil {
			return err
		}
		h.hc.Faults = append(h.hc.Faults, ft)
	}
	if err := h.readFiles(f); err != nil {
		return err
	}
	return h.readReport(f.str("report"), f.str("kernel"), pair)
}

// readFiles reads --sizes-file and --batch-mix.
func (h *hybridArgs) readFiles(f *cmdFlags) error {
	if h.sizesFile = f.str("sizes-file"); h.sizesFile != "" {
		data, err := os.ReadFile(h.sizesFile)
		if err != nil {
			return fmt.Errorf("--sizes-file: %w", err)
		}
		if h.hc.Sizes, err = hybrid.ParseSizes(string(data)); err != nil {
			return fmt.Errorf("--sizes-file %s: %w", h.sizesFile, err)
		}
	}
	if file := f.str("batch-mix"); file != "" {
		m, err := crossover.ParseBatchMix(file)
		if err != nil {
			return err
		}
		h.mix = &m
	}
	return nil
}

// readReport reads --report, which must hold the break-even of kernel
// between the two sides (checked with the other inputs; the kernel's name
// is checked later with the other flags).
func (h *hybridArgs) readReport(path, kernel string, pair [2]experiment.SideSpec) error {
	if path == "" {
		return nil
	}
	var err error
	if h.hc.Profile, err = report.Read(path); err != nil {
		return fmt.Errorf("--report: %w", err)
	}
	if kernel == "" {
		return nil
	}
	if _, err := hybrid.ProfileOf(h.hc.Profile, kernel, pair); err != nil {
		return asReportFlag(err)
	}
	return nil
}

// asReportFlag writes an error about the break-even report hybrid reads
// as one about --report, the flag that names it.
func asReportFlag(err error) error {
	var pe *env.ParamError
	if errors.As(err, &pe) && pe.Name == "profile" {
		q := *pe
		q.Name = "report"
		return &q
	}
	if rest, ok := strings.CutPrefix(err.Error(), "--profile:"); ok {
		return &env.UsageError{Err: fmt.Errorf("--report:%s", rest)}
	}
	return err
}

// files are requests.csv under --requests-csv.
func (h *hybridArgs) files(*env.Env) []report.DirFile {
	if !h.hc.Rows || h.replay == nil || len(h.replay.Rows) == 0 {
		return nil
	}
	return []report.DirFile{{Name: "requests.csv", Write: func(w io.Writer) error { return report.WriteHybridRequests(w, h.replay) }}}
}

// checkStreamSizes refuses a size of the --sizes-file stream outside
// [1, the workload's batch size at cfg] (the data prepared reach no
// further), naming the file, the size, its place and the limit.
func checkStreamSizes(cfg experiment.RunConfig, file string, sizes []int) error {
	if len(sizes) == 0 || len(cfg.Workloads) != 1 {
		return nil
	}
	size, err := plan.DefaultBatch(cfg, cfg.Workloads[0])
	if err != nil {
		return &env.UsageError{Err: err}
	}
	for i, n := range sizes {
		if n < 1 || n > size {
			return &env.UsageError{Err: &env.ParamError{Name: "sizes-file", Value: file,
				Limit: fmt.Sprintf("size %d (the %s) is outside [1, %d], the %s of %s: raise it with --%s, or trim the file",
					n, ordinal(i+1), size, batchName(cfg.Workloads[0]), cfg.Workloads[0], batchName(cfg.Workloads[0]))}}
		}
	}
	return nil
}

// ordinal writes 1 as "1st", 2 as "2nd", 11 as "11th".
func ordinal(i int) string {
	suffix := "th"
	if i%100 < 11 || i%100 > 13 {
		switch i % 10 {
		case 1:
			suffix = "st"
		case 2:
			suffix = "nd"
		case 3:
			suffix = "rd"
		}
	}
	return fmt.Sprint(i) + suffix
}

// batchName is the parameter a workload's batch size counts ("n", "q",
// "nodes").
func batchName(name string) string {
	for _, w := range experiment.Workloads() {
		if w.Name == name && w.Batch != "" {
			return w.Batch
		}
	}
	return "n"
}
