package experiment

import (
	"fmt"
	"strings"

	"github.com/wgpu-prof/wgpu-prof/internal/experiment/env"

	"github.com/wgpu-prof/wgpu-prof/compute"
	"github.com/wgpu-prof/wgpu-prof/compute/wgpu"

	"github.com/wgpu-prof/wgpu-prof/internal/workload"
)

// AllWorkloads lists every workload of the default suite, in run order.
func AllWorkloads() []string { return workload.Names() }

// ParseWorkloads parses a comma-separated list ("all" for every one).
func ParseWorkloads(s string) ([]string, error) {
	ds, err := workload.Parse(s)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(ds))
	for i, d := range ds {
		out[i] = d.Name
	}
	return out, nil
}

// RunConfig sizes the default suite.
type RunConfig struct {
	Workloads []string
	workload.Config
	// Batches for the break-even sweeps; nil: powers of 4 up to the size.
	Batches      []int
	CeilingBytes uint64
	// QuickStaircase sweeps the cache staircase in steps of 4× with
	// fewer runs (run --quick).
	QuickStaircase bool
	// QuickLatency measures the call latency anatomy with fewer rounds
	// and transfers up to 4 MiB (run --quick).
	QuickLatency bool
	// Retune re-measures the GPU variant selection instead of reading the
	// cache (see SelectVariant).
	Retune bool
	// QuickVariants selects GPU variants the quick way (plan --quick,
	// SelectOptions.Quick): the nearest shape's cached choice, else fewer
	// configurations.
	QuickVariants bool
	// Variant forces the GPU design of sweeps and experiments ("": the
	// design run chooses on this adapter, SelectVariant).
	Variant string
}

// Defaults fills zero fields with the suite's default sizes.
func (c *RunConfig) Defaults() {
	if len(c.Workloads) == 0 {
		c.Workloads = workload.Names()
	}
	c.Config.Defaults()
}

// Descriptors resolves the configured workload names.
func (c *RunConfig) Descriptors() ([]*workload.Descriptor, error) {
	out := make([]*workload.Descriptor, 0, len(c.Workloads))
	for _, name := range c.Workloads {
		d, err := workload.Lookup(name)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, nil
}

// Validate checks the sizes against each other, the host's memory and
// the device's limits before anything runs, and returns the workloads'
// descriptors. Its errors are UsageErrors.
func (c *RunConfig) Validate(d *wgpu.Device) ([]*workload.Descriptor, error) {
	ds, err := c.validate(d)
	return ds, env.Usage(err)
}

func (c *RunConfig) validate(d *wgpu.Device) ([]*workload.Descriptor, error) {
	if d == nil {
		return nil, fmt.Errorf("experiment: no device")
	}
	ds, err := c.Descriptors()
	if err != nil {
		return nil, err
	}
	if err := c.Config.Validate(d.Limits, d.Info.Name); err != nil {
		return nil, err
	}
	for _, w := range ds {
		if c.Precision != "" && c.Precision != workload.PrecisionF32 && !w.Has("precision") {
			var have []string
			for _, d := range workload.All() {
				if d.Has("precision") {
					have = append(have, d.Name)
				}
			}
			return nil, env.Invalid(workload.ParamPrecision.Name, c.Precision, "%s has no %s variant: it stores no vectors (have %v; pick them as the workloads)", w.Name, c.Precision, have)
		}
		if err := w.Check(c.Config); err != nil {
			return nil, fmt.Errorf("%s: %w", w.Name, err)
		}
	}
	if c.Workgroup != 0 {
		if err := d.CheckWorkgroup(c.Workgroup); err != nil {
			return nil, &env.ParamError{Name: workload.ParamWG.Name, Limit: err.Error()}
		}
	}
	if c.Tile != 0 {
		if err := compute.CheckTile(d, c.Tile); err != nil {
			return nil, &env.ParamError{Name: workload.ParamTile.Name, Limit: err.Error()}
		}
	}
	if err := c.CheckBatches(ds); err != nil {
		return nil, err
	}
	what := ""
	for _, p := range workload.Params() {
		if p.Kind != IntParam || p.Auto {
			continue
		}
		for _, w := range ds {
			if w.Has(p.Name) {
				what += " " + p.Name + " " + p.Value(c.Config)
				break
			}
		}
	}
	what = strings.TrimSpace(what)
	if err := env.CheckMemory(what, DataBytes(c.Config, ds), c.QuickStaircase); err != nil {
		return nil, err
	}
	return ds, nil
}

// PowersOf4 returns from, 4·from, 16·from, … up to and including max
// (from 0 means 1).
func PowersOf4(from, to int) []int {
	var out []int
	for b := max(from, 1); b < to; b *= 4 {
		out = append(out, b)
	}
	return append(out, to)
}

// BatchesFor is --batches, or powers of 4 from the workload's smallest
// batch up to its default size.
func BatchesFor(cfg RunConfig, pr *workload.Prepared) []int {
	if len(cfg.Batches) > 0 {
		return cfg.Batches
	}
	return PowersOf4(pr.MinBatch, pr.Size)
}
