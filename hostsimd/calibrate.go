package hostsimd

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/klauspost/cpuid/v2"
	"github.com/wgpu-prof/wgpu-prof/machine"
	"github.com/wgpu-prof/wgpu-prof/timing"
	"github.com/wgpu-prof/wgpu-prof/timing/clock"
)

// Level choice by measurement.
//
// Unless its Host fixes a level, CosineSingle runs, for each shape class
// (cache-resident or DRAM), the level and row walk that measured fastest
// on this CPU: every level this CPU has, with each row walk that level has
// (dotNormRows and dotNormSeq where a level has them, and dotNorm per row,
// each with and without software prefetch), timed interleaved on one
// cache-resident and one DRAM-sized buffer. The same
// calibration measures the break-even between one thread and all threads
// (MinBytesPerThread). The result is cached per CPU model, thread count
// and calibration version in os.UserCacheDir()/wgpu-prof/, so only the
// first run on a machine pays for it (about a second). HOSTSIMD_CALIBRATE=off
// skips it and uses the highest level with its rows3+prefetch walk;
// HOSTSIMD_CALIBRATE=fresh measures again and rewrites the cache.

// calibVersion changes whenever the candidates or the method change, so
// stale cache files are not used.
const calibVersion = 9 // 9: the DRAM class over DRAMWorkingSet within the memory budget; 8: over DRAMWorkingSet (≥ 8× L3); 7: DRAM candidates on huge pages (HugeFloats)

// Class names of CosineSingle shapes.
const (
	ClassResident = "resident"
	ClassDRAM     = "dram"
)

// Candidate is one measured (level, row walk) pair.
type Candidate struct {
	Level string  `json:"level"`
	Path  string  `json:"path"`
	GBs   float64 `json:"gbs"` // median read rate of the candidate
}

// Choice is the fastest candidate of a shape class, with all candidates.
type Choice struct {
	Level      string      `json:"level"`
	Path       string      `json:"path"`
	GBs        float64     `json:"gbs"`
	Bytes      int64       `json:"bytes"` // size of the calibration buffer
	Candidates []Candidate `json:"candidates"`
}

// Calibration is the result of Calibrate.
type Calibration struct {
	Version int    `json:"version"`
	CPU     string `json:"cpu"`
	Threads int    `json:"threads"`
	// Single maps ClassResident and ClassDRAM to CosineSingle's choice.
	Single map[string]Choice `json:"single"`
	// MinBytesPerThread is the measured one-vs-all-threads break-even
	// divided by the thread count at the break-even (2).
	MinBytesPerThread int64  `json:"min_bytes_per_thread"`
	Crossover         string `json:"crossover"` // how it was found
	When              string `json:"when"`
	// Source says where this calibration came from: "measured", "cache
	// <file>" or "rule (...)"; not stored.
	Source string `json:"-"`
	// impls caches Single's choices for the resident and DRAM classes
	// resolved to kernels, set when the calibration is installed, so that
	// CosineSingle does not parse them on every call.
	impls [2]*singleImpl
}

// The calibration in use: a measurement of this machine loaded or taken
// once per process (Calibrate), not a setting; the settings are a Host's.
var (
	calibMu  sync.Mutex
	calibCur atomic.Pointer[Calibration]
)

// cpuKey names this CPU model for the cache file.
func cpuKey() string {
	c := cpuid.CPU
	return fmt.Sprintf("%s family %d model %d (%s)", strings.TrimSpace(c.BrandName), c.Family, c.Model, c.VendorString)
}

// residentClass reports whether a buffer of bytes counts as
// cache-resident: whether the one level rule (machine.Machine.LevelOf,
// with no staircase measured: half a level's cpuid capacity) places it in
// a cache level on the default thread count (TestResidentClassIsTheLevelRule).
func residentClass(bytes int64) bool {
	return machine.Current().LevelOf(float64(bytes), defaultThreads, nil) != machine.DRAM
}

