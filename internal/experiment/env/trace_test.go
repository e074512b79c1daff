package env

import (
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/wgpu-prof/wgpu-prof/compute"
	"github.com/wgpu-prof/wgpu-prof/compute/wgpu"
	"github.com/wgpu-prof/wgpu-prof/internal/report"
)

// fakeCalls records calls whose GPU clock runs at 2 ticks per ns from an
// arbitrary origin, each pass starting a random latency after its call
// was issued: Trace must place every pass inside its call, with no two
// passes overlapping on the GPU track.
func TestTracePlacesPassesOnTheHostClock(t *testing.T) {
	e := &Env{tracing: true, traceStart: time.Unix(1000, 0)}
	const origin = 5_000_000_000 // GPU tick at host time traceStart
	host := time.Duration(0)
	for i := 0; i < 200; i++ {
		host += time.Duration(50+i%7) * time.Microsecond // idle between calls
		lat := time.Duration(10+(i*37)%40) * time.Microsecond
		passes := []wgpu.PassTime{}
		at := host + lat
		for p := 0; p < 1+i%3; p++ {
			d := time.Duration(20+(i*13+p)%90) * time.Microsecond
			b := uint64(origin + 2*int64(at))
			passes = append(passes, wgpu.PassTime{Begin: b, End: b + uint64(2*int64(d)), Duration: d, Valid: true})
			at += d + 3*time.Microsecond
		}
		e2e := at - host + 15*time.Microsecond
		e.recordCall("k", e.traceStart.Add(host), compute.Timing{Passes: passes, EndToEnd: e2e})
		host += e2e
	}
	evs := e.Trace()
	var calls, pass []report.TraceEvent
	for _, ev := range evs {
		switch {
		case ev.Instant:
		case ev.Tid == report.TraceTidGPU:
			pass = append(pass, ev)
		case ev.Tid == report.TraceTidHost:
			calls = append(calls, ev)
		}
	}
	if len(calls) != 200 || len(pass) < 200 {
		t.Fatalf("%d calls, %d passes", len(calls), len(pass))
	}
	assertNoOverlap(t, pass)
	// Every pass lies within some call.
	for _, p := range pass {
		i := sort.Search(len(calls), func(i int) bool { return calls[i].Start+calls[i].Dur >= p.Start+p.Dur })
		if i == len(calls) || p.Start < calls[i].Start {
			t.Fatalf("pass at %v+%v lies outside every call", p.Start, p.Dur)
		}
	}
}

func assertNoOverlap(t *testing.T, evs []report.TraceEvent) {
	t.Helper()
	sort.Slice(evs, func(i, j int) bool { return evs[i].Start < evs[j].Start })
	for i := 1; i < len(evs); i++ {
		if prev := evs[i-1]; prev.Start+prev.Dur > evs[i].Start {
			t.Fatalf("GPU passes overlap: %q at %v+%v and %q at %v", prev.Name, prev.Start, prev.Dur, evs[i].Name, evs[i].Start)
		}
	}
}

func TestTraceCapIsMarked(t *testing.T) {
	e := &Env{tracing: true, traceStart: time.Now()}
	p := []wgpu.PassTime{{Begin: 10, End: 20, Duration: 10, Valid: true}}
	for i := 0; i < maxTraceEvents; i++ {
		e.recordCall("k", e.traceStart, compute.Timing{Passes: p, EndToEnd: time.Microsecond})
	}
	evs := e.Trace()
	last := evs[len(evs)-1]
	if !last.Instant || !strings.Contains(last.Name, "TRACE CAPPED") || last.Args["dropped_calls"] != maxTraceEvents/2 {
		t.Fatalf("last event = %+v, want a cap marker counting %d dropped calls", last, maxTraceEvents/2)
	}
}
