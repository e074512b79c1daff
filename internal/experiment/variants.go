package experiment

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/wgpu-prof/wgpu-prof/internal/experiment/env"

	"github.com/wgpu-prof/wgpu-prof/compute"
	"github.com/wgpu-prof/wgpu-prof/compute/wgpu"
	"github.com/wgpu-prof/wgpu-prof/internal/report"
	"github.com/wgpu-prof/wgpu-prof/internal/workload"
	"github.com/wgpu-prof/wgpu-prof/timing"
)

// Selection of GPU variants by measurement: each workload lists its GPU
// designs (workload.Descriptor.Variants); on this adapter, per workload
// and shape, a short autotune runs each once against the reference
// (a variant that fails is skipped with a warning and never timed), times
// the survivors a few calls each, and keeps the fastest. No vendor-name
// rule is involved: the adapter's own timings decide. The choice is cached
// in the user cache directory keyed by adapter, driver and wgpu-native
// version (and the shape and knobs), and re-measured on demand. Unless a
// workgroup size is forced (--wg, gpu:wg=N), each variant is tried at
// every size of tuneWorkgroups the adapter allows: the best size is a
// property of the design on this adapter, like the design itself.

// autotuneCalls is how many timed calls each verified variant gets: the
// selection needs an order, not a confidence interval (the measurement
// that is reported afterwards takes the full n ≥ 10).
const autotuneCalls = 5

// tuneWorkgroups are the workgroup sizes each variant is tried at when
// none is forced; the default (compute.DefaultWorkgroup, 64) first, so a
// sweep's first point is the variant's default configuration.
var tuneWorkgroups = []int{64, 32, 128, 256}

// WorkgroupsToTry is forced alone when set, else the tuneWorkgroups this
// adapter allows.
func WorkgroupsToTry(e *env.Env, forced int) []int {
	if forced != 0 {
		return []int{forced}
	}
	var out []int
	for _, wg := range tuneWorkgroups {
		if e.Device == nil || e.Device.CheckWorkgroup(wg) == nil {
			out = append(out, wg)
		}
	}
	return out
}

// VariantTime is one variant's result in an autotune.
type VariantTime struct {
	Variant   string  `json:"variant"`             // the design (Knobs.Variant)
	Workgroup int     `json:"workgroup,omitempty"` // the workgroup size tried (0: the kernel's default)
	Label     string  `json:"label"`               // the case's variant label
	Seconds   float64 `json:"seconds,omitempty"`   // median call (kernel time when timestamps work)
	Skipped   string  `json:"skipped,omitempty"`   // why it was not timed
}

// VariantChoice is the outcome of selecting a variant for one workload at
// one shape.
type VariantChoice struct {
	Workload string `json:"workload"`
	Shape    string `json:"shape"`
	Chosen   string `json:"chosen"`
	// Workgroup is the chosen variant's workgroup size (0: the kernel's
	// default, when no size was tried).
	Workgroup int    `json:"workgroup,omitempty"`
	RunnerUp  string `json:"runner_up,omitempty"`
	// Margin is the runner-up's time over the chosen one's (≥ 1); 0 when
	// only one variant was timed.
	Margin float64       `json:"margin,omitempty"`
	Times  []VariantTime `json:"times"`
	// Config names the configuration the shape was prepared from
	// (variantConfigLabel): what run's duration estimate matches, before
	// any data exists to name the shape.
	Config string `json:"config,omitempty"`
	Cached bool   `json:"-"`
	// Note says how a quick selection chose (SelectOptions.Quick): fewer
	// configurations, or the nearest shape's cached choice.
	Note string `json:"-"`
}

