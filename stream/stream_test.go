package stream

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"
)

func TestGoldFirstRun(t *testing.T) {
	// One Classic run by hand: c = 0.1, b = 0.04, c = 0.14, a = 0.04 + 0.4·0.14.
	a, b, c, s := Gold[float64](1, 10)
	wantA := 0.04 + 0.4*0.14
	if math.Abs(a-wantA) > 1e-15 || math.Abs(b-0.04) > 1e-15 || math.Abs(c-0.14) > 1e-15 || math.Abs(s-a*b*10) > 1e-12 {
		t.Fatalf("Gold(1) = %v %v %v %v", a, b, c, s)
	}
}

func fill[T Float](n int, v T) []T {
	x := make([]T, n)
	for i := range x {
		x[i] = v
	}
	return x
}

func TestCheck(t *testing.T) {
	const n, times = 1000, 100
	ga, gb, gc, gs := Gold[float32](times, n)
	a, b, c := fill(n, ga), fill(n, gb), fill(n, gc)
	if err := Check(times, a, b, c, gs); err != nil {
		t.Fatalf("gold arrays: %v", err)
	}
	for _, bad := range []float32{ga * 1.001, float32(math.NaN()), float32(math.Inf(1))} {
		a[n-1] = bad
		if err := Check(times, a, b, c, gs); err == nil || !strings.Contains(err.Error(), "a[999]") {
			t.Errorf("a[999]=%v: err = %v", bad, err)
		}
		a[n-1] = ga
	}
	if err := Check(times, a, b, c, float32(math.NaN())); err == nil {
		t.Error("NaN sum passed")
	}
	// BabelStream's float tolerance on the sum is 10^7 epsilon, about 1.19
	// relative: a sum of the wrong sign still fails.
	if err := Check(times, a, b, c, -gs); err == nil {
		t.Error("sum -gold passed")
	}
	if err := Check(times, a, b[:1], c, gs); err == nil {
		t.Error("mismatched lengths passed")
	}
	// float64 uses its own epsilon: a float32-rounded value fails.
	da, db, dc, ds := Gold[float64](times, n)
	if err := Check(times, fill(n, da), fill(n, db), fill(n, dc), ds); err != nil {
		t.Fatalf("float64 gold: %v", err)
	}
	if err := Check(times, fill(n, float64(float32(da))*(1+1e-9)), fill(n, db), fill(n, dc), ds); err == nil {
		t.Error("float64: value off by 1e-9 relative passed")
	}
}

func TestSummarizeAndCSV(t *testing.T) {
	times := []time.Duration{time.Second, 2 * time.Millisecond, 4 * time.Millisecond, 3 * time.Millisecond}
	st, err := Summarize(Triad, times, 1<<20, 4)
	if err != nil {
		t.Fatal(err)
	}
	if st.Min != 2*time.Millisecond || st.Max != 4*time.Millisecond || st.Avg != 3*time.Millisecond {
		t.Fatalf("stats %+v: the warm-up run must be excluded", st)
	}
	if want := 3 * 4 * float64(1<<20) / 0.002 / 1e6; math.Abs(st.MBytesPerSec-want) > 1e-9*want {
		t.Fatalf("MB/s %v want %v", st.MBytesPerSec, want)
	}
	if _, err := Summarize(Copy, times[:1], 1, 4); err == nil {
		t.Error("one run accepted")
	}
}

func TestValidate(t *testing.T) {
	for _, c := range []struct {
		o     Opts
		field string
	}{{Opts{0, 100}, "ArraySize"}, {Opts{-5, 100}, "ArraySize"}, {Opts{MaxArraySize + 1, 100}, "ArraySize"}, {Opts{10, 1}, "NumTimes"}} {
		err := c.o.Validate()
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Field != c.field {
			t.Errorf("%+v: err = %v, want a *FieldError for %s", c.o, err, c.field)
			continue
		}
		// A library caller sees the field's name, never a command-line flag.
		if msg := err.Error(); !strings.Contains(msg, c.field) || strings.Contains(msg, "--") {
			t.Errorf("%+v: %q", c.o, msg)
		}
	}
	if err := (Opts{1, 2}).Validate(); err != nil {
		t.Error(err)
	}
}
