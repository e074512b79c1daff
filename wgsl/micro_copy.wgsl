// Copy bandwidth ceiling: dst = src, vec4 loads and stores with a grid
// stride. Bytes moved = bytes read + bytes written.
// Entry point: main. Dispatch a 1-D grid of any size ≤ the per-dimension limit.

override WG: u32 = 256; // threads per workgroup

// src: [N4] vec4<f32>
@group(0) @binding(0) var<storage, read> src: array<vec4<f32>>;
// dst: [N4] vec4<f32>, same length as src
@group(0) @binding(1) var<storage, read_write> dst: array<vec4<f32>>;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
    let n4 = arrayLength(&dst);
    let stride = WG * nwg.x;
    for (var i = gid.x; i < n4; i += stride) {
        dst[i] = src[i];
    }
}
