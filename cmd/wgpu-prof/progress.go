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
// without a line per measurement (TestProgressLogHeartbeat); a clock
// keeps both going while one measurement runs long (TestProgressTick).
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
	since   time.Time // when the current measurement began
	// tickEvery is how often a clock wakes the display while a phase runs
	// without a new line (an autotune, a staircase, an index build): the
	// terminal's status line counts on, a log gets a line at least every
	// heartbeat. 0: no clock (the tests drive the display by hand).
	tickEvery time.Duration
	stop      chan struct{}
	stopOnce  sync.Once
	done      bool // Finish was called
}

// heartbeat is the least time between two progress lines in a log.
const heartbeat = 15 * time.Second

func newProgress(w io.Writer, tty bool) *progress {
	p := &progress{w: w, tty: tty, now: time.Now, tickEvery: time.Second}
	p.start = p.now()
	p.lastLog = p.start
	return p
}

// startClock starts the clock of tickEvery (the commands start it with
// the display; tests drive tick by hand); Finish stops it.
func (p *progress) startClock() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.tickEvery <= 0 || p.stop != nil {
		return
	}
	p.stop = make(chan struct{})
	go func(stop chan struct{}, every time.Duration) {
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				p.tick()
			}
		}
	}(p.stop, p.tickEvery)
}

// tick refreshes the display while a measurement runs: the terminal's
// status line (its clock), or in a log a line saying what still runs and
// for how long, when no line was written for a heartbeat.
func (p *progress) tick() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.done {
		return
	}
	t := p.now()
	if p.cur == "" {
		// Nothing announced yet: opening the adapter, generating or
		// reading the data.
		p.cur, p.since = "preparing (adapter, data)", p.start
	}
	if p.tty {
		p.status(t)
		return
	}
	if t.Sub(p.lastLog) >= heartbeat-p.tickEvery {
		p.lastLog = t
		running := ""
		if d := t.Sub(p.since); d >= p.tickEvery {
			running = " (running for " + clock(d) + ")"
		}
		p.logLine(t, running)
	}
}

// logLine writes a heartbeat line, what runs clipped so that the line
// fits maxErrLine columns (the measurement's params can be long).
func (p *progress) logLine(t time.Time, running string) {
	head := fmt.Sprintf("wgpu-prof: [%3d | %s] ▸ ", p.steps, clock(t.Sub(p.start)))
	cur := p.cur
	if room := maxErrLine - len([]rune(head)) - len([]rune(running)); len([]rune(cur)) > room {
		cur = string([]rune(cur)[:max(room-1, 0)]) + "…"
	}
	fmt.Fprintf(p.w, "%s%s%s\n", head, cur, running)
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
	p.since = t
	p.steps++
	if p.tty {
		p.status(t)
	} else if t.Sub(p.lastLog) >= heartbeat {
		p.lastLog = t
		p.logLine(t, "")
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
	p.stopOnce.Do(func() {
		p.mu.Lock()
		stop := p.stop
		p.mu.Unlock()
		if stop != nil {
			close(stop)
		}
	})
	p.mu.Lock()
	defer p.mu.Unlock()
	t := p.now()
	p.cur, p.done = "", true
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
