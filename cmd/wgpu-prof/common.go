package main

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/wgpu-prof/wgpu-prof/internal/experiment/env"
)

// deviceFlags select the adapter and the measurement budget.
type deviceFlags struct {
	impl         string
	backend      string
	adapter      int
	adapterName  string
	budget       time.Duration
	target       float64
	noTimestamps bool
	cpuLevel     string
	threads      int
	cvWarn       float64
	maxMemory    string
	quick        bool // a quick look: its memory budget and measurement budget
	dumpShaders  bool // keep the compiled shaders (--dump-shaders)
}

// Under --quick: each measurement's budget (unless --budget is given)
// and each crossover search's (unless --search-budget is given).
const (
	quickBudget       = 250 * time.Millisecond
	quickSearchBudget = 20 * time.Second
)

// readDevice is the device and measurement flags of f (the registry's
// defaults for those its command does not take).
func readDevice(f *cmdFlags) deviceFlags {
	f = f.sharedReads()
	d := deviceFlags{
		impl: f.str("impl"), backend: f.str("backend"), adapter: f.integer("adapter"), adapterName: f.str("adapter-name"),
		budget: f.duration("budget"), target: f.float("target"), noTimestamps: f.on("no-timestamps"),
		cpuLevel: f.str("cpu-level"), threads: f.integer("threads"), cvWarn: f.float("cv-warn"),
		maxMemory: f.str("max-memory"), quick: f.on("quick"), dumpShaders: f.on("dump-shaders"),
	}
	if d.quick && !f.changed("budget") {
		d.budget = quickBudget
	}
	return d
}

// searchBudget is --search-budget, or quickSearchBudget under --quick
// when it is not given.
func searchBudget(f *cmdFlags) time.Duration {
	if f.on("quick") && !f.changed("search-budget") {
		return quickSearchBudget
	}
	return f.duration("search-budget")
}

// parseMaxMemory parses --max-memory ("": the default budget, 0).
func parseMaxMemory(s string) (int64, error) { return env.ParseMaxMemory(s) }

// open validates the flags and opens the device.
func (f *deviceFlags) open(stderr io.Writer) (*env.Env, error) {
	if f.adapter < -1 {
		return nil, fmt.Errorf("--adapter %d: an index from wgpu-prof devices (0, 1, …), or -1 for the best one", f.adapter)
	}
	if err := env.CheckMeasure(f.budget, f.target); err != nil {
		return nil, err
	}
	host, err := env.ParseHost(f.cpuLevel, f.threads)
	if err != nil {
		return nil, err
	}
	if err := env.CheckCVWarn(f.cvWarn); err != nil {
		return nil, err
	}
	maxMem, err := parseMaxMemory(f.maxMemory)
	if err != nil {
		return nil, err
	}

	env, err := env.Open(env.AdapterSelect{Impl: f.impl, Backend: f.backend, Index: f.adapter, Name: f.adapterName, DumpShaders: f.dumpShaders},
		env.MeasureOpts{Budget: f.budget, TargetRel: f.target, WarnCV: f.cvWarn}, f.noTimestamps)
	if err != nil {
		return nil, err
	}
	env.Host = host
	env.SetMaxMemory(maxMem)
	if f.quick {
		env.SetQuickMemory()
	}
	return env, nil
}

// flagError returns err with its message written by flagMessage (the
// chain kept for errors.Is/As); err itself when it names no parameter.
func flagError(err error) error {
	if err == nil {
		return nil
	}
	if msg := flagMessage(err); msg != err.Error() {
		return flagged{msg: msg, err: err}
	}
	return err
}

type flagged struct {
	msg string
	err error
}

func (f flagged) Error() string { return f.msg }
func (f flagged) Unwrap() error { return f.err }

// flagMessage is err's message with each library parameter it names
// (env.ParamError) written as the flag that sets it: "d 766: …"
// becomes "--d 766: …".
func flagMessage(err error) string {
	msg := err.Error()
	for e := err; e != nil; e = errors.Unwrap(e) {
		if pe, ok := e.(*env.ParamError); ok {
			if s := pe.Error(); !strings.Contains(msg, "--"+s) {
				msg = strings.Replace(msg, s, "--"+s, 1)
			}
		}
	}
	return msg
}

// parseInts parses "1,2,4" into positive integers, naming a bad element.
func parseInts(flag, s string) ([]int, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var out []int
	for _, part := range strings.Split(s, ",") {
		v, err := strconv.Atoi(strings.TrimSpace(part))
		if err != nil || v <= 0 {
			return nil, fmt.Errorf("%s: %q is not a positive integer", flag, part)
		}
		out = append(out, v)
	}
	return out, nil
}
