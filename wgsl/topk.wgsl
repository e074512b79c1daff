// Top-k selection: for each query, the k best (index, score) pairs of its
// scores, descending, equal scores by lower index.
//
// One workgroup per (query, slice of SL inputs). The slice is loaded into
// workgroup memory (padding: score -FLT_MAX, index 0xffffffff, which ranks
// after every real pair) and reduced to its best KP (a power of two ≥ k)
// with a bitonic top-k network:
//   1. bitonic-sort blocks of KP, alternately descending and ascending;
//   2. while more than one block is left: the element-wise better of a
//      descending block and the ascending block after it holds the best KP
//      of both as a bitonic sequence; a bitonic merge (log2 KP stages)
//      sorts it, again alternately descending and ascending, and the
//      number of blocks halves. Survivors stay in place (block spacing
//      doubles each level), so every thread reads and writes only its own
//      pairs within a stage and no second buffer is needed.
// The first k of the last block are written out. When a query has more
// than one slice, the host runs the select_pairs entry on the lists this
// produced (k pairs per slice) until one list per query is left.
// Work per input: log2(KP)·(log2(KP)+1)/2 stages in step 1 plus under
// 2·(log2(KP)+1) in step 2, instead of log2(SL)·(log2(SL)+1)/2 for a full sort.
//
// Workgroups are numbered across a 2-D grid (x + y·gridX): query w / g,
// slice w mod g. Entry points: select_scores (inputs are f32 scores, the
// index is the position), select_pairs (inputs are pairs from a previous
// round).

override WG: u32 = 256;  // threads per workgroup
override SL: u32 = 2048; // inputs per workgroup, a power of two
override KP: u32 = 64;   // kept per workgroup, a power of two ≥ k, ≤ SL

const PAD_SCORE: f32 = -3.40282346638528859811704183484516925440e+38; // -FLT_MAX, exactly (Tint refuses a literal that needs rounding to it)
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

var<workgroup> ks: array<f32, SL>;
var<workgroup> ki: array<u32, SL>;

// better: does (sa, ia) rank before (sb, ib)?
fn better(sa: f32, ia: u32, sb: f32, ib: u32) -> bool {
    return sa > sb || (sa == sb && ia < ib);
}

// phys maps a logical position to workgroup memory when surviving blocks of
// KP lie `spacing` blocks apart.
fn phys(l: u32, spacing: u32) -> u32 {
    return (l / KP) * spacing * KP + l % KP;
}

// order puts the better of positions i and j first when desc, last otherwise.
fn order(i: u32, j: u32, desc: bool) {
    let sa = ks[i];
    let ia = ki[i];
    let sb = ks[j];
    let ib = ki[j];
    if (better(sb, ib, sa, ia) == desc) {
        ks[i] = sb;
        ki[i] = ib;
        ks[j] = sa;
        ki[j] = ia;
    }
}

// stage runs one compare-exchange stage over n logical positions: pairs
// (i, i+stride) within runs of 2·stride, direction by bit `dir` of i.
fn stage(lid: u32, n: u32, stride: u32, dir: u32, spacing: u32) {
    for (var q = lid; q < n / 2u; q += WG) {
        let i = 2u * q - (q & (stride - 1u));
        order(phys(i, spacing), phys(i + stride, spacing), (i & dir) == 0u);
    }
    workgroupBarrier();
}

fn select_slice(lid: u32, q: u32, slice: u32) {
    // 1. Sort blocks of KP.
    for (var size = 2u; size <= KP; size <<= 1u) {
        for (var stride = size >> 1u; stride > 0u; stride >>= 1u) {
            stage(lid, SL, stride, size, 1u);
        }
    }
    // 2. Halve the blocks until one is left.
    var spacing = 1u;
    for (var n = SL; n > KP; n >>= 1u) {
        for (var e = lid; e < n / 2u; e += WG) {
            let b = e / KP;
            let j = e % KP;
            let a = phys(2u * b * KP + j, spacing);
            let c = phys((2u * b + 1u) * KP + j, spacing);
            if (better(ks[c], ki[c], ks[a], ki[a])) {
                ks[a] = ks[c];
                ki[a] = ki[c];
            }
        }
        workgroupBarrier();
        spacing <<= 1u;
        for (var stride = KP >> 1u; stride > 0u; stride >>= 1u) {
            stage(lid, n >> 1u, stride, KP, spacing);
        }
    }
    // Block 0 (at 0) is the best KP, descending.
    let o = (q * p.g + slice) * p.k;
    for (var e = lid; e < p.k; e += WG) {
        pout[o + e] = Pair(ki[e], ks[e]);
    }
}

@compute @workgroup_size(WG)
fn select_scores(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let w = wid.x + wid.y * p.grid_x;
    if (w >= p.nq * p.g) { return; } // uniform across the workgroup
    let q = w / p.g;
    let slice = w % p.g;
    for (var e = lid; e < SL; e += WG) {
        let x = slice * SL + e;
        var s = PAD_SCORE;
        var i = PAD_INDEX;
        if (x < p.m) {
            s = scores[q * p.in_stride + x];
            i = x;
        }
        ks[e] = s;
        ki[e] = i;
    }
    workgroupBarrier();
    select_slice(lid, q, slice);
}

@compute @workgroup_size(WG)
fn select_pairs(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let w = wid.x + wid.y * p.grid_x;
    if (w >= p.nq * p.g) { return; }
    let q = w / p.g;
    let slice = w % p.g;
    for (var e = lid; e < SL; e += WG) {
        let x = slice * SL + e;
        var s = PAD_SCORE;
        var i = PAD_INDEX;
        if (x < p.m) {
            let pr = pin[q * p.in_stride + x];
            s = pr.score;
            i = pr.index;
        }
        ks[e] = s;
        ki[e] = i;
    }
    workgroupBarrier();
    select_slice(lid, q, slice);
}
