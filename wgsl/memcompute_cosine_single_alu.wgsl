// Memory-vs-compute experiment, shader B ("compute") for cosine_single:
// the full kernel's arithmetic (two vec4 FMAs per element, the same
// two-array tree reduction and the same normalisation) on values made in
// registers, with no global reads. Element k of row i is
//   x = (1 + (i & 15)/32)·X0 + k·DX,   q = Q0 + k·DQ,
// kept by one add per element (dyadic values: exact in f32, so the host
// can recompute the result). The output is the cosine of those vectors,
// s[i] = q·x / (p.q_norm·‖x‖).
// Bindings are those of cosine_single.wgsl that this uses: 0 and 3.
// Entry point: main.

override WG: u32 = 64; // threads per workgroup, power of two

const X0 = vec4<f32>(0.0625, 0.125, 0.1875, 0.25);
const DX = vec4<f32>(0.0009765625, 0.0009765625, 0.00048828125, 0.00048828125); // 2^-10, 2^-11
const Q0 = vec4<f32>(-0.5, 0.25, -0.125, 0.375);
const DQ = vec4<f32>(0.00048828125, -0.00048828125, 0.000244140625, -0.000244140625); // ±2^-11, ±2^-12

struct Params {
    n: u32,        // rows in this chunk
    d4: u32,       // D/4
    grid_x: u32,   // workgroups along x
    q_norm: f32,   // the divisor's query norm
}

@group(0) @binding(0) var<uniform> p: Params;
// s: [N] f32
@group(0) @binding(3) var<storage, read_write> s: array<f32>;

var<workgroup> dots: array<f32, WG>;
var<workgroup> sqs: array<f32, WG>;

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let row = wid.x + wid.y * p.grid_x;
    if (row >= p.n) { return; }
    var x = (1.0 + f32(row & 15u) * 0.03125) * X0 + f32(lid) * DX;
    var qv = Q0 + f32(lid) * DQ;
    let step_x = f32(WG) * DX;
    let step_q = f32(WG) * DQ;
    var acc = vec4<f32>(0.0);
    var sq = vec4<f32>(0.0);
    for (var k = lid; k < p.d4; k += WG) {
        acc = fma(qv, x, acc);
        sq = fma(x, x, sq);
        x += step_x;
        qv += step_q;
    }
    dots[lid] = acc.x + acc.y + acc.z + acc.w;
    sqs[lid] = sq.x + sq.y + sq.z + sq.w;
    workgroupBarrier();
    for (var off = WG / 2u; off > 0u; off >>= 1u) {
        if (lid < off) {
            dots[lid] += dots[lid + off];
            sqs[lid] += sqs[lid + off];
        }
        workgroupBarrier();
    }
    if (lid == 0u) {
        let denom = p.q_norm * sqrt(sqs[0]);
        s[row] = select(dots[0] / denom, 0.0, denom == 0.0);
    }
}
