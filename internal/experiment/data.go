package experiment

import (
	"errors"
	"fmt"
	"strings"

	"github.com/wgpu-prof/wgpu-prof/internal/experiment/env"

	"github.com/wgpu-prof/wgpu-prof/internal/dataset"
	"github.com/wgpu-prof/wgpu-prof/internal/report"
	"github.com/wgpu-prof/wgpu-prof/internal/workload"
	"github.com/wgpu-prof/wgpu-prof/machine"
)

// LoadData reads the data files the configuration names (workload
// parameters of kind FileParam: vectors, queries, graph), checks them
// before anything is measured, and sets the sizes they fix: d and n from
// the vectors, q from the queries, nodes and degree from the graph. A
// size the caller set explicitly (set reports which) must agree: d equal
// to the file's (a raw float32 file needs it), n or q at most the file's
// rows, which then selects a prefix, nodes at most the graph's and
// reaching every node an edge of it does (no edge is dropped). Every workload selected must
// read each file given. Errors are UsageErrors naming the parameter.
func (c *RunConfig) LoadData(set func(name string) bool) error {
	return env.Usage(c.loadData(set))
}

func (c *RunConfig) loadData(set func(name string) bool) error {
	if c.VectorsFile == "" && c.QueriesFile == "" && c.GraphFile == "" {
		return nil
	}
	if len(c.Workloads) == 0 {
		c.Workloads = workload.Names()
	}
	if err := c.checkFileReaders(); err != nil {
		return err
	}
	var maxBytes uint64
	if m := machine.Current(); m.MemAvailable > 0 || m.MaxMemory > 0 {
		maxBytes = uint64(m.Budget(false))
	}
	opts := dataset.VectorOptions{MaxBytes: maxBytes}
	if set(workload.ParamD.Name) {
		opts.Dim = c.Dim
	}
	if err := c.loadVectors(set, opts); err != nil {
		return err
	}
	if err := c.loadQueries(set, opts); err != nil {
		return err
	}
	return c.loadGraph(set, maxBytes)
}

// fileErr is the error of a data file p names that could not be read.
func (c *RunConfig) fileErr(p *workload.Param, err error) error {
	return &env.ParamError{Name: p.Name, Value: *p.String(&c.Config), Limit: err.Error()}
}

// prefix sets the size p to the count of the file's rows (or nodes), or,
// when the caller set it, checks it against that count.
func (c *RunConfig) prefix(set func(name string) bool, p, file *workload.Param, count int, what string) error {
	v := p.Int(&c.Config)
	if set(p.Name) {
		if *v > count {
			return env.Invalid(p.Name, *v, "past the %d %s of %s", count, what, *file.String(&c.Config))
		}
		return nil
	}
	*v = count
	return nil
}

// loadVectors reads --vectors, if given, and sets d and n from it.
func (c *RunConfig) loadVectors(set func(name string) bool, opts dataset.VectorOptions) error {
	if c.VectorsFile == "" {
		return nil
	}
	v, err := dataset.LoadVectors(c.VectorsFile, opts)
	if err != nil {
		return c.fileErr(workload.ParamVectors, err)
	}
	if v.ZeroRow >= 0 {
		return env.Invalid(workload.ParamVectors.Name, c.VectorsFile, "row %d is all zeros: its cosine similarity is undefined", v.ZeroRow)
	}
	c.Vectors, c.Dim = v, v.Dim
	return c.prefix(set, workload.ParamN, workload.ParamVectors, v.Rows, "rows")
}

// loadQueries reads --queries, if given, at the vectors' dimension when
// they were read, and sets d and q from it.
func (c *RunConfig) loadQueries(set func(name string) bool, opts dataset.VectorOptions) error {
	if c.QueriesFile == "" {
		return nil
	}
	if c.Vectors != nil {
		opts.Dim = c.Vectors.Shape[1]
	}
	q, err := dataset.LoadVectors(c.QueriesFile, opts)
	if err != nil {
		return c.fileErr(workload.ParamQueries, err)
	}
	if c.Vectors != nil && q.Dim != c.Vectors.Dim {
		return env.Invalid(workload.ParamQueries.Name, c.QueriesFile, "dimension %d, the vectors' %d", q.Shape[1], c.Vectors.Shape[1])
	}
	if q.ZeroRow >= 0 {
		return env.Invalid(workload.ParamQueries.Name, c.QueriesFile, "row %d is all zeros: its cosine similarity is undefined", q.ZeroRow)
	}
	c.Queries, c.Dim = q, q.Dim
	return c.prefix(set, workload.ParamQ, workload.ParamQueries, q.Rows, "rows")
}

