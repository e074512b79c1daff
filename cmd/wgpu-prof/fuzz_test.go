package main

import (
	"math"
	"strings"
	"testing"
)

// FuzzParseInts: the batch, size and tile lists never panic, and what they
// accept is a list of positive integers.
func FuzzParseInts(f *testing.F) {
	for _, s := range []string{"1,2,4", "", " 3 , 5", "1,,2", "-1", "9999999999999999999999", "0x10", "1e3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := parseInts("--batches", s)
		if err != nil {
			if !strings.Contains(err.Error(), "--batches") {
				t.Fatalf("error does not name the flag: %v", err)
			}
			return
		}
		for _, x := range v {
			if x <= 0 {
				t.Fatalf("%q accepted %d", s, x)
			}
		}
	})
}

// FuzzParsePercent: thresholds never panic, and an accepted one is a
// finite fraction in [0, 10).
func FuzzParsePercent(f *testing.F) {
	for _, s := range []string{"5%", "0.05", "NaN", "Inf", "-1", "1e400", "%", "  7 %", "0x1p-3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := parsePercent(s)
		if err != nil {
			return
		}
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 || v >= 10 {
			t.Fatalf("%q accepted as %v", s, v)
		}
	})
}
