// Cosine similarity of Q queries against N stored vectors, register-blocked,
// the queries shared through the subgroup.
// S[q][i] = qs[q]·V[i] / (‖qs[q]‖·‖V[i]‖), 0 when either norm is 0.
//
// As cosine_batch_reg.wgsl, an invocation computes a QB×4 block of S
// (QB = 16 queries × 4 rows) in registers, with no workgroup memory and no
// barrier. The difference is how the queries reach it: per vec4 of D, lane
// l of each subgroup loads the vec4 of queries q0 + l mod 8 and
// q0 + 8 + l mod 8 (two loads per lane instead of sixteen) and every lane
// takes the sixteen from lanes 0…7 with subgroupBroadcast. On an adapter
// that runs a subgroup as one SIMD vector (lavapipe: 8 lanes per AVX2
// vector) this turns sixteen per-lane loads into two and sixteen lane
// extracts; it needs subgroup operations and a subgroup of at least 8
// lanes. All lanes stay active to the end (rows past the chunk are clamped,
// never returned from early), as subgroupBroadcast requires.
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
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32,
        @builtin(subgroup_invocation_id) lane: u32) {
    let t = wid.x + wid.y * p.grid_x;
    if (t >= p.blocks) { return; } // uniform across the workgroup
    let q0 = (t / p.blocks_n) * QB;
    let row = ((t % p.blocks_n) * WG + lid) * 4u;
    // Rows past the chunk load row n−1 (in bounds) and are never stored;
    // the invocation goes on so its subgroup stays whole.
    let b0 = min(row, p.n - 1u) * p.d4;
    let b1 = min(row + 1u, p.n - 1u) * p.d4;
    let b2 = min(row + 2u, p.n - 1u) * p.d4;
    let b3 = min(row + 3u, p.n - 1u) * p.d4;
    // Queries past nq load query nq−1 and are never stored.
    let last = p.nq - 1u;
    let alo = min(q0 + lane % 8u, last) * p.d4;
    let ahi = min(q0 + 8u + lane % 8u, last) * p.d4;
    // acc<j> holds query q0+j against the 4 rows.
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
        let ylo = qs[alo + k];
        let yhi = qs[ahi + k];
        acc0 += dot4(subgroupBroadcast(ylo, 0u), x0, x1, x2, x3);
        acc1 += dot4(subgroupBroadcast(ylo, 1u), x0, x1, x2, x3);
        acc2 += dot4(subgroupBroadcast(ylo, 2u), x0, x1, x2, x3);
        acc3 += dot4(subgroupBroadcast(ylo, 3u), x0, x1, x2, x3);
        acc4 += dot4(subgroupBroadcast(ylo, 4u), x0, x1, x2, x3);
        acc5 += dot4(subgroupBroadcast(ylo, 5u), x0, x1, x2, x3);
        acc6 += dot4(subgroupBroadcast(ylo, 6u), x0, x1, x2, x3);
        acc7 += dot4(subgroupBroadcast(ylo, 7u), x0, x1, x2, x3);
        acc8 += dot4(subgroupBroadcast(yhi, 0u), x0, x1, x2, x3);
        acc9 += dot4(subgroupBroadcast(yhi, 1u), x0, x1, x2, x3);
        acc10 += dot4(subgroupBroadcast(yhi, 2u), x0, x1, x2, x3);
        acc11 += dot4(subgroupBroadcast(yhi, 3u), x0, x1, x2, x3);
        acc12 += dot4(subgroupBroadcast(yhi, 4u), x0, x1, x2, x3);
        acc13 += dot4(subgroupBroadcast(yhi, 5u), x0, x1, x2, x3);
        acc14 += dot4(subgroupBroadcast(yhi, 6u), x0, x1, x2, x3);
        acc15 += dot4(subgroupBroadcast(yhi, 7u), x0, x1, x2, x3);
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
