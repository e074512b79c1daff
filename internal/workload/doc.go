// Package workload describes every operation wgpu-prof measures, one
// Descriptor per workload, registered in one table (All, Lookup, Parse).
// A descriptor holds everything the rest of the tool knows of its
// workload: its parameters and their checks, how its data and float64
// reference are generated, the bytes and FLOPs of one call, what its
// break-even's batch size counts, its GPU side (a runner of package
// compute) and its host-SIMD twin (package hostsimd), each verified
// against the reference, and the shapes the CPU-only suite runs.
//
// The experiment rooms (internal/experiment and its packages suite,
// crossover, sweeps, ceilings, plan) iterate over descriptors for run,
// breakeven, the sweeps, memory-vs-compute and host; nothing outside this
// package names a workload (TestNoWorkloadNamesOutsideDescriptors
// enforces it).
//
// # Adding a workload
//
// Three files at the least (a templated kernel with named variants is
// also listed in wgsl/wgsl.go):
//
//  1. workload/<name>.go: a *Descriptor (Name, Doc, Batch, Params)
//     registered from init with register, whose Workload is a named type
//     with Prepare, Check, Idle and HostShapes (nil shapes: not in the
//     CPU-only suite). Prepare generates the data and its float64
//     reference once and returns a Prepared whose Cases (a CaseBuilder)
//     build a Case at any batch size: Bytes, Flops, and a GPUBuilder and
//     a CPUBuilder making each a Side, a named type with Poison (outputs
//     set to NaN), Run, Verify (against the reference, NaN never passing:
//     use checkClose and DotTol) and Close. The GPU side runs the shader
//     through compute.NewUserKernel (buffers by WGSL name, initial
//     contents from BufferSpec.Data) unless it needs a dedicated runner
//     in package compute.
//  2. wgsl/<name>.wgsl: the kernel; every *.wgsl file is embedded and
//     reached with wgsl.Source(name) (wgsl.MustSource where it cannot be
//     missing).
//  3. workload/<name>_test.go: checks particular to the workload (a
//     planted error that verification must catch, edge sizes).
//     TestEveryWorkloadBothSides already runs every registered workload on
//     both sides against its reference, and TestEveryVariantVerifies each
//     of its GPU designs (Descriptor.Variants, chosen by Knobs.Variant;
//     the case's Variant label must name the design).
//
// Nothing else changes: the CLI's --workloads and --kernel lists, run,
// breakeven, the sweeps (for the knobs listed in Params), the summaries
// and the plots pick the new descriptor up from the registry.
//
// # Adding a parameter
//
// A parameter is declared once, in params.go: a Config field and a
// *Param giving its name, type, default (and the default of a shorter
// look), range, help and the data file that may set it instead. Listing
// it in a descriptor's Params makes the workload read it. The command
// line defines one flag per Param, Config.Validate checks every Param's
// range, and errors name the parameter with a *ParamError, which only the
// command line maps to its flag.
package workload
