package report

import (
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"unicode"

	"golang.org/x/perf/benchfmt"
)

// Units written by WriteBench. benchfmt tidies "-ns/op" units to "-sec/op"
// when it reads them back; benchstat shows them as times.
const (
	UnitKernel   = "gpu-ns/op"
	UnitEndToEnd = "e2e-ns/op"
	// Rates in base units, so benchstat scales them to readable prefixes
	// (2.4Gi B/s, 310M FLOP/s) rather than printing "248.7m GB/s".
	UnitGBs    = "B/s"
	UnitGFLOPs = "FLOP/s"
)

// WriteBench writes r's measurements in the Go benchmark format, so two runs
// can be compared with `benchstat old.txt new.txt`.
//
// File configuration lines carry the environment: goos, goarch, cpu,
// adapter, backend, device-type, driver, wgpu-native, simd, and webgpu
// (the implementation and its version) for a run through one. Each measurement
// becomes a benchmark named from its workload (camel-cased) with sub-name
// keys side=, variant= and its params, e.g.
// BenchmarkCosineSingle/side=gpu/variant=wg256/d=768/n=100000.
//
// When raw samples are present every sample is one line (benchstat then
// computes its own median and CI); otherwise one line carries the medians.
// Values per line: e2e-ns/op, gpu-ns/op when a kernel time exists, and
// B/s and FLOP/s from the kernel time when present, else the end-to-end
// time.
func WriteBench(w io.Writer, r *Report) error {
	if r == nil {
		return errors.New("report: WriteBench: nil report")
	}
	bw := benchfmt.NewWriter(w)
	res := &benchfmt.Result{Iters: 1, Config: benchConfig(r)}
	for i := range r.Measurements {
		m := &r.Measurements[i]
		res.Name = benchfmt.Name(benchName(m))
		lines := max(1, len(m.Samples))
		for j := 0; j < lines; j++ {
			res.Values = benchValues(m, j, res.Values[:0])
			if err := bw.Write(res); err != nil {
				return fmt.Errorf("report: WriteBench: %w", err)
			}
		}
	}
	if len(r.Measurements) == 0 {
		// benchfmt writes the configuration with the first result: a
		// report without rows (a run stopped during its ceilings) still
		// says what it is and that it is incomplete.
		for _, c := range res.Config {
			if _, err := fmt.Fprintf(w, "%s: %s\n", c.Key, c.Value); err != nil {
				return fmt.Errorf("report: WriteBench: %w", err)
			}
		}
	}
	return nil
}

// benchConfig is the file's configuration lines: platform, host, adapter
// and, where they apply, the implementation and why the run is
// incomplete; empty values are left out.
func benchConfig(r *Report) []benchfmt.Config {
	cfg := []struct{ k, v string }{
		{"goos", runtime.GOOS}, {"goarch", runtime.GOARCH},
		{"cpu", r.Host.CPU}, {"simd", r.Host.SIMDLevel},
		{"adapter", r.Adapter.Name}, {"backend", r.Adapter.Backend},
		{"device-type", r.Adapter.DeviceType}, {"driver", r.Adapter.Driver},
		{"wgpu-native", r.WgpuNativeVersion},
	}
	if r.Adapter.Implementation != "" && (r.Backends == nil || r.Backends.By != "implementation") {
		// One implementation: the file says which (a comparison names
		// it per row, impl=).
		cfg = append(cfg, struct{ k, v string }{"webgpu", implLabel(r.Adapter)})
	}
	if why, ok := r.IncompleteReason(); ok {
		// A configuration line: benchstat keeps an incomplete run's
		// results apart from a finished run's.
		cfg = append(cfg, struct{ k, v string }{"incomplete", IncompleteMark + ": " + why})
	}
	var out []benchfmt.Config
	for _, c := range cfg {
		if c.v != "" {
			out = append(out, benchfmt.Config{Key: c.k, Value: []byte(configValue(c.v)), File: true})
		}
	}
	return out
}

// benchValues appends to vals line j's values of m: end-to-end time, the
// kernel time where known, and the rates over the kernel time where
// known, else over the end-to-end time.
func benchValues(m *Measurement, j int, vals []benchfmt.Value) []benchfmt.Value {
	e2e, kernel, hasKernel := m.EndToEnd.Median, 0.0, m.Kernel != nil
	if len(m.Samples) > 0 {
		e2e = m.Samples[j]
	}
	if hasKernel {
		kernel = m.Kernel.Median
		if len(m.Samples) > 0 {
			// Per-sample kernel times, when kept, pair with the
			// end-to-end samples one to one; otherwise only the
			// median is known.
			if j < len(m.KernelSamples) {
				kernel = m.KernelSamples[j]
			} else {
				hasKernel = false
			}
		}
	}
	vals = append(vals, benchfmt.Value{Value: e2e * 1e9, Unit: UnitEndToEnd})
	rateTime := e2e
	if hasKernel {
		vals = append(vals, benchfmt.Value{Value: kernel * 1e9, Unit: UnitKernel})
		rateTime = kernel
	}
	if rateTime > 0 {
		if m.Bytes > 0 {
			vals = append(vals, benchfmt.Value{Value: m.Bytes / rateTime, Unit: UnitGBs})
		}
		if m.Flops > 0 {
			vals = append(vals, benchfmt.Value{Value: m.Flops / rateTime, Unit: UnitGFLOPs})
		}
	}
	return vals
}

// benchName builds "CosineSingle/side=gpu/variant=wg256/d=768".
func benchName(m *Measurement) string {
	var b strings.Builder
	b.WriteString(camel(m.Workload))
	part := func(k, v string) {
		if v != "" {
			fmt.Fprintf(&b, "/%s=%s", nameField(k), nameField(v))
		}
	}
	part("side", m.Side)
	// A run of several implementations names each row's, so that
	// benchstat -col /impl puts them side by side.
	part("impl", m.Implementation)
	part("variant", m.Variant)
	for _, p := range m.Params {
		part(p.Key, p.Value)
	}
	return b.String()
}

// camel turns "cosine-single" or "cosine_single" into "CosineSingle".
func camel(s string) string {
	var b strings.Builder
	up := true
	for _, r := range s {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			up = true
			continue
		}
		if up {
			r = unicode.ToUpper(r)
			up = false
		}
		b.WriteRune(r)
	}
	if b.Len() == 0 {
		return "Unnamed"
	}
	return b.String()
}

// nameField makes s safe inside a benchmark name: no spaces, slashes or
// '=' (which would split keys), no '-' followed by digits at the end (read
// as GOMAXPROCS).
func nameField(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case unicode.IsSpace(r), r == '/', r == '=', r == '-':
			return '_'
		}
		return r
	}, s)
}

// configValue keeps a config value on one line.
func configValue(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
