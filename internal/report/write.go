package report

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// WriteAtomic writes a file so that readers see either the old content or
// the complete new one: write calls fill a temporary file in the same
// directory, which is flushed, fsynced and renamed over path. If write (or
// any step) fails the temporary file is removed and path is untouched. The
// new file has mode 0644.
func WriteAtomic(path string, write func(io.Writer) error) (err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	if base == "" {
		return fmt.Errorf("report: write %q: not a file name", path)
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return fmt.Errorf("report: write %s: cannot create a file in %s: %w", path, dir, err)
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	bw := bufio.NewWriter(f)
	if err := write(bw); err != nil {
		return fmt.Errorf("report: write %s: %w", path, err)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("report: write %s: %w", path, err)
	}
	if err := f.Chmod(0o644); err != nil {
		return fmt.Errorf("report: write %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("report: write %s: sync: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("report: write %s: close: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("report: write %s: %w", path, err)
	}
	// Persist the rename itself; not every platform can sync a directory,
	// and the data is already safe, so this is best-effort.
	if d, derr := os.Open(dir); derr == nil {
		_ = d.Sync()
		d.Close()
	}
	return nil
}

// WriteJSON writes r as indented JSON. It fails (rather than writing an
// unreadable file) when r does not validate or holds NaN or ±Inf.
func WriteJSON(w io.Writer, r *Report) error {
	if r == nil {
		return errors.New("report: WriteJSON: nil report")
	}
	if err := r.Validate(); err != nil {
		return fmt.Errorf("report: WriteJSON: %w", err)
	}
	if err := CheckFinite(r); err != nil {
		return fmt.Errorf("report: WriteJSON: %w", err)
	}
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("report: WriteJSON: %w", err)
	}
	data = append(data, '\n')
	if _, err := w.Write(data); err != nil {
		return fmt.Errorf("report: WriteJSON: %w", err)
	}
	return nil
}

// CSVHeader is the header row of WriteCSV; every column names its side
// and unit. Times are in seconds, rates in GB/s and GFLOP/s (10⁹), sizes
// in bytes per call; *_samples count the timed runs of the row's side
// (not a batch size: the batch is in params); empty kernel columns mean no
// kernel time; "ceiling" names the measured ceiling ceiling_frac is a
// fraction of ("GPU read 3.10 GB/s"); host_state and round_trip_ns are
// the host's state probed before the row, host_state_end the probe after
// it when that differs (HostState); implementation names the WebGPU
// implementation in a run of several side by side.
var CSVHeader = []string{
	"workload", "side", "variant", "params",
	"e2e_samples", "e2e_median_s", "e2e_lo_s", "e2e_hi_s", "e2e_cv",
	"kernel_samples", "kernel_median_s", "kernel_lo_s", "kernel_hi_s", "kernel_cv",
	"bytes_per_call", "flop_per_call", "gb_per_s", "gflop_per_s", "ceiling_frac", "bound", "verified", "warnings", "ceiling",
	"host_state", "round_trip_ns", "host_state_end",
	"backend", "adapter", "implementation",
}

// WriteCSV writes one row per measurement under CSVHeader. Params are
// "k=v;k=v", warnings are joined with "; ".
func WriteCSV(w io.Writer, r *Report) error {
	if r == nil {
		return errors.New("report: WriteCSV: nil report")
	}
	if why, ok := r.IncompleteReason(); ok {
		// A comment line before the header: a reader that does not
		// expect it fails rather than take an interrupted run for a
		// finished one (pandas: comment="#").
		if _, err := fmt.Fprintf(w, "# %s: %s\n", IncompleteMark, configValue(why)); err != nil {
			return fmt.Errorf("report: WriteCSV: %w", err)
		}
	}
	cw := csv.NewWriter(w)
	if err := cw.Write(CSVHeader); err != nil {
		return fmt.Errorf("report: WriteCSV: %w", err)
	}
	g := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	for i := range r.Measurements {
		m := &r.Measurements[i]
		e := m.EndToEnd
		row := []string{m.Workload, m.Side, m.Variant, paramString(m.Params, ";"),
			strconv.Itoa(e.N), g(e.Median), g(e.Lo), g(e.Hi), g(e.CV)}
		if k := m.Kernel; k != nil {
			row = append(row, strconv.Itoa(k.N), g(k.Median), g(k.Lo), g(k.Hi), g(k.CV))
		} else {
			row = append(row, "", "", "", "", "")
		}
		warns := append(append([]string(nil), m.Warnings...), e.Warnings...)
		if m.Kernel != nil {
			warns = append(warns, m.Kernel.Warnings...)
		}
		row = append(row, g(m.Bytes), g(m.Flops), g(m.GBs), g(m.GFLOPs), g(m.CeilingFrac),
			m.Bound, strconv.FormatBool(m.Verified), strings.Join(warns, "; "), CeilingOf(r, m))
		if s := m.State; s != nil {
			row = append(row, s.Label, g(s.RoundTripNs))
		} else {
			row = append(row, "", "")
		}
		if s := m.StateEnd; s != nil {
			row = append(row, s.Label)
		} else {
			row = append(row, "")
		}
		row = append(row, m.Backend, m.Adapter, m.Implementation)
		if err := cw.Write(row); err != nil {
			return fmt.Errorf("report: WriteCSV: %w", err)
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("report: WriteCSV: %w", err)
	}
	return nil
}

// TraceEvent is one complete event ("ph":"X") of the Chrome Trace Event
// Format, viewable in chrome://tracing or Perfetto.
type TraceEvent struct {
	Name  string
	Cat   string
	Start time.Duration // since the start of the trace
	Dur   time.Duration
	Tid   int // lane: TraceTidHost, TraceTidGPU
	Args  map[string]any
	// Instant makes it a marker ("ph":"i", global scope) at Start; Dur is
	// ignored.
	Instant bool
}

// Trace tracks (thread ids) and the names WriteChromeTrace gives them.
const (
	TraceTidHost = 1 // host clock: each GPU call end to end
	TraceTidGPU  = 2 // GPU timestamps, placed on the host clock
)

var traceThreadNames = map[int]string{
	TraceTidHost: "host: GPU calls, end to end (host clock)",
	TraceTidGPU:  "GPU queue: compute passes (timestamps, calibrated to the host clock)",
}

type traceEventJSON struct {
	Name string         `json:"name"`
	Cat  string         `json:"cat,omitempty"`
	Ph   string         `json:"ph"`
	Ts   float64        `json:"ts"`            // microseconds
	Dur  float64        `json:"dur,omitempty"` // microseconds
	S    string         `json:"s,omitempty"`   // instant scope
	Pid  int            `json:"pid"`
	Tid  int            `json:"tid"`
	Args map[string]any `json:"args,omitempty"`
}

// WriteChromeTrace writes events as {"traceEvents":[…]} with timestamps and
// durations in microseconds (fractions keep nanosecond resolution). A
// negative duration or an Args value JSON cannot encode is an error.
func WriteChromeTrace(w io.Writer, events []TraceEvent) error {
	out := struct {
		TraceEvents     []traceEventJSON `json:"traceEvents"`
		DisplayTimeUnit string           `json:"displayTimeUnit"`
	}{TraceEvents: make([]traceEventJSON, 0, len(events)+5), DisplayTimeUnit: "ns"}
	meta := func(name string, tid int, args map[string]any) {
		out.TraceEvents = append(out.TraceEvents, traceEventJSON{Name: name, Ph: "M", Pid: 1, Tid: tid, Args: args})
	}
	meta("process_name", 0, map[string]any{"name": "wgpu-prof"})
	for _, tid := range []int{TraceTidHost, TraceTidGPU} {
		meta("thread_name", tid, map[string]any{"name": traceThreadNames[tid]})
		meta("thread_sort_index", tid, map[string]any{"sort_index": tid})
	}
	for i, e := range events {
		if e.Dur < 0 {
			return fmt.Errorf("report: WriteChromeTrace: event %d (%s): negative duration %v", i, e.Name, e.Dur)
		}
		ev := traceEventJSON{
			Name: e.Name, Cat: e.Cat, Ph: "X",
			Ts: us(e.Start), Dur: us(e.Dur), Pid: 1, Tid: e.Tid, Args: e.Args,
		}
		if e.Instant {
			ev.Ph, ev.Dur, ev.S = "i", 0, "g"
		}
		out.TraceEvents = append(out.TraceEvents, ev)
	}
	data, err := json.Marshal(out)
	if err != nil {
		return fmt.Errorf("report: WriteChromeTrace: %w", err)
	}
	if _, err := w.Write(append(data, '\n')); err != nil {
		return fmt.Errorf("report: WriteChromeTrace: %w", err)
	}
	return nil
}

func us(d time.Duration) float64 { return float64(d) / 1e3 }