// loadGraph reads --graph, if given, and sets nodes and degree from it.
// An explicit nodes below the file's is refused at the first edge it
// would drop, naming the line: every edge of the file is used.
func (c *RunConfig) loadGraph(set func(name string) bool, maxBytes uint64) error {
	if c.GraphFile == "" {
		return nil
	}
	opts := dataset.GraphOptions{MaxBytes: maxBytes}
	if set(workload.ParamNodes.Name) && c.Nodes > 0 {
		opts.MaxNodes = c.Nodes
	}
	g, err := dataset.LoadGraph(c.GraphFile, opts)
	var ne *dataset.NodeRangeError
	if errors.As(err, &ne) {
		return env.Invalid(workload.ParamNodes.Name, c.Nodes, "%s %s: every edge of the file is used, so --%s must cover its nodes (omit it to read them all)",
			c.GraphFile, ne, workload.ParamNodes.Name)
	}
	if err != nil {
		return c.fileErr(workload.ParamGraph, err)
	}
	c.Graph = g
	if err := c.prefix(set, workload.ParamNodes, workload.ParamGraph, g.Nodes, "nodes"); err != nil {
		return err
	}
	if set(workload.ParamDegree.Name) {
		return env.Invalid(workload.ParamDegree.Name, c.Degree, "the graph file %s sets the graph", c.GraphFile)
	}
	c.Degree = max(1, (g.Shape[1]+g.Nodes-1)/g.Nodes)
	return nil
}

// checkFileReaders refuses a data file that a selected workload does not
// read, naming the workloads that do.
func (c *RunConfig) checkFileReaders() error {
	ds, err := c.Descriptors()
	if err != nil {
		return err
	}
	for _, p := range []*workload.Param{workload.ParamVectors, workload.ParamQueries, workload.ParamGraph} {
		path := *p.String(&c.Config)
		if path == "" {
			continue
		}
		var readers, not []string
		for _, w := range workload.All() {
			if w.Has(p.Name) {
				readers = append(readers, w.Name)
			}
		}
		for _, w := range ds {
			if !w.Has(p.Name) {
				not = append(not, w.Name)
			}
		}
		if len(not) > 0 {
			return &env.ParamError{Name: p.Name, Value: path, Limit: strings.Join(not, ", ") + " do(es) not read it (workloads that do: " + strings.Join(readers, ", ") + ")"}
		}
	}
	return nil
}

// DataFiles describes the data files the configuration read, for the
// report, and the one-line summary of each.
func (c RunConfig) DataFiles() ([]report.DataFile, []string) {
	var out []report.DataFile
	var lines []string
	add := func(p *workload.Param, info dataset.Info, used int) {
		out = append(out, report.DataFile{Param: p.Name, File: info.File, Format: info.Format, Shape: info.Shape,
			DType: info.DType, SHA256: info.Hash, PaddedTo: info.Padded, Used: used})
		lines = append(lines, fmt.Sprintf("data: %s = %s; %d used", p.Name, info, used))
	}
	if c.Vectors != nil {
		add(workload.ParamVectors, c.Vectors.Info, c.N)
	}
	if c.Queries != nil {
		add(workload.ParamQueries, c.Queries.Info, c.Q)
	}
	if c.Graph != nil {
		add(workload.ParamGraph, c.Graph.Info, c.Nodes)
	}
	return out, lines
}

// DataWarnings are the warnings for data files the configuration reads
// only in part: a size set below a file's rows (or nodes) leaves the rest
// unused, which is said with the count, never silently.
func (c RunConfig) DataWarnings() []string {
	var out []string
	part := func(p, file *workload.Param, used, total int, what string) {
		if used < total {
			out = append(out, fmt.Sprintf("--%s %d uses the first %d of the %d %s of %s: %d %s not used",
				p.Name, used, used, total, what, *file.String(&c.Config), total-used, what))
		}
	}
	if c.Vectors != nil {
		part(workload.ParamN, workload.ParamVectors, c.N, c.Vectors.Rows, "rows")
	}
	if c.Queries != nil {
		part(workload.ParamQ, workload.ParamQueries, c.Q, c.Queries.Rows, "rows")
	}
	return out
}

// FileSized reports whether a data file fixes w's batch size (the file
// that sets its batch parameter), and names the file.
func (c RunConfig) FileSized(w *workload.Descriptor) (string, bool) {
	bp := w.BatchParam()
	if bp == nil || bp.File == "" {
		return "", false
	}
	fp := workload.LookupParam(bp.File)
	if fp == nil || *fp.String(&c.Config) == "" {
		return "", false
	}
	return *fp.String(&c.Config), true
}
