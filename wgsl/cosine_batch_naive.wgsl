// Cosine similarity of Q queries against N stored vectors, untiled.
// S[q][i] = qs[q]·V[i] / (‖qs[q]‖·‖V[i]‖), 0 when either norm is 0.
//
// One thread per output (q, i), reading qs[q] and V[i] straight from global
// memory: every query re-reads every row, so V moves Q times. This is the
// baseline the tiled kernel (cosine_batch.wgsl) is measured against.
// Threads are numbered across a 2-D grid of workgroups
// ((x + y·gridX)·WG + local) so the count may exceed
// maxComputeWorkgroupsPerDimension·WG.

override WG: u32 = 64; // threads per workgroup

struct Params {
    n: u32,       // rows in this chunk of V
    nq: u32,      // queries in this submission
    d4: u32,      // D/4
    grid_x: u32,  // workgroups along x
    stride: u32,  // N: elements per row of S
    col0: u32,    // first row of this chunk (column of S)
}

@group(0) @binding(0) var<uniform> p: Params;
// qs: [nq][D/4] vec4<f32>, row-major
@group(0) @binding(1) var<storage, read> qs: array<vec4<f32>>;
// qn: [nq] f32, ‖qs[q]‖ computed on the host in float64
@group(0) @binding(2) var<storage, read> qn: array<f32>;
// v: [n][D/4] vec4<f32>, row-major (this chunk)
@group(0) @binding(3) var<storage, read> v: array<vec4<f32>>;
// vn: [n] f32, ‖V[i]‖ of this chunk, computed at creation
@group(0) @binding(4) var<storage, read> vn: array<f32>;
// s: [nq][stride] f32, row-major; this chunk writes columns col0..col0+n-1
@group(0) @binding(5) var<storage, read_write> s: array<f32>;

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let idx = (wid.x + wid.y * p.grid_x) * WG + lid;
    if (idx >= p.n * p.nq) { return; }
    let qi = idx / p.n;
    let i = idx % p.n;
    let qb = qi * p.d4;
    let vb = i * p.d4;
    var acc = vec4<f32>(0.0);
    for (var k = 0u; k < p.d4; k++) {
        acc = fma(qs[qb + k], v[vb + k], acc);
    }
    let denom = qn[qi] * vn[i];
    let dotv = acc.x + acc.y + acc.z + acc.w;
    s[qi * p.stride + p.col0 + i] = select(dotv / denom, 0.0, denom == 0.0);
}
