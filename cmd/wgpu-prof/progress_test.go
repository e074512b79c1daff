package main

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// In a log (not a terminal) progress writes a line only when a heartbeat
// has passed since the last one, naming the step running, and a total at
// the end: a run of many short measurements stays a few lines long.
func TestProgressLogHeartbeat(t *testing.T) {
	var out bytes.Buffer
	now := time.Unix(0, 0)
	p := newProgress(&out, false)
	p.now = func() time.Time { return now }
	p.start, p.lastLog = now, now
	for i := range 100 { // 100 steps of 1 s each
		now = now.Add(time.Second)
		if _, err := p.Write([]byte("gpu cosine-single n=" + strings.Repeat("9", i%3+1) + "\n")); err != nil {
			t.Fatal(err)
		}
	}
	p.Finish()
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if want := 100/15 + 1; len(lines) != want {
		t.Fatalf("%d lines, want %d (one per %s and the total):\n%s", len(lines), want, heartbeat, out.String())
	}
	if !strings.Contains(lines[0], "[ 15 | 15.0s] ▸ gpu cosine-single") {
		t.Errorf("first heartbeat %q, want step 15 at 15 s naming the step", lines[0])
	}
	if last := lines[len(lines)-1]; last != "wgpu-prof: 100 measurement steps in 1:40" {
		t.Errorf("last line %q", last)
	}
}

// On a terminal the status line is rewritten in place and cleared at the
// end; no heartbeat lines are written.
func TestProgressTerminalRewritesOneLine(t *testing.T) {
	var out bytes.Buffer
	now := time.Unix(0, 0)
	p := newProgress(&out, true)
	p.now = func() time.Time { return now }
	p.start, p.lastLog = now, now
	for range 40 {
		now = now.Add(time.Second)
		p.Write([]byte("cpu hnsw q=16\n"))
	}
	p.Finish()
	s := out.String()
	if n := strings.Count(s, "\n"); n != 1 {
		t.Errorf("%d newlines on a terminal, want 1 (the total):\n%q", n, s)
	}
	if !strings.Contains(s, "\rwgpu-prof: [ 40 | 40.0s] ▸ cpu hnsw q=16") {
		t.Errorf("no status line for step 40 in %q", s)
	}
}
