package main

import (
	"fmt"
	"io"
	"strings"
)

// writeHelp prints usage, each section's flags (the command's own first,
// then the shared groups) and the examples.
func writeHelp(w io.Writer, usage, examples string, sections []helpSection) {
	fmt.Fprintln(w, strings.TrimRight(usage, "\n"))
	for _, s := range sections {
		if s.fs.HasFlags() {
			fmt.Fprintf(w, "\n%s:\n%s", s.title, s.fs.FlagUsagesWrapped(helpWidth))
		}
	}
	if examples != "" {
		fmt.Fprintf(w, "\nexamples:\n%s\n", strings.TrimRight(examples, "\n"))
	}
}

// isHelp reports whether arg asks for help.
func isHelp(arg string) bool { return arg == "--help" || arg == "-h" || arg == "help" }

// helpWidth is the width the flags' help wraps at (a terminal of 120
// columns).
const helpWidth = 118
