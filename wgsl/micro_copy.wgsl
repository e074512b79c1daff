// Copy bandwidth ceiling: dst = src, vec4 loads and stores with a grid
// stride. Bytes moved = bytes read + bytes written.
// Entry points: main (grid stride); main_chunk (each invocation copies CHUNK
// consecutive vec4s: the ceiling keeps the faster design). Dispatch a 1-D grid.

override WG: u32 = 256; // threads per workgroup
override CHUNK: u32 = 256u; // vec4s per invocation (main_chunk)

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

@compute @workgroup_size(WG)
fn main_chunk(@builtin(global_invocation_id) gid: vec3<u32>) {
    let n4 = arrayLength(&dst);
    let i0 = gid.x * CHUNK;
    let i1 = min(i0 + CHUNK, n4);
    for (var i = i0; i < i1; i++) {
        dst[i] = src[i];
    }
}