// Summary says the choice in one line for the report.
func (c VariantChoice) Summary() string {
	var chosen VariantTime
	for _, t := range c.Times {
		if t.Variant == c.Chosen && t.Workgroup == c.Workgroup {
			chosen = t
		}
	}
	s := fmt.Sprintf("%s %s: GPU variant %s chosen by measurement (%s/call)", c.Workload, c.Shape, chosen.Label, timing.FormatSeconds(chosen.Seconds))
	if c.RunnerUp != "" {
		s += fmt.Sprintf(", runner-up %s %.2f× slower", c.RunnerUp, c.Margin)
	} else {
		s += ", the only variant timed"
	}
	if c.Cached {
		s += " [cached; --retune re-measures]"
	}
	if c.Note != "" {
		s += " [" + c.Note + "]"
	}
	return s
}

// variantCandidate is one variant to try: its name, its case label and
// how to build its GPU side.
type variantCandidate struct {
	name, label string
	wg          int                 // workgroup size (0: the kernel's default)
	side        workload.GPUBuilder // builds the GPU side on gpu
	gpu         workload.GPU
	// quiet: a failure is recorded in the choice but not warned about
	// (a workgroup size the design does not take).
	quiet bool
}

// ErrNoVariant marks a workload none of whose GPU designs can run on this
// adapter: each needs a feature it lacks, does not compile there or
// exceeds one of its limits. The workload is skipped with the reasons;
// a design that ran and failed verification is ErrWrongResult instead.
var ErrNoVariant = errors.New("no GPU variant runs on this adapter")

// Why a variant was not timed, as the first words of VariantTime.Skipped.
const (
	notOffered      = "not offered"
	doesNotCompile  = "does not compile"
	exceedsLimit    = "exceeds a limit"
	failedVerify    = "failed verification"
	failedOtherwise = "failed"
)

// The phase a variant's error came from (tuneOne).
const (
	buildPhase = true
	runs       = false
)

// variantFailure says why a candidate failed: during its build (the
// runner's constructor, where shaders compile) or while it ran.
func variantFailure(err error, building bool) string {
	var se *wgpu.ShaderError
	var ge *wgpu.GPUError
	switch {
	case errors.Is(err, compute.ErrUnsupported) || errors.Is(err, compute.ErrNoShaderF16):
		return notOffered
	case errors.Is(err, ErrWrongResult):
		return failedVerify
	case errors.Is(err, wgpu.ErrLimit):
		return exceedsLimit
	case errors.As(err, &se), building && errors.As(err, &ge):
		return doesNotCompile
	}
	return failedOtherwise
}

// CanSkip reports whether err means the workload cannot run on this
// adapter (ErrNoVariant, or one design's unsupported feature, compile
// error or limit), so a suite skips it and goes on.
func CanSkip(err error) bool {
	if errors.Is(err, wgpu.ErrDeviceLost) || errors.Is(err, env.ErrInterrupted) || errors.Is(err, ErrWrongResult) {
		return false
	}
	if errors.Is(err, ErrNoVariant) {
		return true
	}
	k := variantFailure(err, buildPhase)
	return k == notOffered || k == doesNotCompile || k == exceedsLimit
}

