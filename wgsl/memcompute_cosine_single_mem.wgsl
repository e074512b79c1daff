// Memory-vs-compute experiment, shader A ("memory") for cosine_single:
// the same loads as the full kernel (q and every vec4 of V, with the same
// per-workgroup row and the same unit-stride pattern) but minimal
// arithmetic: the loaded vec4s are added, one tree reduction, and one value
// per row is written so the reads cannot be elided.
// s[i] = Σ_k (V[i][k] + q[k]).
// Bindings are those of cosine_single.wgsl (the uniform's q_norm unused).
// Entry point: main.

override WG: u32 = 64; // threads per workgroup, power of two

struct Params {
    n: u32,        // rows in this chunk
    d4: u32,       // D/4
    grid_x: u32,   // workgroups along x
    q_norm: f32,   // unused here
}

@group(0) @binding(0) var<uniform> p: Params;
// q: [D/4] vec4<f32>
@group(0) @binding(1) var<storage, read> q: array<vec4<f32>>;
// v: [N][D/4] vec4<f32>, row-major
@group(0) @binding(2) var<storage, read> v: array<vec4<f32>>;
// s: [N] f32
@group(0) @binding(3) var<storage, read_write> s: array<f32>;

var<workgroup> sums: array<f32, WG>;

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let row = wid.x + wid.y * p.grid_x;
    if (row >= p.n) { return; } // uniform across the workgroup
    let base = row * p.d4;
    var acc = vec4<f32>(0.0);
    for (var k = lid; k < p.d4; k += WG) {
        acc += v[base + k] + q[k];
    }
    sums[lid] = (acc.x + acc.y) + (acc.z + acc.w);
    workgroupBarrier();
    for (var off = WG / 2u; off > 0u; off >>= 1u) {
        if (lid < off) {
            sums[lid] += sums[lid + off];
        }
        workgroupBarrier();
    }
    if (lid == 0u) {
        s[row] = sums[0];
    }
}
