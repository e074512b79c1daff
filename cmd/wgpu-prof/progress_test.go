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

// A measurement that runs long without a new line (an autotune, a
// staircase) still gets a line in a log at least every heartbeat, saying
// what runs and for how long; on a terminal the status line's clock runs
// on; after Finish the clock writes nothing.
func TestProgressTick(t *testing.T) {
	var out bytes.Buffer
	now := time.Unix(0, 0)
	p := newProgress(&out, false)
	p.now = func() time.Time { return now }
	p.start, p.lastLog = now, now
	p.tick() // nothing announced, nothing due yet
	if out.Len() != 0 {
		t.Fatalf("tick before a heartbeat wrote %q", out.String())
	}
	now = now.Add(heartbeat)
	p.tick()
	if !strings.Contains(out.String(), "▸ preparing") {
		t.Fatalf("no line while preparing past a heartbeat: %q", out.String())
	}
	p.Write([]byte("gpu autotune cosine-batch\n"))
	var times []time.Duration
	for i := range 200 { // 200 s of one measurement, a tick a second
		now = now.Add(time.Second)
		before := out.Len()
		p.tick()
		if out.Len() > before {
			times = append(times, time.Duration(i+1)*time.Second)
		}
	}
	if len(times) < 200/15 {
		t.Fatalf("%d lines in 200 s of one measurement, want one at least every %s:\n%s", len(times), heartbeat, out.String())
	}
	for i := 1; i < len(times); i++ {
		if gap := times[i] - times[i-1]; gap > heartbeat {
			t.Errorf("gap of %s between two lines (> %s)", gap, heartbeat)
		}
	}
	if !strings.Contains(out.String(), "▸ gpu autotune cosine-batch (running for") {
		t.Errorf("the tick line does not name the measurement and its time: %q", out.String())
	}
	p.Finish()
	n := out.Len()
	now = now.Add(time.Minute)
	p.tick()
	if out.Len() != n {
		t.Errorf("tick after Finish wrote %q", out.String()[n:])
	}

	var term bytes.Buffer
	q := newProgress(&term, true)
	q.now = func() time.Time { return now }
	q.start, q.lastLog = now, now
	q.Write([]byte("cpu staircase\n"))
	now = now.Add(3 * time.Second)
	q.tick()
	if !strings.Contains(term.String(), "[  1 | 3.0s] ▸ cpu staircase") {
		t.Errorf("terminal status line's clock did not run on: %q", term.String())
	}
	q.Finish()
}
