package report

import (
	"fmt"
	"io"
	"strconv"

	"github.com/wgpu-prof/wgpu-prof/stream"
)

// StreamCSVHeader is BabelStream's CSV header line (MB units, comma separator).
const StreamCSVHeader = "function,num_times,n_elements,sizeof,max_MB_per_sec,min_runtime,max_runtime,avg_runtime"

// g6 formats x as C++'s default stream output does (6 significant
// digits, %g), which BabelStream's CSV uses.
func g6(x float64) string { return strconv.FormatFloat(x, 'g', 6, 64) }

// WriteStreamCSV writes the header and one row per Stats in BabelStream's CSV.
func WriteStreamCSV(w io.Writer, numTimes, n, sizeof int, rows []stream.Stats) error {
	if _, err := fmt.Fprintln(w, StreamCSVHeader); err != nil {
		return err
	}
	for _, s := range rows {
		if _, err := fmt.Fprintf(w, "%s,%d,%d,%d,%s,%s,%s,%s\n", s.Kernel, numTimes, n, sizeof,
			g6(s.MBytesPerSec), g6(s.Min.Seconds()), g6(s.Max.Seconds()), g6(s.Avg.Seconds())); err != nil {
			return err
		}
	}
	return nil
}

// WriteStreamTable writes BabelStream's text table: Function, MBytes/sec, Min
// (sec), Max, Average, in 12-character columns. extra, when non-nil, adds
// one column headed extraHead whose cell for row i is extra(i).
func WriteStreamTable(w io.Writer, rows []stream.Stats, extraHead string, extra func(i int) string) error {
	head := fmt.Sprintf("%-12s%-12s%-12s%-12s%-12s", "Function", "MBytes/sec", "Min (sec)", "Max", "Average")
	if extra != nil {
		head += extraHead
	}
	if _, err := fmt.Fprintln(w, head); err != nil {
		return err
	}
	for i, s := range rows {
		line := fmt.Sprintf("%-12s%-12.3f%-12.5f%-12.5f%-12.5f", s.Kernel, s.MBytesPerSec, s.Min.Seconds(), s.Max.Seconds(), s.Avg.Seconds())
		if extra != nil {
			line += extra(i)
		}
		if _, err := fmt.Fprintln(w, line); err != nil {
			return err
		}
	}
	return nil
}
