// Cosine similarity of Q queries against N stored vectors held as int8
// codes (symmetric per-vector quantization, see hostsimd.QuantizeInt8),
// untiled: the design of cosine_batch_naive.wgsl over packed codes.
// S[q][i] = qs[q]·V[i] / (‖qs[q]‖·‖V[i]‖), 0 when either norm is 0, with
// the queries quantized by the same rule on the host.
//
// Four codes are packed in each u32 (byte k of word j is element 4j+k,
// two's complement); q·v is summed exactly in i32 with dot4I8Packed and
// rescaled by the norms of the codes (computed on the host in float64).
// One thread per output (q, i), numbered across a 2-D grid of workgroups
// ((x + y·gridX)·WG + local).

override WG: u32 = 64; // threads per workgroup

struct Params {
    n: u32,       // rows in this chunk of V
    nq: u32,      // queries in this submission
    d4: u32,      // D/4: u32 words per row
    grid_x: u32,  // workgroups along x
    stride: u32,  // N: elements per row of S
    col0: u32,    // first row of this chunk (column of S)
}

@group(0) @binding(0) var<uniform> p: Params;
// qs: [nq][D/4] u32, the queries' codes, four per word
@group(0) @binding(1) var<storage, read> qs: array<u32>;
// qn: [nq] f32, ‖codes of qs[q]‖
@group(0) @binding(2) var<storage, read> qn: array<f32>;
// v: [n][D/4] u32, the rows' codes, four per word (this chunk)
@group(0) @binding(3) var<storage, read> v: array<u32>;
// vn: [n] f32, ‖codes of V[i]‖ of this chunk
@group(0) @binding(4) var<storage, read> vn: array<f32>;
// s: [nq][stride] f32, row-major; this chunk writes columns col0..col0+n-1
@group(0) @binding(5) var<storage, read_write> s: array<f32>;

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let idx = (wid.x + wid.y * p.grid_x) * WG + lid;
    if (idx >= p.n * p.nq) { return; }
    let qi = idx / p.n;
    let i = idx % p.n;
    let qb = qi * p.d4;
    let vb = i * p.d4;
    var acc = 0i;
    for (var k = 0u; k < p.d4; k++) {
        acc += dot4I8Packed(qs[qb + k], v[vb + k]);
    }
    let denom = qn[qi] * vn[i];
    s[qi * p.stride + p.col0 + i] = select(f32(acc) / denom, 0.0, denom == 0.0);
}
