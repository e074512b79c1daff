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
    // Queries past nq load query nq−1 and are never stored.
    var qb: array<u32, QB>;
    for (var j = 0u; j < QB; j++) {
        qb[j] = min(q0 + j, p.nq - 1u) * p.d4;
    }
    // acc[j] holds query q0+j against the 4 rows.
    var acc: array<vec4<f32>, QB>;
    for (var k = 0u; k < p.d4; k++) {
        let x0 = v[b0 + k];
        let x1 = v[b1 + k];
        let x2 = v[b2 + k];
        let x3 = v[b3 + k];
        for (var j = 0u; j < QB; j++) {
            let y = qs[qb[j] + k];
            acc[j] += vec4<f32>(dot(y, x0), dot(y, x1), dot(y, x2), dot(y, x3));
        }
    }
    for (var j = 0u; j < QB; j++) {
        let q = q0 + j;
        if (q < p.nq) {
            for (var c = 0u; c < 4u; c++) {
                let r = row + c;
                if (r < p.n) {
                    let denom = qn[q] * vn[r];
                    s[q * p.stride + p.col0 + r] = select(acc[j][c] / denom, 0.0, denom == 0.0);
                }
            }
        }
    }
}
