// Cosine similarity of Q queries against N stored vectors, register-blocked.
// S[q][i] = qs[q]·V[i] / (‖qs[q]‖·‖V[i]‖), 0 when either norm is 0.
//
// An invocation computes a QB×4 block of S (QB = 16 queries × 4 rows) in
// registers: per vec4 of D it loads its 4 rows' vec4s once and, for each of
// the workgroup's QB queries, the query's vec4 — an address that is the same
// for every invocation of the workgroup (it depends on the workgroup id and
// the loop counter only), so an adapter can load it once and broadcast it,
// the role subgroupBroadcast plays in the textbook form of this design. No
// workgroup memory, no barrier: V moves ⌈Q/QB⌉ times.
// Blocks are numbered across a 2-D grid of workgroups (x + y·gridX): block t
// covers rows (t mod blocks_n)·4·WG … and queries (t div blocks_n)·QB ….

const QB: u32 = 16u; // queries per invocation (and per workgroup)

override WG: u32 = 64u; // invocations per workgroup

struct Params {
    n: u32,        // rows in this chunk of V
    nq: u32,       // queries in this submission
    d4: u32,       // D/4
    grid_x: u32,   // workgroups along x
    stride: u32,   // N: elements per row of S
    col0: u32,     // first row of this chunk (column of S)
    blocks_n: u32, // ⌈n/(4·WG)⌉
    blocks: u32,   // blocks_n·⌈nq/QB⌉
}

@group(0) @binding(0) var<uniform> p: Params;
// qs: [nq][D/4] vec4<f32>, row-major
@group(0) @binding(1) var<storage, read> qs: array<vec4<f32>>;
// qn: [nq] f32, ‖qs[q]‖ computed on the host in float64
@group(0) @binding(2) var<storage, read> qn: array<f32>;
// v: [n][D/4] vec4<f32>, row-major (this chunk)
@group(0) @binding(3) var<storage, read> v: array<vec4<f32>>;
// vn: [n] f32, ‖V[i]‖ of this chunk, computed at creation
@group(0) @binding(4) var<storage, read> vn: array<f32>;
// s: [nq][stride] f32, row-major; this chunk writes columns col0..col0+n-1
@group(0) @binding(5) var<storage, read_write> s: array<f32>;

// dot4 is y against each of four rows.
fn dot4(y: vec4<f32>, x0: vec4<f32>, x1: vec4<f32>, x2: vec4<f32>, x3: vec4<f32>) -> vec4<f32> {
    return vec4<f32>(dot(y, x0), dot(y, x1), dot(y, x2), dot(y, x3));
}

