// Command _tinycall compares the tiny GPU call through wgpu-prof's Go API
// (compute.Open, compute.TinyCall: one submit and one wait per call) with
// the same call made directly through wgpu-native's webgpu.h from C
// (peer.c, linked in), in one process on the same adapter, blocks of calls
// of the two interleaved so drift and load hit both alike. It links
// third_party/wgpu-native (scripts/setup.sh), so it is built by name, not
// by ./...:
//
//	go run ./bench/_tinycall [-rounds R] [-block B] [-wait MODE,...] [K ...]
//	go run ./bench/_tinycall -only go [-calls N] [-wait MODE] K ...
//	go run ./bench/_tinycall -serve [-wait MODE]    (bench/callpath.py)
//	go run ./bench/_tinycall -serve-peer            (bench/callpath.py --c-in-go)
//
// A round times, for each K, a block of B calls of each stack back to back
// (the order alternating from round to round) and keeps each block's
// median; the report gives, per K, each stack's median over rounds and
// the ratio Go / C as the median of the rounds' ratios with their range.
// -wait adds Go stacks with other wait modes (spin, helper, caller,
// locked) on the same device. Every call's value is checked. -serve
// answers "K N" lines on stdin with "<median_us> <min_us>" of N timed
// calls of the Go API, as bench/tinycall.c and tinycall.py do; -serve-peer
// answers them with calls of the C peer made from this Go process (one cgo
// crossing per call, no Go API device open): the Go process's own share
// of a gap between the Go API and the C program.
package main

/*
#cgo CFLAGS: -I${SRCDIR}/../../third_party/wgpu-native/include
#cgo LDFLAGS: -L${SRCDIR}/../../third_party/wgpu-native/lib -lwgpu_native -Wl,-rpath,${SRCDIR}/../../third_party/wgpu-native/lib
#include <stdlib.h>
#include "peer.h"
*/
import "C"

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/wgpu-prof/wgpu-prof/compute"
	"github.com/wgpu-prof/wgpu-prof/compute/wgpu"
	"github.com/wgpu-prof/wgpu-prof/wgsl"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "tinycall:", err)
		os.Exit(1)
	}
}

var modes = map[string]wgpu.WaitMode{"auto": wgpu.WaitAuto, "spin": wgpu.WaitSpinThenBlock, "helper": wgpu.WaitBlockHelper, "caller": wgpu.WaitBlockCaller, "locked": wgpu.WaitBlockLocked}

// stack is one way of making the tiny call.
type stack struct {
	name string
	call func(k int) error
}

func run() error {
	rounds := flag.Int("rounds", 40, "interleaved rounds")
	block := flag.Int("block", 25, "calls per stack, K and round (short blocks keep load drift out of the ratio)")
	serve := flag.Bool("serve", false, `answer "K N" lines on stdin with the median and minimum µs of N timed Go API calls`)
	servePeer := flag.Bool("serve-peer", false, `as -serve, with calls of the C peer from this Go process`)
	only := flag.String("only", "", `"go": time the Go API alone, printing "K <k> median_us <m> min_us <lo> calls <n>"`)
	calls := flag.Int("calls", 1500, "with -only: timed calls per K")
	noTS := flag.Bool("no-timestamps", false, "open the Go side's device without the timestamp-query feature, as the C peer's")
	wait := flag.String("wait", "", "extra Go stacks: wait modes, comma-separated (auto, spin, helper, caller, locked)")
	flag.Parse()
	if *rounds < 1 || *block < 1 || *calls < 1 {
		return fmt.Errorf("-rounds, -block and -calls must be positive")
	}
	ks, err := parseKs(flag.Args())
	if err != nil {
		return err
	}
	if *servePeer {
		// The binding's loader provides webgpu.h's symbols in this
		// binary (peer.c calls through it, as in the in-process run).
		if err := wgpu.LoadLibrary(); err != nil {
			return err
		}
		p, err := openPeer()
		if err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "tinycall: adapter %s (C peer in a Go process)\n", C.GoString(C.peer_adapter(p)))
		return serveCalls(peerStack(p))
	}
	d, err := compute.Open(context.Background(), compute.Options{Device: wgpu.DeviceOptions{NoTimestamps: *noTS}})
	if err != nil {
		return err
	}
	defer d.Release()
	fmt.Fprintf(os.Stderr, "tinycall: adapter %s (%s)\n", d.Info.Name, d.Info.Backend)
	tc, err := compute.NewTinyCall(d.Device)
	if err != nil {
		return err
	}
	defer tc.Release()
	goStack := stack{"go", tc.Call}
	if *serve || *only == "go" {
		if *wait != "" {
			mode, ok := modes[*wait]
			if !ok {
				return fmt.Errorf("-wait %q: with -only, one of auto, spin, helper, caller, locked", *wait)
			}
			d.SetWaitMode(mode)
		}
		if *serve {
			return serveCalls(goStack)
		}
		return timeAlone(goStack, ks, *calls)
	} else if *only != "" {
		return fmt.Errorf("-only %q: want go", *only)
	}

	return compareInProcess(d, tc, *wait, ks, *rounds, *block)
}

// parseKs reads the K arguments (default 1, 2, 4 … 64).
func parseKs(args []string) ([]int, error) {
	if len(args) == 0 {
		return []int{1, 2, 4, 8, 16, 32, 64}, nil
	}
	var ks []int
	for _, a := range args {
		k, err := strconv.Atoi(a)
		if err != nil || k < 1 || k > compute.MaxTinyDispatches {
			return nil, fmt.Errorf("K %q: must be an integer in 1..%d", a, compute.MaxTinyDispatches)
		}
		ks = append(ks, k)
	}
	return ks, nil
}

