package experiment

import "github.com/wgpu-prof/wgpu-prof/internal/workload"

// WorkloadInfo says which measurements apply to one workload, for
// listings that scripts read (wgpu-prof workloads).
type WorkloadInfo struct {
	// Name is the workload's name on the command line.
	Name string
	// Batch names what the break-even's batch size counts.
	Batch string
	// Workgroup and Tile say whether the workgroup and tile sweeps apply.
	Workgroup, Tile bool
	// MemCompute says whether the memory-vs-compute experiment applies.
	MemCompute bool
	// Doc says in one line what one call computes.
	Doc string
}

// Workloads lists every workload in the default suite's order, from the
// descriptors.
func Workloads() []WorkloadInfo {
	var out []WorkloadInfo
	for _, d := range workload.All() {
		out = append(out, WorkloadInfo{
			Name:       d.Name,
			Batch:      d.Batch,
			Workgroup:  d.Has("wg"),
			Tile:       d.Has("tile"),
			MemCompute: d.MemCompute != "",
			Doc:        d.Doc,
		})
	}
	return out
}
