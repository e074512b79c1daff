package dispatch_test

import (
	"bufio"
	"compress/gzip"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wgpu-prof/wgpu-prof/dispatch"
)

// recorded reads a recorded hybrid stream (testdata): each request's size
// and both sides' own times of it, replay after replay.
func recorded(t *testing.T, name string) (ns []int, times [][2]time.Duration) {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(z)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			continue
		}
		var n int
		var a, b int64
		if _, err := fmt.Sscan(line, &n, &a, &b); err != nil || n < 1 || a <= 0 || b <= 0 {
			t.Fatalf("%s: bad line %q (%v)", name, line, err)
		}
		ns = append(ns, n)
		times = append(times, [2]time.Duration{time.Duration(a), time.Duration(b)})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return ns, times
}

// Real times, replayed: both sides' own time of every request of ten
// replays of a hybrid run on a busy host (testdata), each side answering
// the dispatcher with its recorded time of the request. threads=2 ran
// about as fast as threads=1 alone for the first replays, then twice as
// slow for the rest. The dispatcher must end within a fiftieth of
// threads=1 alone, with at most a twentieth of its calls probes: probing
// a side found slower every other call for as long as the slow-down
// lasts would fail both bounds on this record.
func TestRecordedBusyHost(t *testing.T) {
	ns, times := recorded(t, "busy-threads2.txt.gz")
	if len(ns) != 20000 {
		t.Fatalf("%d requests recorded, want 20000", len(ns))
	}
	cur := 0
	side := func(s int) dispatch.Func {
		return func(int) (time.Duration, error) { return times[cur][s], nil }
	}
	prof := prof2{Models: [2]dispatch.Model{dispatch.Linear(272e-9, 39.7e-9), dispatch.Linear(439e-9, 23.5e-9)}, Crossover: math.Sqrt(15 * 16)}
	d, err := newP(side(0), side(1), [2]string{"threads=1", "threads=2"}, prof, dispatch.Config{})
	if err != nil {
		t.Fatal(err)
	}
	var total float64
	var single [2]float64
	probes := 0
	for cur = range ns {
		o, err := d.Do(ns[cur])
		if err != nil {
			t.Fatal(err)
		}
		total += o.Took.Seconds()
		if o.Probe {
			probes++
		}
		single[0] += times[cur][0].Seconds()
		single[1] += times[cur][1].Seconds()
	}
	best := math.Min(single[0], single[1])
	t.Logf("adaptive %.3f ms, threads=1 %.3f ms, threads=2 %.3f ms: %.3f× the better; %d probes of %d calls", total*1e3, single[0]*1e3, single[1]*1e3, total/best, probes, len(ns))
	if total > 1.02*best || probes > len(ns)*5/100 {
		t.Errorf("adaptive %.3f× the better side, %d probes in %d calls; want ≤ 1.02× and ≤ 5%%", total/best, probes, len(ns))
	}
}
