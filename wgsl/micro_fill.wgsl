// Write-only bandwidth ceiling: fills dst with a pattern that depends on the
// element index and a per-run seed (so a stale buffer from an earlier run
// cannot pass the host's check). Grid-stride, coalesced vec4 stores.
// Element i holds vec4(f32(i & 0xffff), f32(i >> 16), seed, -seed).
// Entry points: main (grid stride); main_chunk (each invocation fills CHUNK
// consecutive vec4s: the ceiling keeps the faster design). Dispatch a 1-D grid.

override WG: u32 = 256; // threads per workgroup
override CHUNK: u32 = 256u; // vec4s per invocation (main_chunk)

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

@compute @workgroup_size(WG)
fn main_chunk(@builtin(global_invocation_id) gid: vec3<u32>) {
    let n4 = arrayLength(&dst);
    let i0 = gid.x * CHUNK;
    let i1 = min(i0 + CHUNK, n4);
    for (var i = i0; i < i1; i++) {
        dst[i] = vec4<f32>(f32(i & 0xffffu), f32(i >> 16u), p.seed, -p.seed);
    }
}