// ClassOf returns ClassResident or ClassDRAM for a buffer of bytes.
func ClassOf(bytes int64) string {
	if residentClass(bytes) {
		return ClassResident
	}
	return ClassDRAM
}

func calibFile() (string, error) {
	dir, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	key := regexp.MustCompile(`[^A-Za-z0-9]+`).ReplaceAllString(cpuKey(), "-")
	return filepath.Join(dir, "wgpu-prof", fmt.Sprintf("hostsimd-v%d-%s-t%d.json", calibVersion, strings.Trim(key, "-"), defaultThreads)), nil
}

// ruleCalibration is the choice without measurement.
func ruleCalibration(why string) *Calibration {
	top := defaultKernels()
	ch := Choice{Level: top.level.String(), Path: singlePaths(top)[0].String()}
	return &Calibration{
		Version: calibVersion, CPU: cpuKey(), Threads: defaultThreads,
		Single:            map[string]Choice{ClassResident: ch, ClassDRAM: ch},
		MinBytesPerThread: defaultMinBytesPerThread, Crossover: "default",
		Source: "rule (" + why + "): highest level, its first row walk",
	}
}

// CurrentCalibration returns the calibration in use, loading it from the
// cache or measuring it (Calibrate) first if none is loaded yet.
func CurrentCalibration() *Calibration {
	if c := calibCur.Load(); c != nil {
		return c
	}
	calibMu.Lock()
	defer calibMu.Unlock()
	if c := calibCur.Load(); c != nil {
		return c
	}
	c, _ := calibrateLocked(os.Getenv("HOSTSIMD_CALIBRATE"), nil)
	return c
}

// CurrentCalibrationUntil is CurrentCalibration with stop polled between
// the timed rounds of a calibration it measures: once stop returns true
// it returns ErrStopped and installs nothing (the next call measures
// again).
func CurrentCalibrationUntil(stop func() bool) (*Calibration, error) {
	if c := calibCur.Load(); c != nil {
		return c, nil
	}
	calibMu.Lock()
	defer calibMu.Unlock()
	if c := calibCur.Load(); c != nil {
		return c, nil
	}
	c, err := calibrateLocked(os.Getenv("HOSTSIMD_CALIBRATE"), stop)
	if errors.Is(err, ErrStopped) {
		return nil, err
	}
	return c, nil
}

// Calibrate measures the choice (mode "fresh") or loads it from the cache
// file when one matches this CPU, thread count and version (mode ""),
// installs it and returns it. Mode "off" installs the rule without
// measuring. An error writing the cache file is returned with the (still
// installed) measured calibration.
func Calibrate(mode string) (*Calibration, error) {
	calibMu.Lock()
	defer calibMu.Unlock()
	return calibrateLocked(mode, nil)
}

// calibrateLocked is Calibrate; stop, when set, ends a measurement early
// with ErrStopped, nothing installed.
func calibrateLocked(mode string, stop func() bool) (*Calibration, error) {
	install := func(c *Calibration) *Calibration {
		for i, cl := range []string{ClassResident, ClassDRAM} {
			if k, p, err := c.Single[cl].impl(); err == nil {
				c.impls[i] = &singleImpl{k, p}
			}
		}
		calibCur.Store(c)
		return c
	}
	switch mode {
	case "off":
		return install(ruleCalibration("HOSTSIMD_CALIBRATE=off")), nil
	case "", "fresh":
	default:
		return install(ruleCalibration("unknown mode")), fmt.Errorf("hostsimd: Calibrate: unknown mode %q (want \"\", \"fresh\" or \"off\")", mode)
	}
	file, ferr := calibFile()
	if mode == "" && ferr == nil {
		if b, err := os.ReadFile(file); err == nil {
			var c Calibration
			if json.Unmarshal(b, &c) == nil && c.valid() {
				c.Source = "cache " + file
				return install(&c), nil
			}
		}
	}
	c, err := measureCalibration(stop)
	if err != nil {
		return nil, err
	}
	install(c)
	if ferr != nil {
		return c, fmt.Errorf("hostsimd: Calibrate: cache dir: %w", ferr)
	}
	b, _ := json.MarshalIndent(c, "", "  ")
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return c, fmt.Errorf("hostsimd: Calibrate: %w", err)
	}
	tmp := file + fmt.Sprintf(".%d.tmp", os.Getpid())
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return c, fmt.Errorf("hostsimd: Calibrate: %w", err)
	}
	if err := os.Rename(tmp, file); err != nil {
		return c, fmt.Errorf("hostsimd: Calibrate: %w", err)
	}
	return c, nil
}

