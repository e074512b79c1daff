// One step of spreading activation over a CSR graph of incoming edges:
//   x      = clamp(r·a[i] + f·Σ_{j→i} w_ji·a[j], 0, 1),  f = (1−r)·δ
//   dst[i] = select(x, 0, x < θ)
// The host records T dispatches of this kernel in one pass, ping-ponging
// src/dst between two buffers (one bind group per step; the per-step
// uniform block carries the step index). Nothing is read back in between.
//
// Convergence without readback: when p.count is set, every node whose value
// changes by more than ε adds 1 to counters[step] (one global atomic per
// workgroup in main_thread, one per changed row in main_workgroup). A step
// whose predecessor's counter is 0 has converged and does nothing, so the
// result stays in the buffer written by the last step that ran (the host
// reads counters first to know which one) — the same stopping rule as the
// CPU's hostsimd.Spread (stop after the first step with max change ≤ ε).
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
    n: u32,        // nodes
    grid_x: u32,   // workgroups along x
    step: u32,     // index of this step, 0-based
    count: u32,    // 1: count changed nodes and stop once converged; 0: neither
    r: f32,        // retention
    f: f32,        // (1−r)·δ, computed on the host in float32
    theta: f32,    // threshold θ
    eps: f32,      // ε: a change > ε counts
}

@group(0) @binding(0) var<uniform> p: Params;
// offsets: [N+1] u32, row i's incoming edges are offsets[i] .. offsets[i+1]
@group(0) @binding(1) var<storage, read> offsets: array<u32>;
// cols: [E] u32, source node j of each edge
@group(0) @binding(2) var<storage, read> cols: array<u32>;
// weights: [E] f32, w_ji of each edge
@group(0) @binding(3) var<storage, read> weights: array<f32>;
// src: [N] f32, activations before the step
@group(0) @binding(4) var<storage, read> src: array<f32>;
// dst: [N] f32, activations after the step
@group(0) @binding(5) var<storage, read_write> dst: array<f32>;
// counters: [Tcap] atomic u32, changed nodes per step
@group(0) @binding(6) var<storage, read_write> counters: array<atomic<u32>>;

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
    let i = (wid.x + wid.y * p.grid_x) * WG + lid;
    if (i < p.n) {
        let e1 = offsets[i + 1u];
        var s = 0.0;
        for (var e = offsets[i]; e < e1; e++) {
            s = fma(weights[e], src[cols[e]], s);
        }
        if (finish(i, s) && p.count != 0u) {
            atomicAdd(&changed, 1u);
        }
    }
    workgroupBarrier();
    if (lid == 0u && p.count != 0u) {
        let c = atomicLoad(&changed);
        if (c != 0u) {
            atomicAdd(&counters[p.step], c);
        }
    }
}

@compute @workgroup_size(WG)
fn main_workgroup(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    if (converged(lid)) { return; }
    let i = wid.x + wid.y * p.grid_x;
    if (i >= p.n) { return; } // uniform across the workgroup
    let e0 = offsets[i];
    let e1 = offsets[i + 1u];
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
        if (finish(i, partial[0]) && p.count != 0u) {
            atomicAdd(&counters[p.step], 1u);
        }
    }
}
