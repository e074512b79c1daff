// Memory-vs-compute experiment, shader A ("memory") of the generic stream
// family: reads the kernel's bytes (src, count vec4s from the start of the
// buffer, each exactly once per dispatch) with the least arithmetic that
// keeps the loads live: one vec4 add per loaded vec4. Then the skeleton
// every shader of the family shares: a tree reduction in workgroup memory
// and one f32 per workgroup written back.
// out[out_base + g] = Σ of the WG·PER vec4s of workgroup g.
// Entry point: main.

override WG: u32 = 64; // threads per workgroup, power of two
const PER: u32 = 16u;  // vec4s per thread

struct Params {
    count: u32,    // vec4s this dispatch reads
    groups: u32,   // workgroups that work (the grid may have more)
    grid_x: u32,   // workgroups along x
    iters: u32,    // shader B's FMA iterations per thread (unused here)
    out_base: u32, // first output of this dispatch
    m: f32,        // shader B's multiplier (unused here)
    c: f32,        // shader B's addend (unused here)
    pad: u32,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> src: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;

var<workgroup> sums: array<f32, WG>;

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let g = wid.x + wid.y * p.grid_x;
    if (g >= p.groups) { return; } // uniform across the workgroup
    let start = g * WG * PER;
    var acc = vec4<f32>(0.0);
    for (var i = 0u; i < PER; i++) {
        let k = start + i * WG + lid; // unit stride across the workgroup
        if (k < p.count) {
            acc += src[k];
        }
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
        out[p.out_base + g] = sums[0];
    }
}