// valid checks a loaded calibration against this CPU, build and version.
func (c *Calibration) valid() bool {
	if c.Version != calibVersion || c.CPU != cpuKey() || c.Threads != defaultThreads || c.MinBytesPerThread <= 0 {
		return false
	}
	for _, cl := range []string{ClassResident, ClassDRAM} {
		ch, ok := c.Single[cl]
		if !ok {
			return false
		}
		if _, _, err := ch.impl(); err != nil {
			return false
		}
	}
	return true
}

func (ch Choice) impl() (*kernelTable, singlePath, error) {
	l, err := ParseLevel(ch.Level)
	if err != nil {
		return nil, 0, err
	}
	k, ok := tables[l]
	if !ok {
		return nil, 0, errors.New("level not available")
	}
	for p := range singlePath(len(singlePathNames)) {
		if hasSinglePath(k, p) && p.String() == ch.Path {
			return k, p, nil
		}
	}
	return nil, 0, fmt.Errorf("level %v has no path %q", l, ch.Path)
}

// singleImplFor returns what CosineSingle runs over bytes of rows: the
// calibration's choice for the class, or, with a fixed level, that
// level's fastest measured row walk.
func (r *run) singleImplFor(bytes int64) singleImpl {
	k := r.k
	if r.fixed {
		if c := calibCur.Load(); c != nil {
			best := -1.0
			path := firstSinglePath(k)
			for _, cd := range c.Single[ClassOf(bytes)].Candidates {
				for p := range singlePath(len(singlePathNames)) {
					if hasSinglePath(k, p) && cd.Level == k.level.String() && cd.Path == p.String() && cd.GBs > best {
						best, path = cd.GBs, p
					}
				}
			}
			return singleImpl{k, path}
		}
		return singleImpl{k, firstSinglePath(k)}
	}
	c := CurrentCalibration()
	cl, i := ClassDRAM, 1
	if residentClass(bytes) {
		cl, i = ClassResident, 0
	}
	if im := c.impls[i]; im != nil {
		return *im
	}
	if kk, p, err := c.Single[cl].impl(); err == nil {
		return singleImpl{kk, p}
	}
	return singleImpl{k, firstSinglePath(k)}
}

// SingleChoice says which level and row walk CosineSingle run with h
// takes over bytes of rows, and why.
func (h Host) SingleChoice(bytes int64) (level Level, path, why string) {
	r := h.mustResolve()
	im := r.singleImplFor(bytes)
	if r.fixed {
		return im.k.level, im.path.String(), "level fixed by the Host; row walk: fastest measured for that level"
	}
	c := CurrentCalibration()
	ch := c.Single[ClassOf(bytes)]
	var alts []string
	for _, cd := range ch.Candidates {
		alts = append(alts, fmt.Sprintf("%s/%s %.1f", cd.Level, cd.Path, cd.GBs))
	}
	why = fmt.Sprintf("fastest for %s rows on this CPU (%s GB/s; %s)", ClassOf(bytes), strings.Join(alts, ", "), c.Source)
	if len(ch.Candidates) == 0 {
		why = c.Source
	}
	return im.k.level, im.path.String(), why
}