// autotune verifies each candidate once and times the ones that pass.
// warn receives one line per candidate that does not compile or fails;
// a design the adapter lacks a feature for is recorded as not offered
// without a warning. It fails only when no candidate passes: with
// ErrWrongResult when one ran and failed verification, else with
// ErrNoVariant and each design's reason.
func autotune(what string, cands []variantCandidate, calls int, warn func(string)) (VariantChoice, error) {
	ch := VariantChoice{}
	type timed struct {
		name, label string
		wg          int
		sec         float64
	}
	var ok []timed
	var reasons []string
	wrong := false
	for _, c := range cands {
		vt := VariantTime{Variant: c.name, Workgroup: c.wg, Label: c.label}
		sec, building, err := tuneOne(c, calls)
		if errors.Is(err, wgpu.ErrDeviceLost) || errors.Is(err, env.ErrInterrupted) {
			// Not the variant's fault: the whole run stops.
			return ch, fmt.Errorf("%s: GPU variant %s: %w", what, c.label, err)
		}
		if err != nil {
			kind := variantFailure(err, building)
			vt.Skipped = kind + ": " + err.Error()
			wrong = wrong || kind == failedVerify
			if !c.quiet {
				reasons = append(reasons, c.label+" "+vt.Skipped)
				if kind != notOffered {
					warn(fmt.Sprintf("%s: GPU variant %s skipped (%s): %v", what, c.label, kind, err))
				}
			}
		} else {
			vt.Seconds = sec
			ok = append(ok, timed{c.name, c.label, c.wg, sec})
		}
		ch.Times = append(ch.Times, vt)
	}
	if len(ok) == 0 {
		if wrong {
			return ch, fmt.Errorf("%s: no GPU variant passed verification (%s): %w", what, strings.Join(reasons, "; "), ErrWrongResult)
		}
		return ch, fmt.Errorf("%s: %w: %s", what, ErrNoVariant, strings.Join(reasons, "; "))
	}
	sort.SliceStable(ok, func(i, j int) bool { return ok[i].sec < ok[j].sec })
	ch.Chosen, ch.Workgroup = ok[0].name, ok[0].wg
	if len(ok) > 1 {
		ch.RunnerUp, ch.Margin = ok[1].label, ok[1].sec/ok[0].sec
	}
	return ch, nil
}

// tuneOne builds c's side, runs it once against the reference (poisoned
// first) and, only when that passes, times calls more calls and verifies
// again. It returns the median call: kernel time when every call had one,
// else host time; building says whether an error came from the build.
func tuneOne(c variantCandidate, calls int) (sec float64, building bool, err error) {
	s, err := c.side.BuildGPU(c.gpu)
	if err != nil {
		return 0, buildPhase, err
	}
	defer s.Close()
	s.Poison()
	if _, err := s.Run(); err != nil {
		return 0, runs, err
	}
	if err := s.Verify(); err != nil {
		return 0, runs, fmt.Errorf("%w: %v", ErrWrongResult, err)
	}
	var kern, host []float64
	for i := 0; i < calls; i++ {
		smp, err := s.Run()
		if err != nil {
			return 0, runs, err
		}
		host = append(host, smp.Host.Seconds())
		if smp.HasKernel {
			kern = append(kern, smp.Kernel.Seconds())
		}
	}
	if err := s.Verify(); err != nil {
		return 0, runs, fmt.Errorf("after timing: %w: %v", ErrWrongResult, err)
	}
	if len(kern) == calls {
		return Median(kern), runs, nil
	}
	return Median(host), runs, nil
}

func Median(x []float64) float64 {
	s := slices.Clone(x)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// variantCache is the on-disk cache of choices, by key.
type variantCache map[string]VariantChoice

// variantCachePath is the cache file in the user cache directory.
func variantCachePath() (string, error) {
	dir, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "wgpu-prof", "variants.json"), nil
}

func loadVariantCache() variantCache {
	c := variantCache{}
	path, err := variantCachePath()
	if err != nil {
		return c
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return c
	}
	if json.Unmarshal(b, &c) != nil {
		return variantCache{} // a damaged cache is re-measured, not trusted
	}
	return c
}

