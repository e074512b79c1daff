// The tiny call of the latency anatomy: one workgroup of 64 invocations,
// each writing seed + its index, so the host checks a fresh value after
// every call. A call of K dispatches runs this K times in one pass (every
// dispatch writes the same values). The C peer in bench/ runs this file.

struct Params {
    seed: f32,
}

@group(0) @binding(0) var<uniform> p: Params;
// out: [64] f32
@group(0) @binding(1) var<storage, read_write> out: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
    out[g.x] = p.seed + f32(g.x);
}
