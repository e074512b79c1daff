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
// Pair slots are numbered across a 2-D grid of workgroups (x + y·grid_x).
//
// Two entry points share the distance code:
//   main          V fits one storage binding: slot t is pair t, its row is
//                 ids[t]. One dispatch.
//   main_chunked  V is split by rows into chunks that each fit one binding
//                 (v binds one chunk per dispatch). The host sorts the
//                 pairs by chunk (a counting sort) and uploads, per slot,
//                 the row local to its chunk (ids) and the pair it belongs
//                 to (perm); dispatch k covers the slots
//                 [base, base + pairs) of chunk k and writes out[perm[slot]].
//   main_pair, main_pair_chunked
//                 the same two layouts with one invocation per pair (no
//                 lanes, no workgroup memory, no barrier): each invocation
//                 reads its row's D/4 vec4s in order. Uncoalesced on a GPU;
//                 the design for adapters whose invocations are SIMD lanes
//                 of a CPU thread (lavapipe), where barriers are dear.
// Separate entry points rather than an override: an automatic layout holds
// exactly the bindings its entry point statically uses, so main's layout
// (no perm) and code are the single-binding kernel whatever the
// implementation does with override-dead branches.

override WG: u32 = 64;      // threads per workgroup, power of two
override LANES: u32 = 16;   // threads per pair, power of two ≤ WG
override METRIC: u32 = 0;   // 0: L2², 1: inner product, 2: cosine

// One block per dispatch (main_chunked: per chunk, at 256-byte offsets).
struct Params {
    pairs: u32,    // slots of this dispatch: Q·C (main), chunk k's pairs (main_chunked)
    c: u32,        // candidates per query
    d4: u32,       // D/4
    grid_x: u32,   // workgroups along x
    base: u32,     // main_chunked: first slot of chunk k in ids and perm (main: 0, unread)
}

@group(0) @binding(0) var<uniform> p: Params;
// q: [Q][D/4] vec4<f32>, row-major
@group(0) @binding(1) var<storage, read> q: array<vec4<f32>>;
// ids: [Q·C] u32, indexed by slot.
//   main: [Q][C] row-major, the row ids into V, every id < N (checked on
//   the host).
//   main_chunked: grouped by chunk (chunk k's slots at [base, base+pairs)),
//   each the row id minus chunk k's first row, so < the chunk's rows.
@group(0) @binding(2) var<storage, read> ids: array<u32>;
// v: [rows][D/4] vec4<f32>, row-major: all of V (main), or chunk k's rows
// of V, rows k·R … min((k+1)·R, N)−1 for the host's rows per chunk R
// (main_chunked)
@group(0) @binding(3) var<storage, read> v: array<vec4<f32>>;
// out: [Q][C] f32, row-major, indexed by pair (= j·C + candidate)
@group(0) @binding(4) var<storage, read_write> out: array<f32>;
// qnorm: [Q] f32, ‖q_j‖ computed on the host in float64 (used by cosine;
// bound, unfilled, for the other metrics)
@group(0) @binding(5) var<storage, read> qnorm: array<f32>;
// perm: [Q·C] u32, the pair of each slot of ids (main_chunked only; a
// permutation of 0 … Q·C−1)
@group(0) @binding(6) var<storage, read> perm: array<u32>;

// (q·v or Σ(q−v)², v·v) per thread
var<workgroup> part: array<vec2<f32>, WG>;

// slot is the pair slot of this thread's lane group.
fn slot(wid: vec3<u32>, lid: u32) -> u32 {
    return (wid.x + wid.y * p.grid_x) * (WG / LANES) + lid / LANES;
}

// distance writes out[pair] = metric(q[pair / C], v[row]) with this
// thread's lane group. Threads past the last slot (live false) still join
// the reduction's barriers, so every thread of the workgroup calls it.
fn distance(pair: u32, row: u32, live: bool, lid: u32) {
    let lane = lid % LANES;
    var acc = vec4<f32>(0.0);
    var sq = vec4<f32>(0.0);
    if (live) {
        let qb = (pair / p.c) * p.d4;
        let vb = row * p.d4;
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
    if (lane == 0u && live) {
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

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let pair = slot(wid, lid);
    let live = pair < p.pairs;
    var row = 0u;
    if (live) {
        row = ids[pair];
    }
    distance(pair, row, live, lid);
}

@compute @workgroup_size(WG)
fn main_chunked(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let t = slot(wid, lid);
    let live = t < p.pairs;
    var pair = 0u;
    var row = 0u;
    if (live) {
        pair = perm[p.base + t];
        row = ids[p.base + t];
    }
    distance(pair, row, live, lid);
}

// pair_distance is distance for one invocation per pair.
fn pair_distance(pair: u32, row: u32) {
    let qb = (pair / p.c) * p.d4;
    let vb = row * p.d4;
    var acc = vec4<f32>(0.0);
    var sq = vec4<f32>(0.0);
    for (var k = 0u; k < p.d4; k++) {
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
    let r = vec2<f32>(acc.x + acc.y + acc.z + acc.w, sq.x + sq.y + sq.z + sq.w);
    let qn = qnorm[pair / p.c]; // read for every metric: keeps the binding in the auto layout
    if (METRIC == 2u) {
        let den = qn * sqrt(r.y);
        out[pair] = select(r.x / den, 0.0, den == 0.0);
    } else {
        out[pair] = r.x;
    }
}

@compute @workgroup_size(WG)
fn main_pair(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let pair = (wid.x + wid.y * p.grid_x) * WG + lid;
    if (pair >= p.pairs) { return; }
    pair_distance(pair, ids[pair]);
}

@compute @workgroup_size(WG)
fn main_pair_chunked(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let t = (wid.x + wid.y * p.grid_x) * WG + lid;
    if (t >= p.pairs) { return; }
    pair_distance(perm[p.base + t], ids[p.base + t]);
}