func (c variantCache) save() error {
	path, err := variantCachePath()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// adapterKey names this adapter, driver and WebGPU implementation with
// its version (each implementation keeps its own choices: they compile
// and run the variants differently, and refuse different ones).
func adapterKey(e *env.Env) string {
	impl := e.Device.Impl()
	v, err := wgpu.ImplVersion(impl)
	if err != nil {
		v = "unknown"
	}
	i := e.Device.Info
	return strings.Join([]string{i.Name, i.Vendor, i.Driver, fmt.Sprint(i.VendorID), fmt.Sprint(i.DeviceID), impl.String() + " " + v}, "|")
}

// SelectOptions say how SelectVariant chooses: Retune re-measures
// instead of reading the cache; Quick (plan --quick) takes a cached
// choice at the nearest shape when this one has none, else tries fewer
// configurations (QuickWorkgroups) with fewer calls (quickAutotuneCalls).
type SelectOptions struct {
	Retune, Quick bool
}

// quickAutotuneCalls is how many timed calls a quick selection gives
// each verified variant.
const quickAutotuneCalls = 3

// QuickWorkgroups are the workgroup sizes a quick selection tries: the
// forced one, else the first of tuneWorkgroups this adapter allows (the
// default size, compute.DefaultWorkgroup, where it may).
func QuickWorkgroups(e *env.Env, forced int) []int {
	wgs := WorkgroupsToTry(e, forced)
	if len(wgs) > 1 {
		wgs = wgs[:1]
	}
	return wgs
}

// SelectVariant chooses the fastest verified GPU variant of w at batch n
// of pr, prepared from c (with the other knobs of k) on this adapter,
// from the cache unless retune is set or the cache has no entry. Skipped
// variants become warnings of rep (when rep is not nil). The returned
// knobs carry the chosen variant.
func SelectVariant(e *env.Env, w *workload.Descriptor, c workload.Config, pr *workload.Prepared, n int, k workload.Knobs, retune bool, rep *report.Report) (workload.Knobs, VariantChoice, error) {
	return SelectVariantWith(e, w, c, pr, n, k, SelectOptions{Retune: retune}, rep)
}

// SelectVariantWith is SelectVariant with its options: under opt.Quick a
// full selection cached at this shape is taken first, then a quick one,
// then the cached choice at the nearest shape (nearestChoice); without
// any, the designs are tried at QuickWorkgroups only. The choice's Note
// says which.
func SelectVariantWith(e *env.Env, w *workload.Descriptor, c workload.Config, pr *workload.Prepared, n int, k workload.Knobs, opt SelectOptions, rep *report.Report) (workload.Knobs, VariantChoice, error) {
	if len(w.Variants) < 2 {
		if len(w.Variants) == 1 {
			k.Variant = w.Variants[0]
		}
		return k, VariantChoice{}, nil
	}
	retune := opt.Retune
	shape := env.ParamLabel(pr.At(n, k).Params)
	wgs := WorkgroupsToTry(e, k.Workgroup)
	prefix, suffix := variantKey(e, w, k, wgs)
	key := prefix + shape + suffix
	label := variantConfigLabel(w, c, n)
	cache := loadVariantCache()
	if _, ok := cache[key]; !ok && opt.Quick && !retune {
		// Not selected in full at this shape: a quick selection's key,
		// or the nearest shape's choice.
		var near *VariantChoice
		if wgs, key, near = quickLookup(e, w, k, cache, prefix, shape, suffix, label); near != nil {
			return withChoice(k, *near), *near, nil
		}
	}
	quickKey := opt.Quick && !retune && !slices.Equal(wgs, WorkgroupsToTry(e, k.Workgroup))
	if ch, ok := cache[key]; ok && !retune && w.CheckVariant(ch.Chosen) == nil {
		if quickKey {
			ch.Note = fmt.Sprintf("--quick: a quick selection (workgroup size %v only)", wgs)
		}
		if ch.Config != label {
			// An entry made before choices named their configuration (or
			// by a command preparing the same shape otherwise): named now,
			// so the next estimate counts it as cached.
			ch.Config = label
			cache[key] = ch
			_ = cache.save() // best effort: the choice itself stands
		}
		ch.Cached = true
		return withChoice(k, ch), ch, nil
	}
	cands := variantCandidates(e, w, pr, n, k, wgs)
	calls, note := autotuneCalls, ""
	if opt.Quick && !retune {
		calls = quickAutotuneCalls
		note = fmt.Sprintf("--quick: %d configurations (workgroup size %v only), %d calls each", len(cands), wgs, calls)
	}
	e.Progressf("gpu  %s %s: selecting among %d variants (%d configurations)", w.Name, shape, len(w.Variants), len(cands))
	ch, err := autotune(w.Name+" "+shape, cands, calls, func(s string) {
		if rep != nil {
			rep.Warnings = append(rep.Warnings, s)
		}
	})
	if err != nil {
		return k, ch, err
	}
	ch.Workload, ch.Shape, ch.Config = w.Name, shape, label
	cache[key] = ch
	ch.Note = note
	if err := cache.save(); err != nil && rep != nil {
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("variant cache not saved: %v", err))
	}
	return withChoice(k, ch), ch, nil
}