// measureCalibration times every (level, row walk) of CosineSingle on a
// cache-resident and a DRAM-sized buffer, interleaved round by round, and
// the one-vs-all-threads break-even; stop, when set, is polled between
// timed rounds (ErrStopped).
func measureCalibration(stop func() bool) (*Calibration, error) {
	stopped := func() bool { return stop != nil && stop() }
	const d = calibDim
	c := &Calibration{Version: calibVersion, CPU: cpuKey(), Threads: defaultThreads,
		Single: map[string]Choice{}, When: time.Now().UTC().Format(time.RFC3339), Source: "measured"}
	// The resident buffer well inside the level rule's reach of the
	// largest cache (1 … 8 MiB).
	m := machine.Current()
	resBytes := min(max(m.LargestCache(defaultThreads)/8, 1<<20), 8<<20)
	dramBytes := DRAMWorkingSet(defaultThreads)
	rng := rand.New(rand.NewPCG(7, 11))
	q := make([]float32, d)
	for i := range q {
		q[i] = rng.Float32()*2 - 1
	}
	cands := calibCandidates()
	for _, cl := range []struct {
		name  string
		bytes int64
		reps  int
	}{{ClassResident, resBytes, 20}, {ClassDRAM, dramBytes, 1}} {
		ch, err := measureClass(cands, q, calibRows(cl.bytes), cl.reps, stopped)
		if err != nil {
			return nil, err
		}
		c.Single[cl.name] = ch
	}
	if stopped() {
		return nil, ErrStopped
	}
	c.MinBytesPerThread, c.Crossover = measureThreadBreakEven(q, calibRows(resBytes), d, c.Single[ClassResident], stopped)
	if stopped() {
		return nil, ErrStopped
	}
	return c, nil
}

// calibDim is the row length the calibration scores.
const calibDim = 768

// calibRows returns whole random rows of calibDim floats, at least bytes
// of them, each part written by the thread that will read it.
func calibRows(bytes int64) []float32 {
	const d = calibDim
	n := int((bytes + 4*d - 1) / (4 * d))
	v := HugeFloats(n * d)
	SplitRows(n, d, func(lo, hi int) {
		r := rand.New(rand.NewPCG(uint64(lo), 3))
		for i := lo * d; i < hi*d; i++ {
			v[i] = r.Float32()*2 - 1
		}
	})
	return v
}

// calibCand is one single-query implementation the calibration times,
// with its times per call, s.
type calibCand struct {
	im singleImpl
	t  []float64
}

// calibCandidates are every path of every available level (Generic only
// where it is the one level).
func calibCandidates() []*calibCand {
	var cands []*calibCand
	for _, l := range Available() {
		if l == Generic && len(Available()) > 1 {
			continue
		}
		for _, p := range singlePaths(tables[l]) {
			cands = append(cands, &calibCand{im: singleImpl{tables[l], p}})
		}
	}
	return cands
}

// measureClass times every candidate over rows v (a warm-up, then 7
// interleaved rounds of reps calls each) and chooses the one with the
// highest median bandwidth.
func measureClass(cands []*calibCand, q, v []float32, reps int, stopped func() bool) (Choice, error) {
	const d = calibDim
	n := len(v) / d
	out := make([]float32, n)
	r := Host{}.mustResolve()
	for _, cd := range cands {
		cd.t = cd.t[:0]
		r.cosineSingleWith(cd.im, q, v, d, n, out) // warm-up
	}
	for round := 0; round < 7; round++ {
		for _, cd := range cands {
			if stopped() {
				return Choice{}, ErrStopped
			}
			t0 := clock.Now()
			for rep := 0; rep < reps; rep++ {
				r.cosineSingleWith(cd.im, q, v, d, n, out)
			}
			cd.t = append(cd.t, clock.Since(t0).Seconds()/float64(reps))
		}
	}
	ch := Choice{Bytes: int64(len(v)) * 4}
	for _, cd := range cands {
		gbs := float64(len(v)) * 4 / median(cd.t) / 1e9
		ch.Candidates = append(ch.Candidates, Candidate{cd.im.k.level.String(), cd.im.path.String(), gbs})
		if gbs > ch.GBs {
			ch.Level, ch.Path, ch.GBs = cd.im.k.level.String(), cd.im.path.String(), gbs
		}
	}
	return ch, nil
}

