// Memory-vs-compute experiment, shader B ("compute") of the generic stream
// family: the kernel's floating-point operations as vec4 FMAs on values
// held in registers, with no global reads: every thread runs iters
// iterations of two independent vec4 FMA chains (16 flops per iteration),
// a = fma(a, m, c), with m and c from the uniform so nothing folds at
// compile time. Then the family's skeleton: a tree reduction in workgroup
// memory and one f32 per workgroup written back.
// With a0 = lid: out[out_base + g] = Σ_lid 8·(lid·m^iters + c·Σ_{j<iters} m^j).
// Entry point: main.

override WG: u32 = 64; // threads per workgroup, power of two

struct Params {
    count: u32,    // shader A's vec4s (unused here)
    groups: u32,   // workgroups that work (the grid may have more)
    grid_x: u32,   // workgroups along x
    iters: u32,    // FMA iterations per thread
    out_base: u32, // first output of this dispatch
    m: f32,        // multiplier
    c: f32,        // addend
    pad: u32,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;

var<workgroup> sums: array<f32, WG>;

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let g = wid.x + wid.y * p.grid_x;
    if (g >= p.groups) { return; } // uniform across the workgroup
    let m = vec4<f32>(p.m);
    let c = vec4<f32>(p.c);
    var a = vec4<f32>(f32(lid));
    var b = vec4<f32>(f32(lid));
    for (var i = 0u; i < p.iters; i++) {
        a = fma(a, m, c);
        b = fma(b, m, c);
    }
    sums[lid] = ((a.x + a.y) + (a.z + a.w)) + ((b.x + b.y) + (b.z + b.w));
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