// quickLookup is where a quick selection looks when the cache holds no
// full selection at this shape (full: its key's suffix): the quick
// selection's workgroup sizes and key, and the nearest shape's cached
// choice (near, nil when there is none or the quick key is cached).
func quickLookup(e *env.Env, w *workload.Descriptor, k workload.Knobs, cache variantCache, prefix, shape, full, label string) (wgs []int, key string, near *VariantChoice) {
	wgs = QuickWorkgroups(e, k.Workgroup)
	_, suffix := variantKey(e, w, k, wgs)
	key = prefix + shape + suffix
	if _, ok := cache[key]; ok {
		return wgs, key, nil
	}
	ch, ok := nearestChoice(cache, w, prefix, []string{full, suffix}, label)
	if !ok {
		return wgs, key, nil
	}
	ch.Cached = true
	ch.Note = fmt.Sprintf("--quick: the cached choice at %s, the nearest shape selected (none at %s)", ch.Shape, shape)
	return wgs, key, &ch
}

// withChoice is k with ch's variant and workgroup size (where it chose
// one).
func withChoice(k workload.Knobs, ch VariantChoice) workload.Knobs {
	k.Variant = ch.Chosen
	if ch.Workgroup != 0 {
		k.Workgroup = ch.Workgroup
	}
	return k
}

// nearestChoice is the cached choice for w on this adapter (keys with
// prefix and one of suffixes: the same designs and knobs) whose
// configuration label differs from label only in the batch size, at the
// size nearest label's (by ratio); ok is false when there is none.
func nearestChoice(cache variantCache, w *workload.Descriptor, prefix string, suffixes []string, label string) (VariantChoice, bool) {
	fields := func(l string) (rest []string, at int) {
		for _, f := range strings.Fields(l) {
			k, v, _ := strings.Cut(f, "=")
			switch {
			case k == "at":
				at, _ = strconv.Atoi(v)
			case k != w.Batch:
				rest = append(rest, f)
			}
		}
		return rest, at
	}
	want, at := fields(label)
	var best VariantChoice
	bestD, found := math.Inf(1), false
	keys := make([]string, 0, len(cache))
	for key := range cache {
		keys = append(keys, key)
	}
	sort.Strings(keys) // ties: the same answer every time
	for _, key := range keys {
		ch := cache[key]
		if !strings.HasPrefix(key, prefix) || !slices.ContainsFunc(suffixes, func(s string) bool { return strings.HasSuffix(key, s) }) ||
			ch.Config == "" || w.CheckVariant(ch.Chosen) != nil {
			continue
		}
		rest, n := fields(ch.Config)
		if !slices.Equal(rest, want) || n <= 0 || at <= 0 {
			continue
		}
		if d := math.Abs(math.Log(float64(n) / float64(at))); d < bestD {
			best, bestD, found = ch, d, true
		}
	}
	return best, found
}

// variantKey is the cache key of a selection of w with knobs k trying
// the workgroup sizes wgs, around the shape: prefix + shape + suffix. The
// key names the variants tried and the revision of their kernels, so a
// family that gains a design, or a design that gains a kernel, is
// measured again rather than served a choice made without it.
func variantKey(e *env.Env, w *workload.Descriptor, k workload.Knobs, wgs []int) (prefix, suffix string) {
	return adapterKey(e) + "|" + w.Name + "|", variantKeySuffix(w, k, wgs)
}

