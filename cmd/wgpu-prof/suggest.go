package main

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/wgpu-prof/wgpu-prof/internal/experiment"
)

// hinted is a usage error with what may have been meant and where the
// help is: main prints the error, then the hint on its own line, and not
// the whole usage (the error first, where the eye lands).
type hinted struct {
	err  error
	hint string
}

func (h hinted) Error() string { return h.err.Error() + "\n" + h.hint }
func (h hinted) Unwrap() error { return h.err }

// helpHint points at a command's help in one line.
func helpHint(cmd string) string {
	if cmd == "" {
		return "run 'wgpu-prof help' for the commands"
	}
	return fmt.Sprintf("run 'wgpu-prof %s --help' for its flags and examples", cmd)
}

// unknownWorkload matches the error naming a workload that does not exist.
var unknownWorkload = regexp.MustCompile(`unknown workload "([^"]*)"`)

// withWorkloadHint adds "did you mean X" to an error naming an unknown
// workload near a known one.
func withWorkloadHint(err error) error {
	var h hinted
	if err == nil || errors.As(err, &h) {
		return err
	}
	m := unknownWorkload.FindStringSubmatch(err.Error())
	if m == nil {
		return err
	}
	var names []string
	for _, w := range experiment.Workloads() {
		names = append(names, w.Name)
	}
	s := nearest(m[1], names)
	if s == "" {
		return err
	}
	return exitError{code: exitCodeOf(err), msg: fmt.Sprintf("%s (did you mean %s?)", err.Error(), s), err: err}
}

func exitCodeOf(err error) int {
	code, _ := exitStatus(err)
	return code
}

// nearest is the candidate closest to s by edit distance when that is at
// most a third of s's length (at least 1, at most 3), or one that s is a
// prefix of; "" when none is near.
func nearest(s string, candidates []string) string {
	best, bestD := "", 1<<30
	limit := min(3, max(1, len([]rune(s))/3))
	for _, c := range candidates {
		d := editDistance(s, c)
		if strings.HasPrefix(c, s) && len(s) >= 2 {
			d = min(d, 1)
		}
		if d < bestD {
			best, bestD = c, d
		}
	}
	if bestD > limit {
		return ""
	}
	return best
}

// editDistance is the optimal-string-alignment distance of a and b
// (runes): insertions, deletions, substitutions and transpositions of two
// neighbours ("rnu" is one from "run").
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}
