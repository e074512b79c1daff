// HNSW candidate distances: Q queries, each with C candidate ids into the
// resident base set V[N][D] → d[Q][C]:
//   METRIC 0: L2²   Σ (q−v)²
//   METRIC 1: inner product q·v
//   METRIC 2: cosine q·v / (‖q‖·‖v‖), 0 when either norm is 0
//
// The reads are gathers: row ids[pair] of V can be anywhere. Design: a
// group of LANES threads (LANES ≤ WG, both powers of two) per (query,
// candidate) pair, WG/LANES pairs per workgroup. The lanes of a group read
// their row's D/4 vec4s with unit stride, so each gathered row is fetched as
// LANES·16 contiguous bytes per iteration (a full 256-byte segment at 16
// lanes: coalesced, no wasted sectors), and the C pairs of a query sit in
// neighbouring groups, so q stays in cache. Partial sums are reduced across
// the group's lanes in workgroup memory (a tree of log2(LANES) steps; no
// subgroup operations, which not every adapter has). One thread per pair
// would read D/4 vec4s serially with no coalescing across threads; one
// workgroup per pair leaves most threads idle at HNSW's small D/4.
// Pairs are numbered across a 2-D grid of workgroups (x + y·grid_x).

override WG: u32 = 64;      // threads per workgroup, power of two
override LANES: u32 = 16;   // threads per pair, power of two ≤ WG
override METRIC: u32 = 0;   // 0: L2², 1: inner product, 2: cosine

struct Params {
    pairs: u32,    // Q·C
    c: u32,        // candidates per query
    d4: u32,       // D/4
    grid_x: u32,   // workgroups along x
}

@group(0) @binding(0) var<uniform> p: Params;
// q: [Q][D/4] vec4<f32>, row-major
@group(0) @binding(1) var<storage, read> q: array<vec4<f32>>;
// ids: [Q][C] u32, row-major, every id < N (checked on the host)
@group(0) @binding(2) var<storage, read> ids: array<u32>;
// v: [N][D/4] vec4<f32>, row-major
@group(0) @binding(3) var<storage, read> v: array<vec4<f32>>;
// out: [Q][C] f32, row-major
@group(0) @binding(4) var<storage, read_write> out: array<f32>;
// qnorm: [Q] f32, ‖q_j‖ computed on the host in float64 (used by cosine;
// bound, unfilled, for the other metrics)
@group(0) @binding(5) var<storage, read> qnorm: array<f32>;

// (q·v or Σ(q−v)², v·v) per thread
var<workgroup> part: array<vec2<f32>, WG>;

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let group = lid / LANES;
    let lane = lid % LANES;
    let pair = (wid.x + wid.y * p.grid_x) * (WG / LANES) + group;
    var acc = vec4<f32>(0.0);
    var sq = vec4<f32>(0.0);
    if (pair < p.pairs) {
        let qb = (pair / p.c) * p.d4;
        let vb = ids[pair] * p.d4;
        for (var k = lane; k < p.d4; k += LANES) {
            let x = v[vb + k];
            let y = q[qb + k];
            if (METRIC == 0u) {
                let t = y - x;
                acc = fma(t, t, acc);
            } else {
                acc = fma(y, x, acc);
                if (METRIC == 2u) {
                    sq = fma(x, x, sq);
                }
            }
        }
    }
    part[lid] = vec2<f32>(acc.x + acc.y + acc.z + acc.w, sq.x + sq.y + sq.z + sq.w);
    workgroupBarrier();
    for (var off = LANES / 2u; off > 0u; off >>= 1u) {
        if (lane < off) {
            part[lid] += part[lid + off];
        }
        workgroupBarrier();
    }
    if (lane == 0u && pair < p.pairs) {
        let r = part[lid];
        let qn = qnorm[pair / p.c]; // read for every metric: keeps the binding in the auto layout
        if (METRIC == 2u) {
            let den = qn * sqrt(r.y);
            out[pair] = select(r.x / den, 0.0, den == 0.0);
        } else {
            out[pair] = r.x;
        }
    }
}
