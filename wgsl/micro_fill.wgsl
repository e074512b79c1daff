// Write-only bandwidth ceiling: fills dst with a pattern that depends on the
// element index and a per-run seed (so a stale buffer from an earlier run
// cannot pass the host's check). Grid-stride, coalesced vec4 stores.
// Element i holds vec4(f32(i & 0xffff), f32(i >> 16), seed, -seed).
// Entry point: main. Dispatch a 1-D grid of any size ≤ the per-dimension limit.

override WG: u32 = 256; // threads per workgroup

struct Params {
    seed: f32,
}

@group(0) @binding(0) var<uniform> p: Params;
// dst: [N4] vec4<f32>
@group(0) @binding(1) var<storage, read_write> dst: array<vec4<f32>>;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
    let n4 = arrayLength(&dst);
    let stride = WG * nwg.x;
    for (var i = gid.x; i < n4; i += stride) {
        dst[i] = vec4<f32>(f32(i & 0xffffu), f32(i >> 16u), p.seed, -p.seed);
    }
}
