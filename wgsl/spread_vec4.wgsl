// One step of spreading activation over a CSR graph of incoming edges,
// the same step as spread.wgsl (see there for the formula, the chunks, the
// two bind groups and the convergence counters), with rows padded to a
// multiple of 4 edges (padding: source 0, weight 0, which adds nothing) so
// an invocation reads its row's sources and weights as vec4s.
//
// One invocation per row (rows numbered (x + y·gridX)·WG + local), no
// workgroup memory and no barrier: the converged test is a read of the
// previous step's counter by every invocation (uniform: that step has
// finished), and a changed row adds 1 to its step's counter itself. The
// design for adapters whose invocations are SIMD lanes of a CPU thread
// (lavapipe): four gathers per load instruction, no barrier switches.
// Entry point: main.

override WG: u32 = 64; // invocations per workgroup

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
// dst: [N] f32, activations after the step (a chunk writes its rows)
@group(0) @binding(2) var<storage, read_write> dst: array<f32>;
// counters: [Tcap] atomic u32, changed nodes per step (summed over chunks)
@group(0) @binding(3) var<storage, read_write> counters: array<atomic<u32>>;

// Group 1: per chunk.
@group(1) @binding(0) var<uniform> c: Chunk;
// offsets: [rows+1] u32, rebased to the chunk, in edges (multiples of 4):
// node row0+k's padded edges are cols/weights[offsets[k]/4 .. offsets[k+1]/4]
@group(1) @binding(1) var<storage, read> offsets: array<u32>;
// cols: [padded edges/4] vec4<u32>, source nodes in [0,N) (padding: 0)
@group(1) @binding(2) var<storage, read> cols: array<vec4<u32>>;
// weights: [padded edges/4] vec4<f32> (padding: 0)
@group(1) @binding(3) var<storage, read> weights: array<vec4<f32>>;

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let k = (wid.x + wid.y * c.grid_x) * WG + lid; // row within the chunk
    if (k >= c.rows) { return; }
    if (p.count != 0u && p.step > 0u && atomicLoad(&counters[p.step - 1u]) == 0u) {
        return; // converged: uniform across the dispatch
    }
    let e1 = offsets[k + 1u] / 4u;
    var acc = vec4<f32>(0.0);
    for (var e = offsets[k] / 4u; e < e1; e++) {
        let j = cols[e];
        acc = fma(weights[e], vec4<f32>(src[j.x], src[j.y], src[j.z], src[j.w]), acc);
    }
    let i = c.row0 + k;
    let old = src[i];
    var x = clamp(p.r * old + p.f * ((acc.x + acc.y) + (acc.z + acc.w)), 0.0, 1.0);
    x = select(x, 0.0, x < p.theta);
    dst[i] = x;
    if (p.count != 0u && !(abs(x - old) <= p.eps)) {
        atomicAdd(&counters[p.step], 1u);
    }
}
