package main

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
)

// progress shows what a measuring command is doing, on stderr, always
// (--quiet turns it off): the experiment package writes one line when a
// measurement starts. On a terminal one status line is rewritten in place
// (step count, elapsed time, the current measurement); otherwise, for CI
// logs and tee, a line at most every heartbeat (the steps done, the time,
// what is running) and one at the end, so a log shows the run is alive
// without a line per measurement (TestProgressLogHeartbeat).
type progress struct {
	mu      sync.Mutex
	w       io.Writer
	tty     bool
	now     func() time.Time
	start   time.Time
	cur     string
	steps   int
	partial []byte
	width   int
	lastLog time.Time // when the last heartbeat line was written
}

// heartbeat is the least time between two progress lines in a log.
const heartbeat = 15 * time.Second

func newProgress(w io.Writer, tty bool) *progress {
	p := &progress{w: w, tty: tty, now: time.Now}
	p.start = p.now()
	p.lastLog = p.start
	return p
}

// Write takes the experiment package's "starting X" lines.
func (p *progress) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.partial = append(p.partial, b...)
	for {
		i := bytes.IndexByte(p.partial, '\n')
		if i < 0 {
			break
		}
		line := strings.TrimSpace(string(p.partial[:i]))
		p.partial = p.partial[i+1:]
		if line != "" {
			p.begin(line)
		}
	}
	return len(b), nil
}

func (p *progress) begin(line string) {
	t := p.now()
	p.cur = strings.Join(strings.Fields(line), " ")
	p.steps++
	if p.tty {
		p.status(t)
	} else if t.Sub(p.lastLog) >= heartbeat {
		p.lastLog = t
		fmt.Fprintf(p.w, "wgpu-prof: [%3d | %s] ▸ %s\n", p.steps, clock(t.Sub(p.start)), p.cur)
	}
}

// status rewrites the terminal line: "[ 12 | 0:34] ▸ gpu cosine-single n=8192".
func (p *progress) status(t time.Time) {
	s := fmt.Sprintf("wgpu-prof: [%3d | %s] ▸ %s", p.steps, clock(t.Sub(p.start)), p.cur)
	if r := []rune(s); len(r) > 100 {
		s = string(r[:99]) + "…"
	}
	pad := ""
	if n := len([]rune(s)); n < p.width {
		pad = strings.Repeat(" ", p.width-n)
	}
	p.width = len([]rune(s))
	fmt.Fprintf(p.w, "\r%s%s", s, pad)
}

// Finish ends the last measurement's line and prints the total.
func (p *progress) Finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	t := p.now()
	p.cur = ""
	if p.tty && p.width > 0 {
		fmt.Fprint(p.w, "\r"+strings.Repeat(" ", p.width)+"\r")
	}
	if p.steps > 0 {
		fmt.Fprintf(p.w, "wgpu-prof: %d measurement steps in %s\n", p.steps, clock(t.Sub(p.start)))
	}
}

// clock formats a duration as 4.2s, 3:07 or 1:02:03.
func clock(d time.Duration) string {
	if d < time.Minute {
		return fmt.Sprintf("%.1fs", d.Seconds())
	}
	s := int(d.Round(time.Second).Seconds())
	if s < 3600 {
		return fmt.Sprintf("%d:%02d", s/60, s%60)
	}
	return fmt.Sprintf("%d:%02d:%02d", s/3600, s/60%60, s%60)
}
