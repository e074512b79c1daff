package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/pflag"

	"github.com/wgpu-prof/wgpu-prof/report"
)

// outputFlags are the flags every measuring command shares.
type outputFlags struct {
	format string
	out    string
	plot   bool
	quiet  bool
}

func (o *outputFlags) register(fs *pflag.FlagSet, plots bool) {
	fs.StringVar(&o.format, "format", "text", "output format on stdout: text, json, csv, bench (Go benchmark format) or html")
	fs.StringVar(&o.out, "out", "", "also write report.{json,txt,csv,bench,html} (and plots) into this directory")
	if plots {
		fs.BoolVar(&o.plot, "plot", false, "with --out: write PNG and SVG plots")
	}
	fs.BoolVar(&o.quiet, "quiet", false, "no progress on stderr (by default: a status line on a terminal, one line per finished measurement otherwise)")
}

// startProgress returns the progress display on stderr, or nil with --quiet.
func (o *outputFlags) startProgress(stderr io.Writer) *progress {
	if o.quiet {
		return nil
	}
	return newProgress(stderr, isTerminal(stderr))
}

// progressWriter is p as the experiment package's progress writer (nil
// when p is nil: an interface holding a nil pointer would not be nil).
func progressWriter(p *progress) io.Writer {
	if p == nil {
		return nil
	}
	return p
}

func (p *progress) finish() {
	if p != nil {
		p.Finish()
	}
}

// validate checks the flags before any measurement, so a bad --out fails
// fast and nothing is half-written.
func (o *outputFlags) validate() error {
	switch o.format {
	case "text", "json", "csv", "bench", "html":
	default:
		return fmt.Errorf("--format %q: want text, json, csv, bench or html", o.format)
	}
	if o.plot && o.out == "" {
		return fmt.Errorf("--plot needs --out DIR")
	}
	if o.out == "" {
		return nil
	}
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return fmt.Errorf("--out %q: %w", o.out, err)
	}
	f, err := os.CreateTemp(o.out, ".wgpu-prof-probe-*")
	if err != nil {
		return fmt.Errorf("--out %q is not writable: %w", o.out, err)
	}
	name := f.Name()
	f.Close()
	os.Remove(name)
	return nil
}

func writeFormat(w io.Writer, format string, r *report.Report) error {
	switch format {
	case "json":
		return report.WriteJSON(w, r)
	case "csv":
		return report.WriteCSV(w, r)
	case "bench":
		return report.WriteBench(w, r)
	case "html":
		return report.WriteHTML(w, r)
	}
	return report.WriteText(w, r)
}

// emit writes the report to stdout in the chosen format and, with --out,
// every format (and plots) into the directory, each file atomically.
func (o *outputFlags) emit(stdout io.Writer, r *report.Report) error {
	if o.out != "" {
		for _, f := range []struct{ name, format string }{
			{"report.json", "json"}, {"report.txt", "text"}, {"report.csv", "csv"}, {"report.bench", "bench"}, {"report.html", "html"},
		} {
			path := filepath.Join(o.out, f.name)
			if err := report.WriteAtomic(path, func(w io.Writer) error { return writeFormat(w, f.format, r) }); err != nil {
				return err
			}
		}
		if o.plot {
			if err := writePlots(o.out, r); err != nil {
				return err
			}
		}
	}
	var buf bytes.Buffer
	if err := writeFormat(&buf, o.format, r); err != nil {
		return err
	}
	_, err := stdout.Write(buf.Bytes())
	return err
}

// writePlots draws the roofline, every break-even and every sweep.
func writePlots(dir string, r *report.Report) error {
	var errs []error
	for _, f := range report.Figures(r) {
		for _, ext := range []string{"png", "svg"} {
			path := filepath.Join(dir, f.Name+"."+ext)
			if err := report.WriteAtomic(path, func(w io.Writer) error { return f.Draw(w, ext) }); err != nil {
				errs = append(errs, fmt.Errorf("plot %s: %w", path, err))
			}
		}
	}
	return errors.Join(errs...)
}

// parseFlags parses args; --help prints usage and reports done.
func parseFlags(fs *pflag.FlagSet, args []string) (done bool, err error) {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return true, nil
		}
		return false, err
	}
	return false, nil
}

// isTerminal reports whether w is a character device (progress goes to
// stderr only then).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
