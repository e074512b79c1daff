package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/wgpu-prof/wgpu-prof/internal/report"
)

// outputFlags are the flags every measuring command shares.
type outputFlags struct {
	format  string
	out     string
	force   bool // --out may write over an earlier report
	plot    bool
	quiet   bool
	verbose bool
}

// readOutput is the output flags of f.
func readOutput(f *cmdFlags) outputFlags {
	f = f.sharedReads()
	return outputFlags{format: f.str("format"), out: f.str("out"), force: f.on("force"), plot: f.on("plot"), verbose: f.on("verbose"), quiet: f.on("quiet")}
}

// startProgress returns the progress display on stderr, or nil with --quiet.
func (o *outputFlags) startProgress(stderr io.Writer) *progress {
	if o.quiet {
		return nil
	}
	p := newProgress(stderr, isTerminal(stderr))
	p.startClock()
	return p
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
	return o.validateOut()
}

// validateOut checks --out before any measurement: a folder that exists
// must be a writable folder holding no earlier report (unless --force),
// and one that does not must be creatable.
func (o *outputFlags) validateOut() error {
	if o.force && o.out == "" {
		return fmt.Errorf("--force needs --out DIR (it lets --out write over an earlier report)")
	}
	if o.out == "" {
		return nil
	}
	if err := o.refuseEarlier(); err != nil {
		return err
	}
	// Create nothing yet (a refused or failed run leaves no folder): find
	// the folder that exists, itself or its nearest parent, and check
	// that it is a folder this process can write in.
	probe := o.out
	for {
		fi, err := os.Stat(probe)
		if err == nil {
			if !fi.IsDir() {
				return fmt.Errorf("--out %q: %s is not a folder", o.out, probe)
			}
			break
		}
		if !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("--out %q: %w", o.out, err)
		}
		parent := filepath.Dir(probe)
		if parent == probe {
			return fmt.Errorf("--out %q: no existing parent folder", o.out)
		}
		probe = parent
	}
	f, err := os.CreateTemp(probe, ".wgpu-prof-probe-*")
	if err != nil {
		return fmt.Errorf("--out %q is not writable: %w", o.out, err)
	}
	name := f.Name()
	f.Close()
	os.Remove(name)
	return nil
}

// reportFiles are the files by which a folder holds an earlier report:
// every --out writes report.json and report.txt, plan's also
// plan.{json,txt}.
var reportFiles = []string{"report.json", "report.txt", "report.csv", "report.bench", "report.html", "plan.json", "plan.txt"}

// refuseEarlier refuses, without --force, an --out folder that holds an
// earlier report, naming what is there: writing over it would replace
// that report in silence.
func (o *outputFlags) refuseEarlier() error {
	if o.force {
		return nil
	}
	entries, err := os.ReadDir(o.out)
	if err != nil {
		return nil // absent (created when written), or not a folder: validateOut says so
	}
	var found []string
	for _, e := range entries {
		if slices.Contains(reportFiles, e.Name()) {
			found = append(found, e.Name())
		}
	}
	if len(found) == 0 {
		return nil
	}
	what := strings.Join(found, ", ")
	switch others := len(entries) - len(found); {
	case others == 1:
		what += " and 1 other entry"
	case others > 1:
		what += fmt.Sprintf(" and %d other entries", others)
	}
	return fmt.Errorf("--out %q holds an earlier report (%s): --force writes over it, or name another folder", o.out, what)
}

// writeFormat writes r in format; verbose text adds the details, its
// warnings one line per kind (report.txt).
func writeFormat(w io.Writer, format string, r *report.Report, verbose bool) error {
	return writeFormatOpts(w, format, r, verbose, false)
}

// writeFormatOpts is writeFormat; with everyWarning (stdout --verbose)
// the text lists every warning on its own line.
func writeFormatOpts(w io.Writer, format string, r *report.Report, verbose, everyWarning bool) error {
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
	return report.WriteTextOpts(w, r, report.TextOptions{Verbose: verbose, EveryWarning: everyWarning})
}

// emit writes the report to stdout in the chosen format first (so it is
// never lost) and then, with --out, every format, the plots and extra into
// the directory as a whole (report.WriteDir: a failure leaves the folder
// as it was).
func (o *outputFlags) emit(stdout io.Writer, r *report.Report, extra ...report.DirFile) error {
	var buf bytes.Buffer
	if err := writeFormatOpts(&buf, o.format, r, o.verbose, o.verbose); err != nil {
		return err
	}
	if _, err := stdout.Write(buf.Bytes()); err != nil {
		return fmt.Errorf("stdout: %w", err)
	}
	if o.out == "" {
		return nil
	}
	return o.writeDir(r, extra...)
}

// writeDir writes the report in every format, the plots and extra into
// --out as a whole (report.WriteDir), after checking again that no
// earlier report arrived there while it measured.
func (o *outputFlags) writeDir(r *report.Report, extra ...report.DirFile) error {
	if err := o.refuseEarlier(); err != nil {
		return fmt.Errorf("%w (the report went to stdout; the folder was left as it was)", err)
	}
	var files []report.DirFile
	for _, f := range []struct{ name, format string }{
		{"report.json", "json"}, {"report.txt", "text"}, {"report.csv", "csv"}, {"report.bench", "bench"}, {"report.html", "html"},
	} {
		f := f
		files = append(files, report.DirFile{Name: f.name, Write: func(w io.Writer) error { return writeFormat(w, f.format, r, true) }})
	}
	if r != nil && r.Backends != nil {
		files = append(files, report.DirFile{Name: "side-by-side.csv", Write: func(w io.Writer) error { return report.WriteSideBySideCSV(w, r) }})
	}
	if o.plot {
		files = append(files, plotFiles(r)...)
	}
	files = append(files, extra...)
	if err := report.WriteDir(o.out, files); err != nil {
		return fmt.Errorf("--out %s: %w (the report went to stdout; the folder was left as it was)", o.out, err)
	}
	return nil
}

// plotFiles are the plots report.Figures lists, as PNG and SVG.
func plotFiles(r *report.Report) []report.DirFile {
	var out []report.DirFile
	for _, f := range report.Figures(r) {
		f := f
		for _, ext := range []string{"png", "svg"} {
			ext := ext
			out = append(out, report.DirFile{Name: f.Name + "." + ext, Write: func(w io.Writer) error { return f.Draw(w, ext) }})
		}
	}
	return out
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

// writeWrapped writes lines of prose, each broken at report.MaxLine
// columns: a continuation is indented two spaces past its line's own
// indent, so a line and its details still read as a list.
func writeWrapped(w io.Writer, lines []string) error {
	var b strings.Builder
	for _, l := range lines {
		body := strings.TrimLeft(l, " ")
		indent := l[:len(l)-len(body)]
		for i, part := range report.WrapBullet(indent, body, report.MaxLine) {
			if i > 0 {
				part = "  " + part
			}
			b.WriteString(part + "\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// askedLines are the answers to what the flags asked for (report.Asked),
// "--min-speedup 2: …", for an output that writes its own lines (plan):
// they come first, as in every answer block.
func askedLines(r *report.Report) []string {
	var out []string
	for _, a := range r.Asked {
		out = append(out, a.Flag+": "+a.Answer)
	}
	return out
}
