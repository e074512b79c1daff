package plan

import (
	"fmt"
	"os"
	"regexp"
	"sort"
	"strings"

	"github.com/wgpu-prof/wgpu-prof/internal/experiment/env"

	"github.com/google/pprof/profile"

	"github.com/wgpu-prof/wgpu-prof/internal/workload"
)

// readProfile parses the pprof profile at path (parameter name names
// the flag in errors).
func readProfile(name, path string) (*profile.Profile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, &env.ParamError{Name: name, Value: path, Limit: err.Error()}
	}
	defer f.Close()
	p, err := profile.Parse(f)
	if err != nil {
		return nil, &env.ParamError{Name: name, Value: path, Limit: "not a pprof profile: " + err.Error()}
	}
	if len(p.SampleType) == 0 || len(p.Sample) == 0 {
		return nil, &env.ParamError{Name: name, Value: path, Limit: "the profile has no samples"}
	}
	return p, nil
}

// valueIndex is the sample value CPU time is in ("cpu", else the last).
func valueIndex(p *profile.Profile) int {
	idx := len(p.SampleType) - 1
	for i, st := range p.SampleType {
		if st.Type == "cpu" {
			idx = i
		}
	}
	return idx
}

// FuncShare is a function's cumulative share of a profile.
type FuncShare struct {
	Name  string
	Share float64
}

// ProfileTop returns the k functions of the profile at path with the
// largest cumulative share (each sample once per function), largest
// first, leaving out the Go runtime's and main.main.
func ProfileTop(path string, k int) ([]FuncShare, error) {
	p, err := readProfile("pprof", path)
	if err != nil {
		return nil, err
	}
	idx := valueIndex(p)
	cum := map[string]int64{}
	var total int64
	for _, s := range p.Sample {
		v := s.Value[idx]
		total += v
		seen := map[string]bool{}
		for _, loc := range s.Location {
			for _, ln := range loc.Line {
				if ln.Function != nil && !seen[ln.Function.Name] {
					seen[ln.Function.Name] = true
					cum[ln.Function.Name] += v
				}
			}
		}
	}
	if total <= 0 {
		return nil, &env.ParamError{Name: "pprof", Value: path, Limit: "the profile's samples sum to zero"}
	}
	var out []FuncShare
	for name, v := range cum {
		if strings.HasPrefix(name, "runtime.") || strings.HasPrefix(name, "runtime/") || name == "main.main" || strings.HasPrefix(name, "testing.") {
			continue
		}
		out = append(out, FuncShare{name, float64(v) / float64(total)})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Share != out[j].Share {
			return out[i].Share > out[j].Share
		}
		return out[i].Name < out[j].Name
	})
	return out[:min(k, len(out))], nil
}

// NoMatchError is an --op whose expression matches no function of the
// profile: it names the profile's top functions.
func NoMatchError(path string, res []*regexp.Regexp, shares []ProfileShare) error {
	var none []string
	for i, s := range shares {
		if len(s.Functions) == 0 {
			none = append(none, fmt.Sprintf("%q", res[i].String()))
		}
	}
	if len(none) == 0 {
		return nil
	}
	top, err := ProfileTop(path, 10)
	if err != nil {
		return err
	}
	var names []string
	for _, f := range top {
		names = append(names, fmt.Sprintf("%s (%.1f%%)", f.Name, 100*f.Share))
	}
	return env.Usage(&env.ParamError{Name: "op", Value: strings.Join(none, ", "),
		Limit: "matches no function of " + path + "; its top functions (cumulative CPU): " + strings.Join(names, ", ")})
}

// suggestRule maps words of a function's name to the workload doing the
// same work.
type suggestRule struct {
	re       *regexp.Regexp
	workload string
}

// suggestRules are the workloads' NameWords, most specific first.
func suggestRules() []suggestRule {
	ds := workload.All()
	sort.SliceStable(ds, func(i, j int) bool { return ds[i].NameOrder < ds[j].NameOrder })
	var rules []suggestRule
	for _, d := range ds {
		if d.NameWords != "" {
			rules = append(rules, suggestRule{regexp.MustCompile(d.NameWords), d.Name})
		}
	}
	return rules
}

// Suggestion is a proposed --op for one of a profile's top functions.
type Suggestion struct {
	Function, Workload, Op, Why string
	Share                       float64
}

// Suggest proposes --op mappings for the profile's top functions whose
// names say what they compute.
func Suggest(path string, k int) ([]Suggestion, error) {
	top, err := ProfileTop(path, 4*k)
	if err != nil {
		return nil, err
	}
	var out []Suggestion
	rules := suggestRules()
	for _, f := range top {
		short := f.Name[strings.LastIndexAny(f.Name, "./")+1:]
		for _, r := range rules {
			if m := r.re.FindString(short); m != "" {
				out = append(out, Suggestion{Function: f.Name, Workload: r.workload, Share: f.Share,
					Op:  regexp.QuoteMeta(f.Name) + "$=" + r.workload,
					Why: fmt.Sprintf("its name says %q", m)})
				break
			}
		}
		if len(out) == k {
			break
		}
	}
	return out, nil
}
