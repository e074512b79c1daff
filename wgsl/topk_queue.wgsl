// Top-k selection by threshold-filtered queues: for each query, the k best
// (index, score) pairs of its scores, descending, equal scores by lower
// index — the same result as topk.wgsl, by another design.
//
// One invocation per (query, slice of at most CH inputs, interleaved:
// slice s of g holds inputs s, s+g, s+2g, …). The invocation keeps its
// slice's best k in a private queue, sorted; the queue's last entry is a
// running threshold, and an input that does not beat it — most of them,
// once the queue has filled — costs one compare. An input that does is
// inserted (shifting the worse entries down). The queue starts as k
// padding pairs (score -FLT_MAX, index 0xffffffff), which rank after every
// real pair. The invocation writes its k pairs; the host runs select_pairs
// over those lists (k per slice) until one list per query is left: two or
// three rounds for the suite's sizes, no workgroup memory, no barrier.
// Invocations are numbered across a 2-D grid of workgroups
// ((x + y·gridX)·WG + local): query t / g, slice t mod g.
// Entry points: select_scores (inputs are f32 scores, the index is the
// position), select_pairs (inputs are pairs from a previous round).

const KQ: u32 = 256u; // queue capacity: MaxTopK

override WG: u32 = 64u;  // invocations per workgroup
override CH: u32 = 256u; // inputs per invocation, ≥ 2k

const PAD_SCORE: f32 = -3.40282347e+38;
const PAD_INDEX: u32 = 0xffffffffu;

struct Params {
    m: u32,          // inputs per query
    g: u32,          // slices per query (= output lists per query)
    k: u32,          // pairs kept per slice
    grid_x: u32,     // workgroups along x
    nq: u32,         // queries
    in_stride: u32,  // elements between one query's inputs and the next's
}

struct Pair {
    index: u32,
    score: f32,
}

@group(0) @binding(0) var<uniform> p: Params;
// scores: [nq][in_stride] f32 (select_scores only)
@group(0) @binding(1) var<storage, read> scores: array<f32>;
// pin: [nq][in_stride] Pair (select_pairs only)
@group(0) @binding(2) var<storage, read> pin: array<Pair>;
// pout: [nq][g][k] Pair, each list descending
@group(0) @binding(3) var<storage, read_write> pout: array<Pair>;

// The queue: qs/qi[0..k), best first.
var<private> qs: array<f32, KQ>;
var<private> qi: array<u32, KQ>;

// better: does (sa, ia) rank before (sb, ib)?
fn better(sa: f32, ia: u32, sb: f32, ib: u32) -> bool {
    return sa > sb || (sa == sb && ia < ib);
}

// push inserts (s, i), which beats qs/qi[k-1], dropping the last entry.
fn push(s: f32, i: u32) {
    var j = p.k - 1u;
    loop {
        if (j == 0u) { break; }
        if (!better(s, i, qs[j - 1u], qi[j - 1u])) { break; }
        qs[j] = qs[j - 1u];
        qi[j] = qi[j - 1u];
        j -= 1u;
    }
    qs[j] = s;
    qi[j] = i;
}

// slot returns this invocation's (query, slice) number t.
fn slot(wid: vec3<u32>, lid: u32) -> u32 {
    return (wid.x + wid.y * p.grid_x) * WG + lid;
}

fn init() {
    for (var j = 0u; j < p.k; j++) {
        qs[j] = PAD_SCORE;
        qi[j] = PAD_INDEX;
    }
}

fn emit(t: u32) {
    let o = t * p.k; // (query·g + slice)·k
    for (var j = 0u; j < p.k; j++) {
        pout[o + j] = Pair(qi[j], qs[j]);
    }
}

@compute @workgroup_size(WG)
fn select_scores(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let t = slot(wid, lid);
    if (t >= p.nq * p.g) { return; }
    let q = t / p.g;
    // Slice t mod g holds inputs t mod g, + g, + 2g, …: neighbouring
    // invocations read neighbouring inputs.
    let e0 = t % p.g;
    init();
    var ts = PAD_SCORE;
    var ti = PAD_INDEX;
    let base = q * p.in_stride;
    for (var e = e0; e < p.m; e += p.g) {
        let s = scores[base + e];
        if (better(s, e, ts, ti)) {
            push(s, e);
            ts = qs[p.k - 1u];
            ti = qi[p.k - 1u];
        }
    }
    emit(t);
}

@compute @workgroup_size(WG)
fn select_pairs(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let t = slot(wid, lid);
    if (t >= p.nq * p.g) { return; }
    let q = t / p.g;
    // Slice t mod g holds inputs t mod g, + g, + 2g, …: neighbouring
    // invocations read neighbouring inputs.
    let e0 = t % p.g;
    init();
    var ts = PAD_SCORE;
    var ti = PAD_INDEX;
    let base = q * p.in_stride;
    for (var e = e0; e < p.m; e += p.g) {
        let x = pin[base + e];
        if (better(x.score, x.index, ts, ti)) {
            push(x.score, x.index);
            ts = qs[p.k - 1u];
            ti = qi[p.k - 1u];
        }
    }
    emit(t);
}
