package workload

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/wgpu-prof/wgpu-prof/compute"
	"github.com/wgpu-prof/wgpu-prof/internal/report"
)

// ParamError is a parameter out of its range (compute.ParamError): its
// name, the value and the limit. The command line maps the name to its
// flag.
type ParamError = compute.ParamError

// invalid returns a *ParamError for name at value v (formatted with %v;
// strings with %q) breaking limit (a format with args).
func invalid(name string, v any, limit string, args ...any) *ParamError {
	val := fmt.Sprint(v)
	if s, ok := v.(string); ok {
		val = strconv.Quote(s)
	}
	return &ParamError{Name: name, Value: val, Limit: fmt.Sprintf(limit, args...)}
}

// ParamKind is the type of a parameter's value.
type ParamKind int

const (
	IntParam ParamKind = iota
	StringParam
	Uint64Param
	// FileParam is the path of a data file that replaces generated data
	// (package dataset reads it); its String field holds the path.
	FileParam
)

// Param declares one parameter a workload reads: its name (the key in
// reports and, on the command line, the flag), type, default, range and
// help. The field of Config it sets is reached through the param, so the
// flags, the validation and the reports all derive from this table; a new
// parameter is a Config field and one entry here, named in the Params of
// the descriptors that read it.
type Param struct {
	Name string
	Kind ParamKind
	Help string
	// Default is the value of an IntParam (Str: of a StringParam, U64: of
	// a Uint64Param) when none is given.
	Default int
	Str     string
	U64     uint64
	// Quick is the default of a shorter look (0: Default).
	Quick int
	// Min is the smallest value of an IntParam; Auto: 0 is allowed too
	// and means each kernel's own default; Pow2: a power of two.
	Min  int
	Auto bool
	Pow2 bool
	// Choices are the values a StringParam may take.
	Choices []string
	// File names the file parameter that sets this one from data instead
	// (e.g. "vectors" sets d and n), "" when only a value sets it.
	File string

	field    func(c *Config) *int
	strField func(c *Config) *string
	u64Field func(c *Config) *uint64
}

// The parameters, in the order the command line lists them.
var (
	ParamD = &Param{Name: "d", Help: "vector dimension (multiple of 4)", Default: 768, Min: 1, File: "vectors",
		field: func(c *Config) *int { return &c.Dim }}
	ParamN = &Param{Name: "n", Help: "stored vectors", Default: 65536, Quick: 8192, Min: 1, File: "vectors",
		field: func(c *Config) *int { return &c.N }}
	ParamQ = &Param{Name: "q", Help: "queries (cosine-batch, hnsw)", Default: 64, Quick: 16, Min: 1, File: "queries",
		field: func(c *Config) *int { return &c.Q }}
	ParamC = &Param{Name: "c", Help: "candidates per query (hnsw)", Default: 32, Min: 1,
		field: func(c *Config) *int { return &c.C }}
	ParamK = &Param{Name: "k", Help: "top-k", Default: 10, Min: 1,
		field: func(c *Config) *int { return &c.K }}
	ParamNodes = &Param{Name: "nodes", Help: "graph nodes (spreading)", Default: 100_000, Quick: 10_000, Min: 1, File: "graph",
		field: func(c *Config) *int { return &c.Nodes }}
	ParamDegree = &Param{Name: "degree", Help: "average graph degree (spreading)", Default: 16, Min: 1, File: "graph",
		field: func(c *Config) *int { return &c.Degree }}
	ParamSteps = &Param{Name: "steps", Help: "spreading steps", Default: 10, Min: 1,
		field: func(c *Config) *int { return &c.Steps }}
	ParamWG = &Param{Name: "wg", Help: "workgroup size for every kernel that has one (0: each kernel's default)", Min: 1, Auto: true, Pow2: true,
		field: func(c *Config) *int { return &c.Workgroup }}
	ParamTile = &Param{Name: "tile", Help: "tile side of tiled kernels (cosine-batch; 0: the kernel's default)", Min: 4, Auto: true, Pow2: true,
		field: func(c *Config) *int { return &c.Tile }}
	ParamSeed = &Param{Name: "seed", Kind: Uint64Param, Help: "seed of the generated data", U64: 1,
		u64Field: func(c *Config) *uint64 { return &c.Seed }}
	ParamCandidates = &Param{Name: "candidates", Kind: StringParam, Str: CandidatesRandom, Choices: []string{CandidatesHNSW, CandidatesRandom},
		Help:     "hnsw candidate ids: hnsw (replayed from real searches of an index over the stored vectors; the index build costs ~1 min of CPU at the default n and d) or random (uniform, the stress case)",
		strField: func(c *Config) *string { return &c.Candidates }}
	ParamMetric = &Param{Name: "metric", Kind: StringParam, Str: "l2sq", Choices: []string{"l2sq", "ip", "cosine"},
		Help:     "hnsw distance: l2sq, ip or cosine",
		strField: func(c *Config) *string { return &c.Metric }}
	ParamPrecision = &Param{Name: "precision", Kind: StringParam, Str: "f32", Choices: []string{"f32", "f16", "int8"},
		Help:     "storage type of the stored vectors on both sides: f32, f16 or int8 (symmetric per-vector codes, int32 sums) for cosine-single, cosine-topk, cosine-batch and hnsw; verified against the scores of the stored values, and those against the f32 data within the precision's bound",
		strField: func(c *Config) *string { return &c.Precision }}
	ParamVectors = &Param{Name: "vectors", Kind: FileParam, Help: "stored vectors from a file instead of generated ones: NumPy .npy (2-D, C order, float32 or float16), .fvecs, .bvecs, or raw little-endian float32 (with d), told apart by content (text such as CSV is refused, saying how to convert it); sets d and n (all its rows; break-even sweeps prefixes of them)",
		strField: func(c *Config) *string { return &c.VectorsFile }}
	ParamQueries = &Param{Name: "queries", Kind: FileParam, Help: "query vectors from a file (formats as vectors; the single-query workloads use its first row); sets q",
		strField: func(c *Config) *string { return &c.QueriesFile }}
	ParamGraph = &Param{Name: "graph", Kind: FileParam, Help: "the spreading graph from a file instead of a generated one: a text edge list ('src dst [weight]' per line, 0-based, # comments) or Matrix Market .mtx coordinate; sets nodes (break-even sweeps the subgraphs of its first nodes)",
		strField: func(c *Config) *string { return &c.GraphFile }}
	ParamEf = &Param{Name: "ef", Help: "search breadth of the hnsw index whose visits candidates hnsw replays", Default: 64, Min: 1,
		field: func(c *Config) *int { return &c.Ef }}
)