func variantKeySuffix(w *workload.Descriptor, k workload.Knobs, wgs []int) string {
	s := fmt.Sprintf("|wg=%d|tile=%d|%s|wgs=%v", k.Workgroup, k.Tile, strings.Join(w.Variants, ","), wgs)
	if w.KernelRev > 0 {
		s += fmt.Sprintf("|rev=%d", w.KernelRev)
	}
	return s
}

// variantConfigLabel names the configuration of a selection of w at batch
// n from the parameters w reads in c (defaults filled), which are known
// before its data is prepared.
func variantConfigLabel(w *workload.Descriptor, c workload.Config, n int) string {
	c.Defaults()
	parts := make([]string, 0, len(w.Params)+1)
	for _, p := range w.Params {
		parts = append(parts, p.Name+"="+p.Value(c))
	}
	return strings.Join(append(parts, fmt.Sprintf("at=%d", n)), " ")
}

// PendingSelections are the variant selections a run of ds with cfg will
// measure (none cached for this adapter, or cfg.Retune) and how many
// configurations they try at most (every design at every workgroup size;
// designs whose label does not change with the size are tried once).
func PendingSelections(e *env.Env, cfg RunConfig, ds []*workload.Descriptor) (names []string, configs int) {
	cache := variantCache{}
	if !cfg.Retune && e.Device != nil {
		cache = loadVariantCache()
	}
	knobs := workload.Knobs{Workgroup: cfg.Workgroup, Tile: cfg.Tile}
	for _, w := range ds {
		if len(w.Variants) < 2 {
			continue
		}
		wgs := WorkgroupsToTry(e, knobs.Workgroup)
		prefix, suffix, quickSuffix := "", "", ""
		if len(cache) > 0 {
			prefix, suffix = variantKey(e, w, knobs, wgs)
			_, quickSuffix = variantKey(e, w, knobs, QuickWorkgroups(e, knobs.Workgroup))
		}
		size := 1
		if bp := w.BatchParam(); bp != nil {
			size = *bp.Int(&cfg.Config)
		}
		label := variantConfigLabel(w, cfg.Config, size)
		cached := false
		for key, ch := range cache {
			if ch.Config == label && strings.HasPrefix(key, prefix) && strings.HasSuffix(key, suffix) && w.CheckVariant(ch.Chosen) == nil {
				cached = true
				break
			}
		}
		if !cached && cfg.QuickVariants && len(cache) > 0 {
			_, cached = nearestChoice(cache, w, prefix, []string{suffix, quickSuffix}, label)
		}
		if !cached {
			names = append(names, w.Name)
			if cfg.QuickVariants {
				wgs = QuickWorkgroups(e, knobs.Workgroup)
			}
			configs += len(w.Variants) * len(wgs)
		}
	}
	return names, configs
}

// variantConfig is one GPU design at one workgroup size.
type variantConfig struct {
	variant string
	wg      int
	C       workload.Case
	// quiet: not the design's first size; a failure there is recorded,
	// not warned about (a size the design does not take).
	Quiet bool
}

// VariantConfigs are w's variants at each workgroup size of wgs, one per
// distinct configuration (a design whose label does not change with the
// size, e.g. one sized by its tile, is listed once), designs in order.
func VariantConfigs(w *workload.Descriptor, pr *workload.Prepared, n int, k workload.Knobs, wgs []int) []variantConfig {
	var out []variantConfig
	seen := map[string]bool{}
	for _, v := range w.Variants {
		for i, wg := range wgs {
			kv := k
			kv.Variant, kv.Workgroup = v, wg
			c := pr.At(n, kv)
			if seen[c.Variant] {
				continue
			}
			seen[c.Variant] = true
			out = append(out, variantConfig{variant: v, wg: wg, C: c, Quiet: i > 0})
		}
	}
	return out
}

