// Read-only bandwidth ceiling: a reduction over src that reads every byte
// once. Each invocation sums vec4s with a grid stride (consecutive
// invocations read consecutive vec4s: coalesced), then a tree reduction in
// workgroup memory; one partial sum per workgroup is written, so the reads
// cannot be elided and the host can check the total.
// Entry point: main. Dispatch a 1-D grid of any size ≤ the per-dimension limit.
//
// Other designs of the same reduction, for adapters where barriers or
// strided lanes cost differently (the ceiling keeps the fastest):
//   main_chunk   each invocation sums CHUNK consecutive vec4s and writes
//                its own partial: no workgroup memory, no barrier.
//   main_stride  grid stride as main, but each invocation writes its own
//                partial: no workgroup memory, no barrier.
//   main_chunk_rep  main_chunk over REPS copies of src (cache-resident
//                working sets; see below).
// Both write partial[global invocation index]; dispatch a 1-D grid.

override WG: u32 = 256; // threads per workgroup, power of two
override CHUNK: u32 = 256u; // vec4s per invocation (main_chunk)

// src: [N4] vec4<f32>
@group(0) @binding(0) var<storage, read> src: array<vec4<f32>>;
// partial: [workgroups] f32, one sum per workgroup
@group(0) @binding(1) var<storage, read_write> partial: array<f32>;

var<workgroup> sums: array<f32, WG>;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>,
        @builtin(local_invocation_index) lid: u32,
        @builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
    let n4 = arrayLength(&src);
    let stride = WG * nwg.x;
    var acc = vec4<f32>(0.0);
    for (var i = gid.x; i < n4; i += stride) {
        acc += src[i];
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
        partial[wid.x] = sums[0];
    }
}

@compute @workgroup_size(WG)
fn main_chunk(@builtin(global_invocation_id) gid: vec3<u32>) {
    let n4 = arrayLength(&src);
    let i0 = gid.x * CHUNK;
    let i1 = min(i0 + CHUNK, n4);
    var acc = vec4<f32>(0.0);
    for (var i = i0; i < i1; i++) {
        acc += src[i];
    }
    partial[gid.x] = (acc.x + acc.y) + (acc.z + acc.w);
}

@compute @workgroup_size(WG)
fn main_stride(@builtin(global_invocation_id) gid: vec3<u32>,
               @builtin(num_workgroups) nwg: vec3<u32>) {
    let n4 = arrayLength(&src);
    let stride = WG * nwg.x;
    var acc = vec4<f32>(0.0);
    for (var i = gid.x; i < n4; i += stride) {
        acc += src[i];
    }
    partial[gid.x] = (acc.x + acc.y) + (acc.z + acc.w);
}

// main_chunk_rep: main_chunk over REPS back-to-back copies of src, for a
// cache-resident working set: invocation g sums chunk g mod ⌈N4/CHUNK⌉, so
// one dispatch reads src REPS times while the data it touches stays the
// size of src (a small buffer read once is dominated by the dispatch's own
// start-up, which is not a bandwidth). Invocations past REPS copies write 0.
override REPS: u32 = 1u;

@compute @workgroup_size(WG)
fn main_chunk_rep(@builtin(global_invocation_id) gid: vec3<u32>) {
    let n4 = arrayLength(&src);
    let chunks = (n4 + CHUNK - 1u) / CHUNK;
    let i0 = (gid.x % chunks) * CHUNK;
    // No branch around the loop (lavapipe masks a loop under an if):
    // invocations past the copies get an empty range.
    let i1 = select(i0, min(i0 + CHUNK, n4), gid.x < chunks * REPS);
    var acc = vec4<f32>(0.0);
    for (var i = i0; i < i1; i++) {
        acc += src[i];
    }
    partial[gid.x] = (acc.x + acc.y) + (acc.z + acc.w);
}