var allParams = []*Param{ParamD, ParamN, ParamQ, ParamC, ParamK, ParamNodes, ParamDegree, ParamSteps,
	ParamWG, ParamTile, ParamSeed, ParamCandidates, ParamMetric, ParamPrecision, ParamEf,
	ParamVectors, ParamQueries, ParamGraph}

// Params returns every parameter, in the command line's order.
func Params() []*Param { return slices.Clone(allParams) }

// LookupParam returns the parameter called name, or nil.
func LookupParam(name string) *Param {
	for _, p := range allParams {
		if p.Name == name {
			return p
		}
	}
	return nil
}

// Int is the field of c an IntParam sets (nil for other kinds).
func (p *Param) Int(c *Config) *int {
	if p.field == nil {
		return nil
	}
	return p.field(c)
}

// String is the field of c a StringParam sets (nil for other kinds).
func (p *Param) String(c *Config) *string {
	if p.strField == nil {
		return nil
	}
	return p.strField(c)
}

// Uint64 is the field of c a Uint64Param sets (nil for other kinds).
func (p *Param) Uint64(c *Config) *uint64 {
	if p.u64Field == nil {
		return nil
	}
	return p.u64Field(c)
}

// Value formats p's value in c.
func (p *Param) Value(c Config) string {
	switch p.Kind {
	case StringParam, FileParam:
		return *p.String(&c)
	case Uint64Param:
		return strconv.FormatUint(*p.Uint64(&c), 10)
	}
	return strconv.Itoa(*p.Int(&c))
}

// QuickDefault is the default of a shorter look.
func (p *Param) QuickDefault() int {
	if p.Quick != 0 {
		return p.Quick
	}
	return p.Default
}

// setDefault fills p's field of c when it is zero.
func (p *Param) setDefault(c *Config) {
	switch p.Kind {
	case FileParam:
	case StringParam:
		if s := p.String(c); *s == "" {
			*s = p.Str
		}
	case Uint64Param:
		if u := p.Uint64(c); *u == 0 {
			*u = p.U64
		}
	default:
		if v := p.Int(c); *v == 0 {
			*v = p.Default
		}
	}
}

// Check validates p's value in c against its declared range: a
// *ParamError naming p, or nil.
func (p *Param) Check(c Config) error {
	switch p.Kind {
	case StringParam:
		s := *p.String(&c)
		if len(p.Choices) > 0 && !slices.Contains(p.Choices, s) {
			return invalid(p.Name, s, "want %s", orList(p.Choices))
		}
	case IntParam:
		v := *p.Int(&c)
		if p.Auto && v == 0 {
			return nil
		}
		bad := v < p.Min || (p.Pow2 && v&(v-1) != 0)
		if !bad {
			return nil
		}
		switch {
		case p.Pow2 && p.Min <= 1:
			return invalid(p.Name, v, "must be a positive power of two")
		case p.Pow2:
			return invalid(p.Name, v, "must be a power of two ≥ %d", p.Min)
		case p.Min == 1:
			return invalid(p.Name, v, "must be positive")
		default:
			return invalid(p.Name, v, "must be ≥ %d", p.Min)
		}
	}
	return nil
}

// orList joins s as "a, b or c".
func orList(s []string) string {
	if len(s) < 2 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " or " + s[len(s)-1]
}

// fixed returns report parameters of ps at their values in c.
func fixed(c Config, ps ...*Param) []report.Param {
	out := make([]report.Param, len(ps))
	for i, p := range ps {
		out[i] = report.Param{Key: p.Name, Value: p.Value(c)}
	}
	return out
}