// variantCandidates are the autotune's candidates: variantConfigs with
// their GPU sides.
func variantCandidates(e *env.Env, w *workload.Descriptor, pr *workload.Prepared, n int, k workload.Knobs, wgs []int) []variantCandidate {
	var cands []variantCandidate
	for _, vc := range VariantConfigs(w, pr, n, k, wgs) {
		c, g := vc.C, e.GPU()
		cands = append(cands, variantCandidate{name: vc.variant, label: c.Variant, wg: vc.wg, quiet: vc.Quiet,
			side: c.GPU, gpu: g})
	}
	return cands
}

// ReadCeilingSummary says which read design set the GPU read ceiling and
// what the others reached.
func ReadCeilingSummary(c compute.Ceilings) string {
	var tried []string
	for _, x := range c.ReadTried {
		if x.Name != c.ReadDesign {
			tried = append(tried, fmt.Sprintf("%s %.2f", x.Name, x.GBs))
		}
	}
	return fmt.Sprintf("GPU read ceiling %.2f GB/s by %s, the best of %d verified designs (others, GB/s: %s); write %.2f GB/s by %s (of %d); copy %.2f GB/s by %s (of %d)",
		c.ReadGBs, c.ReadDesign, len(c.ReadTried), strings.Join(tried, "; "),
		c.WriteGBs, c.WriteDesign, len(c.WriteTried), c.CopyGBs, c.CopyDesign, len(c.CopyTried))
}

// underMeasuredFrac is how far above the run's GPU read ceiling a GPU
// kernel may run before the ceiling is called under-measured.
const underMeasuredFrac = 1.05

// CheckUnderCeiling checks every GPU row of rep against read, the run's
// GPU read ceiling (GB/s): a kernel above 105% of it means the ceiling
// was under-measured, and rep gets a warning naming the row. It returns
// the summary line.
func CheckUnderCeiling(rep *report.Report, read float64) []string {
	if read <= 0 {
		return nil
	}
	worst, where := 0.0, ""
	for _, m := range rep.Measurements {
		if m.Side != report.SideGPU || m.GBs <= 0 {
			continue
		}
		f := m.GBs / read
		if f > worst {
			worst, where = f, fmt.Sprintf("%s %s %s", m.Workload, m.Variant, env.ParamLabel(m.Params))
		}
		if f > underMeasuredFrac {
			rep.Warnings = append(rep.Warnings, fmt.Sprintf("GPU read ceiling under-measured: %s %s %s moves %.2f GB/s = %.0f%% of the run's read ceiling %.2f GB/s (limit %.0f%%)",
				m.Workload, m.Variant, env.ParamLabel(m.Params), m.GBs, 100*f, read, 100*underMeasuredFrac))
		}
	}
	if where == "" {
		return nil
	}
	if worst > underMeasuredFrac {
		return []string{fmt.Sprintf("the GPU read ceiling was under-measured: %s ran at %.0f%% of it (see warnings)", where, 100*worst)}
	}
	return []string{fmt.Sprintf("no GPU kernel above %.0f%% of the run's GPU read ceiling (highest: %s at %.0f%%)", 100*underMeasuredFrac, where, 100*worst)}
}

// OutsideKernel states how much of a GPU measurement's end-to-end time
// is spent outside its kernel ("" without kernel time).
func OutsideKernel(m report.Measurement) string {
	if m.Side != report.SideGPU || m.Kernel == nil || m.EndToEnd.Median <= 0 {
		return ""
	}
	out := m.EndToEnd.Median - m.Kernel.Median
	return fmt.Sprintf("%s %s %s: %s per call outside the kernel (%.0f%% of end to end %s; kernel %s)",
		m.Workload, m.Variant, env.ParamLabel(m.Params), timing.FormatSeconds(out), 100*out/m.EndToEnd.Median,
		timing.FormatSeconds(m.EndToEnd.Median), timing.FormatSeconds(m.Kernel.Median))
}