// measureThreadBreakEven fits t = overhead + bytes·per_byte for one thread
// and for all threads over cache-resident sizes and returns the crossover
// (timing.CrossoverOf) halved: the bytes each of two threads must get for
// the second one to pay, clamped to [32 KiB, 16 MiB]. Without a crossover
// it keeps the default.
// It ends early, its result unused, once stopped returns true.
func measureThreadBreakEven(q, v []float32, d int, ch Choice, stopped func() bool) (int64, string) {
	t := defaultThreads
	if t <= 1 {
		return defaultMinBytesPerThread, "one thread: no break-even"
	}
	k, p, err := ch.impl()
	if err != nil {
		return defaultMinBytesPerThread, "no resident choice"
	}
	im := singleImpl{k, p}
	// Mode 0 keeps every call on one thread, mode 1 splits from the
	// first row block.
	modes := [2]run{Host{MinBytesPerThread: 1 << 62}.mustResolve(), Host{MinBytesPerThread: 1}.mustResolve()}
	var sizes, t1, tn []float64
	out := make([]float32, len(v)/d)
	for n := 16; n*d <= len(v) && !stopped(); n *= 2 {
		for rep := 0; rep < 3; rep++ {
			var s [2][]float64
			for round := 0; round < 5; round++ {
				for mode := range modes {
					reps := max(1, (1<<22)/(n*d))
					t0 := clock.Now()
					for r := 0; r < reps; r++ {
						modes[mode].cosineSingleWith(im, q, v[:n*d], d, n, out)
					}
					s[mode] = append(s[mode], clock.Since(t0).Seconds()/float64(reps))
				}
			}
			sizes = append(sizes, float64(n*d*4))
			t1 = append(t1, median(s[0]))
			tn = append(tn, median(s[1]))
		}
	}
	f1, err1 := timing.FitLinear(sizes, t1)
	fn, err2 := timing.FitLinear(sizes, tn)
	if err1 != nil || err2 != nil {
		return defaultMinBytesPerThread, "fit failed"
	}
	cr := timing.CrossoverOf(f1, fn)
	const lo, hi = 32 << 10, 16 << 20
	switch cr.Kind {
	case timing.CrossAt:
		b := int64(cr.N / 2)
		return min(max(b, lo), hi), fmt.Sprintf("%d threads beat 1 from %.0f KiB (fit: 1 thread %.1f µs + %.1f GB/s, %d threads %.1f µs + %.1f GB/s)",
			t, cr.N/1024, f1.Overhead*1e6, 1/f1.PerItem/1e9, t, fn.Overhead*1e6, 1/fn.PerItem/1e9)
	case timing.CrossAlways:
		return lo, fmt.Sprintf("%d threads always beat 1", t)
	default:
		// Threads that never pay at cache-resident sizes mean the other
		// cores were busy while this ran (or the fit is noise); caching
		// that would keep every later call on one core, so the default
		// stays.
		return defaultMinBytesPerThread, fmt.Sprintf("no break-even found (%d threads vs 1: %v; other load?), default %d KiB per thread kept", t, cr.Kind, defaultMinBytesPerThread>>10)
	}
}

func median(x []float64) float64 {
	s := slices.Clone(x)
	sort.Float64s(s)
	if len(s) == 0 {
		return 0
	}
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// MinBytesPerThreadOr returns c.MinBytesPerThread, or the default for a
// nil calibration.
func (c *Calibration) MinBytesPerThreadOr() int64 {
	if c == nil {
		return defaultMinBytesPerThread
	}
	return c.MinBytesPerThread
}