// store writes query q's scores against rows row … row+3 that exist.
fn store(q: u32, row: u32, acc: vec4<f32>) {
    if (q >= p.nq) { return; }
    for (var c = 0u; c < 4u; c++) {
        let r = row + c;
        if (r < p.n) {
            let denom = qn[q] * vn[r];
            s[q * p.stride + p.col0 + r] = select(acc[c] / denom, 0.0, denom == 0.0);
        }
    }
}

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let t = wid.x + wid.y * p.grid_x;
    if (t >= p.blocks) { return; } // uniform across the workgroup
    let q0 = (t / p.blocks_n) * QB;
    let row = ((t % p.blocks_n) * WG + lid) * 4u;
    if (row >= p.n) { return; }
    // Rows past the chunk load row n−1 (in bounds) and are never stored.
    let b0 = min(row, p.n - 1u) * p.d4;
    let b1 = min(row + 1u, p.n - 1u) * p.d4;
    let b2 = min(row + 2u, p.n - 1u) * p.d4;
    let b3 = min(row + 3u, p.n - 1u) * p.d4;
    // Queries past nq load query nq−1 and are never stored. The offsets
    // depend on the workgroup only: uniform loads.
    let last = p.nq - 1u;
    let a0 = min(q0 + 0u, last) * p.d4;
    let a1 = min(q0 + 1u, last) * p.d4;
    let a2 = min(q0 + 2u, last) * p.d4;
    let a3 = min(q0 + 3u, last) * p.d4;
    let a4 = min(q0 + 4u, last) * p.d4;
    let a5 = min(q0 + 5u, last) * p.d4;
    let a6 = min(q0 + 6u, last) * p.d4;
    let a7 = min(q0 + 7u, last) * p.d4;
    let a8 = min(q0 + 8u, last) * p.d4;
    let a9 = min(q0 + 9u, last) * p.d4;
    let a10 = min(q0 + 10u, last) * p.d4;
    let a11 = min(q0 + 11u, last) * p.d4;
    let a12 = min(q0 + 12u, last) * p.d4;
    let a13 = min(q0 + 13u, last) * p.d4;
    let a14 = min(q0 + 14u, last) * p.d4;
    let a15 = min(q0 + 15u, last) * p.d4;
    // acc<j> holds query q0+j against the 4 rows; unrolled by hand so
    // every accumulator stays a value, never an indexed array.
    var acc0 = vec4<f32>(0.0);
    var acc1 = vec4<f32>(0.0);
    var acc2 = vec4<f32>(0.0);
    var acc3 = vec4<f32>(0.0);
    var acc4 = vec4<f32>(0.0);
    var acc5 = vec4<f32>(0.0);
    var acc6 = vec4<f32>(0.0);
    var acc7 = vec4<f32>(0.0);
    var acc8 = vec4<f32>(0.0);
    var acc9 = vec4<f32>(0.0);
    var acc10 = vec4<f32>(0.0);
    var acc11 = vec4<f32>(0.0);
    var acc12 = vec4<f32>(0.0);
    var acc13 = vec4<f32>(0.0);
    var acc14 = vec4<f32>(0.0);
    var acc15 = vec4<f32>(0.0);
    for (var k = 0u; k < p.d4; k++) {
        let x0 = v[b0 + k];
        let x1 = v[b1 + k];
        let x2 = v[b2 + k];
        let x3 = v[b3 + k];
        acc0 += dot4(qs[a0 + k], x0, x1, x2, x3);
        acc1 += dot4(qs[a1 + k], x0, x1, x2, x3);
        acc2 += dot4(qs[a2 + k], x0, x1, x2, x3);
        acc3 += dot4(qs[a3 + k], x0, x1, x2, x3);
        acc4 += dot4(qs[a4 + k], x0, x1, x2, x3);
        acc5 += dot4(qs[a5 + k], x0, x1, x2, x3);
        acc6 += dot4(qs[a6 + k], x0, x1, x2, x3);
        acc7 += dot4(qs[a7 + k], x0, x1, x2, x3);
        acc8 += dot4(qs[a8 + k], x0, x1, x2, x3);
        acc9 += dot4(qs[a9 + k], x0, x1, x2, x3);
        acc10 += dot4(qs[a10 + k], x0, x1, x2, x3);
        acc11 += dot4(qs[a11 + k], x0, x1, x2, x3);
        acc12 += dot4(qs[a12 + k], x0, x1, x2, x3);
        acc13 += dot4(qs[a13 + k], x0, x1, x2, x3);
        acc14 += dot4(qs[a14 + k], x0, x1, x2, x3);
        acc15 += dot4(qs[a15 + k], x0, x1, x2, x3);
    }
    store(q0 + 0u, row, acc0);
    store(q0 + 1u, row, acc1);
    store(q0 + 2u, row, acc2);
    store(q0 + 3u, row, acc3);
    store(q0 + 4u, row, acc4);
    store(q0 + 5u, row, acc5);
    store(q0 + 6u, row, acc6);
    store(q0 + 7u, row, acc7);
    store(q0 + 8u, row, acc8);
    store(q0 + 9u, row, acc9);
    store(q0 + 10u, row, acc10);
    store(q0 + 11u, row, acc11);
    store(q0 + 12u, row, acc12);
    store(q0 + 13u, row, acc13);
    store(q0 + 14u, row, acc14);
    store(q0 + 15u, row, acc15);
}
