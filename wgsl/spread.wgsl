// One step of spreading activation over a CSR graph of incoming edges:
//   x      = clamp(r·a[i] + f·Σ_{j→i} w_ji·a[j], 0, 1),  f = (1−r)·δ
//   dst[i] = select(x, 0, x < θ)
// The host records T steps in one pass, ping-ponging src/dst between two
// buffers. Nothing is read back in between.
//
// Chunks: the rows (destination nodes) are split into K contiguous row
// ranges so that each range's offsets, cols and weights fit one storage
// binding each (K = 1 unless the graph is past maxStorageBufferBindingSize).
// The bindings are in two groups so no bind group is needed per (step,
// chunk) pair:
//   group 0, one per step:  the step's uniform block, src, dst, counters
//   group 1, one per chunk: the chunk's row range, offsets, cols, weights
// A step is K dispatches (one per chunk) before the next step's; each
// dispatch writes only its own rows of dst but reads all of src (the sources
// cols[e] span every node), so src and dst stay whole, one binding each.
//
// Convergence without readback: when p.count is set, every node whose value
// changes by more than ε adds 1 to counters[step] (one global atomic per
// workgroup in main_thread, one per changed row in main_workgroup); all K
// chunks of a step add to the same counter. A step whose predecessor's
// counter is 0 has converged and does nothing, so the result stays in the
// buffer written by the last step that ran (the host reads counters first
// to know which one) — the same stopping rule as the CPU's hostsimd.Spread
// (stop after the first step with max change ≤ ε). WebGPU orders the
// dispatches of a pass for their storage writes, so every chunk of step s
// has finished counters[s] before any chunk of step s+1 reads it.
//
// Entry points:
//   main_thread    — one thread per row; rows numbered across a 2-D grid of
//                    workgroups. Cheap for short rows, unbalanced for skewed
//                    (power-law) degree: a warp waits for its longest row.
//   main_workgroup — one workgroup per row; WG threads stride over the row's
//                    edges (coalesced reads of cols and weights), partial sums
//                    reduced in workgroup memory. For long rows.

override WG: u32 = 64; // threads per workgroup, power of two

struct Params {
    step: u32,     // index of this step, 0-based
    count: u32,    // 1: count changed nodes and stop once converged; 0: neither
    r: f32,        // retention
    f: f32,        // (1−r)·δ, computed on the host in float32
    theta: f32,    // threshold θ
    eps: f32,      // ε: a change > ε counts
}

struct Chunk {
    row0: u32,     // first node of the chunk
    rows: u32,     // nodes in the chunk: row0 .. row0+rows-1
    grid_x: u32,   // workgroups along x of this chunk's dispatch
    _pad: u32,
}

// Group 0: per step.
@group(0) @binding(0) var<uniform> p: Params;
// src: [N] f32, activations before the step (all nodes)
@group(0) @binding(1) var<storage, read> src: array<f32>;
// dst: [N] f32, activations after the step (all nodes; a chunk writes
// dst[row0 .. row0+rows-1])
@group(0) @binding(2) var<storage, read_write> dst: array<f32>;
// counters: [Tcap] atomic u32, changed nodes per step (summed over chunks)
@group(0) @binding(3) var<storage, read_write> counters: array<atomic<u32>>;

// Group 1: per chunk.
@group(1) @binding(0) var<uniform> c: Chunk;
// offsets: [rows+1] u32, rebased to the chunk: node row0+k's incoming edges
// are cols/weights[offsets[k] .. offsets[k+1]], offsets[0] = 0
@group(1) @binding(1) var<storage, read> offsets: array<u32>;
// cols: [edges of the chunk] u32, source node j of each edge, in [0,N)
@group(1) @binding(2) var<storage, read> cols: array<u32>;
// weights: [edges of the chunk] f32, w_ji of each edge
@group(1) @binding(3) var<storage, read> weights: array<f32>;

var<workgroup> partial: array<f32, WG>;
var<workgroup> changed: atomic<u32>;
var<workgroup> stop_flag: u32;

// converged reports whether an earlier step already met ε (read by one
// thread, shared through workgroup memory so the answer is uniform).
fn converged(lid: u32) -> bool {
    if (lid == 0u) {
        var s = 0u;
        if (p.count != 0u && p.step > 0u && atomicLoad(&counters[p.step - 1u]) == 0u) {
            s = 1u;
        }
        stop_flag = s;
        atomicStore(&changed, 0u);
    }
    return workgroupUniformLoad(&stop_flag) != 0u;
}

// finish writes node i and reports whether it changed by more than ε
// (NaN counts as changed, as on the CPU).
fn finish(i: u32, sum: f32) -> bool {
    let old = src[i];
    var x = clamp(p.r * old + p.f * sum, 0.0, 1.0);
    x = select(x, 0.0, x < p.theta);
    dst[i] = x;
    return !(abs(x - old) <= p.eps);
}

@compute @workgroup_size(WG)
fn main_thread(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    if (converged(lid)) { return; } // uniform across the workgroup
    let k = (wid.x + wid.y * c.grid_x) * WG + lid; // row within the chunk
    if (k < c.rows) {
        let e1 = offsets[k + 1u];
        var s = 0.0;
        for (var e = offsets[k]; e < e1; e++) {
            s = fma(weights[e], src[cols[e]], s);
        }
        if (finish(c.row0 + k, s) && p.count != 0u) {
            atomicAdd(&changed, 1u);
        }
    }
    workgroupBarrier();
    if (lid == 0u && p.count != 0u) {
        let n = atomicLoad(&changed);
        if (n != 0u) {
            atomicAdd(&counters[p.step], n);
        }
    }
}

@compute @workgroup_size(WG)
fn main_workgroup(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    if (converged(lid)) { return; }
    let k = wid.x + wid.y * c.grid_x; // row within the chunk
    if (k >= c.rows) { return; } // uniform across the workgroup
    let e0 = offsets[k];
    let e1 = offsets[k + 1u];
    var s = 0.0;
    for (var e = e0 + lid; e < e1; e += WG) {
        s = fma(weights[e], src[cols[e]], s);
    }
    partial[lid] = s;
    workgroupBarrier();
    for (var off = WG / 2u; off > 0u; off >>= 1u) {
        if (lid < off) {
            partial[lid] += partial[lid + off];
        }
        workgroupBarrier();
    }
    if (lid == 0u) {
        if (finish(c.row0 + k, partial[0]) && p.count != 0u) {
            atomicAdd(&counters[p.step], 1u);
        }
    }
}
