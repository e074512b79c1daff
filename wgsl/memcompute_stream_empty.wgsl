// Memory-vs-compute experiment, the empty skeleton of the generic stream
// family: the same launch (grid, dispatches), the same tree reduction in
// workgroup memory and the same one-f32-per-workgroup write-back as
// shaders A and B, with no global reads and no arithmetic loop. Its time
// is subtracted from A, B and the kernel C.
// out[out_base + g] = Σ_lid lid = WG·(WG−1)/2.
// Entry point: main.

override WG: u32 = 64; // threads per workgroup, power of two

struct Params {
    count: u32,
    groups: u32,   // workgroups that work (the grid may have more)
    grid_x: u32,   // workgroups along x
    iters: u32,
    out_base: u32, // first output of this dispatch
    m: f32,
    c: f32,
    pad: u32,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;

var<workgroup> sums: array<f32, WG>;

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let g = wid.x + wid.y * p.grid_x;
    if (g >= p.groups) { return; } // uniform across the workgroup
    sums[lid] = f32(lid);
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