// compareInProcess times the Go API, the C peer and the Go API with each
// extra wait mode in this process, blocks interleaved, and prints the
// table.
func compareInProcess(d *compute.Device, tc *compute.TinyCall, wait string, ks []int, rounds, block int) error {
	p, err := openPeer()
	if err != nil {
		return err
	}
	fmt.Printf("Go API: %s (%s); C peer: %s\n", d.Info.Name, d.Info.Backend, C.GoString(C.peer_adapter(p)))
	stacks := []stack{{"go", tc.Call}, peerStack(p)}
	for _, m := range strings.Split(wait, ",") {
		if m == "" {
			continue
		}
		mode, ok := modes[m]
		if !ok {
			return fmt.Errorf("-wait %q: want spin, helper, caller or locked", m)
		}
		stacks = append(stacks, stack{"go-" + m, func(k int) error {
			d.SetWaitMode(mode)
			defer d.SetWaitMode(wgpu.WaitAuto)
			return tc.Call(k)
		}})
	}
	med, err := interleave(stacks, ks, rounds, block)
	if err != nil {
		return err
	}
	printTable(stacks, ks, med, rounds, block)
	return nil
}

// interleave times, round after round, a block of calls of every stack
// at every K, the stacks' order rotating; med[s][ki] holds stack s's
// block medians at ks[ki], one per round (round -1 warms up, not kept).
func interleave(stacks []stack, ks []int, rounds, block int) ([][][]float64, error) {
	med := make([][][]float64, len(stacks))
	for s := range med {
		med[s] = make([][]float64, len(ks))
	}
	t := make([]float64, block)
	for r := -1; r < rounds; r++ {
		for ki, k := range ks {
			for i := range stacks {
				s := (i + max(r, 0)) % len(stacks)
				for j := range t {
					t0 := time.Now()
					if err := stacks[s].call(k); err != nil {
						return nil, err
					}
					t[j] = float64(time.Since(t0).Nanoseconds()) / 1e3
				}
				if r >= 0 {
					slices.Sort(t)
					med[s][ki] = append(med[s][ki], t[len(t)/2])
				}
			}
		}
	}
	return med, nil
}

// printTable prints each stack's median per K and the ratios over C.
func printTable(stacks []stack, ks []int, med [][][]float64, rounds, block int) {
	fmt.Printf("tiny call, µs per call: median over %d interleaved rounds of %d-call blocks' medians\n", rounds, block)
	fmt.Printf("%3s", "K")
	for _, s := range stacks {
		fmt.Printf("%10s", s.name)
	}
	fmt.Println("   Go / C: median [range] of rounds")
	for ki, k := range ks {
		fmt.Printf("%3d", k)
		for s := range stacks {
			fmt.Printf("%10.1f", median(med[s][ki]))
		}
		fmt.Printf("   %s\n", ratio(med[0][ki], med[1][ki]))
	}
	for s := 2; s < len(stacks); s++ {
		fmt.Printf("%s / C:", stacks[s].name)
		for ki, k := range ks {
			fmt.Printf(" K=%d %s", k, ratio(med[s][ki], med[1][ki]))
		}
		fmt.Println()
	}
}

// openPeer opens the C peer's device and pipeline.
func openPeer() (*C.peer, error) {
	src := C.CString(wgsl.MustSource("latency_tiny"))
	defer C.free(unsafe.Pointer(src))
	p := C.peer_open(src)
	if p == nil {
		return nil, fmt.Errorf("the C peer found no adapter, device or pipeline")
	}
	return p, nil
}

// peerStack is the tiny call through the C peer.
func peerStack(p *C.peer) stack {
	return stack{"c", func(k int) error {
		if rc := C.peer_call(p, C.int(k)); rc != 0 {
			return fmt.Errorf("C peer: call failed (%d)", rc)
		}
		return nil
	}}
}

// serveCalls answers each "K N" line of stdin with the median and the
// minimum of N timed calls of s, in µs.
func serveCalls(s stack) error {
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		var k, n int
		if _, err := fmt.Sscan(sc.Text(), &k, &n); err != nil || k < 1 || k > compute.MaxTinyDispatches || n < 1 {
			return fmt.Errorf("serve: line %q: want K N with K in 1..%d and N ≥ 1", sc.Text(), compute.MaxTinyDispatches)
		}
		t := make([]float64, n)
		for j := range t {
			t0 := time.Now()
			if err := s.call(k); err != nil {
				return err
			}
			t[j] = float64(time.Since(t0).Nanoseconds()) / 1e3
		}
		slices.Sort(t)
		fmt.Printf("%.3f %.3f\n", t[n/2], t[0])
	}
	return sc.Err()
}

// timeAlone times calls calls of s per K after calls/4 warm-up calls.
func timeAlone(s stack, ks []int, calls int) error {
	t := make([]float64, calls)
	for _, k := range ks {
		for i := -(calls/4 + 1); i < calls; i++ {
			t0 := time.Now()
			if err := s.call(k); err != nil {
				return err
			}
			if i >= 0 {
				t[i] = float64(time.Since(t0).Nanoseconds()) / 1e3
			}
		}
		slices.Sort(t)
		fmt.Printf("K %d median_us %.2f min_us %.2f calls %d\n", k, t[len(t)/2], t[0], len(t))
	}
	return nil
}

func median(x []float64) float64 {
	s := slices.Clone(x)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	return s[len(s)/2]
}

// ratio is the median of the per-round ratios a/b with their range.
func ratio(a, b []float64) string {
	r := make([]float64, len(a))
	for i := range a {
		r[i] = a[i] / b[i]
	}
	slices.Sort(r)
	return fmt.Sprintf("%.3f [%.3f–%.3f]", median(r), r[0], r[len(r)-1])
}
