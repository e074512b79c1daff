// Cosine similarity of one query against N stored vectors held as int8
// codes (symmetric per-vector quantization, see hostsimd.QuantizeInt8).
// s[i] = q·V[i] / (‖q‖·‖V[i]‖), 0 when either norm is 0. The query is
// quantized by the same rule on the host; a cosine does not depend on the
// per-vector scales, so they are not read.
//
// Four codes are packed in each u32 (byte k of word j is element 4j+k,
// two's complement). q·v and v·v are summed exactly in i32 with
// dot4I8Packed (the packed 4×8-bit integer dot product) and rescaled to a
// cosine in f32 at the end: the only rounding is that of the final
// division. i32 sums are exact while D·128² < 2³¹ (D ≤ 65536).
//
// Entry points (the designs of cosine_single.wgsl.tmpl): main, a workgroup
// per row with a tree reduction; main_rows, a row per invocation. main_dot
// and main_sq write the exact integer sums q·v and v·v of each row,
// bit-cast to f32, instead of the cosine (for exact verification).

override WG: u32 = 64; // threads per workgroup, power of two

struct Params {
    n: u32,        // rows in this chunk
    d4: u32,       // D/4: u32 words per row
    grid_x: u32,   // workgroups along x
    q_norm: f32,   // ‖q‖ of the query's codes, computed on the host
}

@group(0) @binding(0) var<uniform> p: Params;
// q: [D/4] u32, the query's codes, four per word
@group(0) @binding(1) var<storage, read> q: array<u32>;
// v: [N][D/4] u32, the rows' codes, four per word, row-major
@group(0) @binding(2) var<storage, read> v: array<u32>;
// s: [N] f32
@group(0) @binding(3) var<storage, read_write> s: array<f32>;

var<workgroup> dots: array<i32, WG>;
var<workgroup> sqs: array<i32, WG>;

fn cosine(dotv: i32, sq: i32) -> f32 {
    let denom = p.q_norm * sqrt(f32(sq));
    return select(f32(dotv) / denom, 0.0, denom == 0.0);
}

// row_sums is a workgroup's reduction of row's q·v and v·v; every thread
// gets them.
fn row_sums(row: u32, lid: u32) -> vec2<i32> {
    let base = row * p.d4;
    var acc = 0i;
    var sq = 0i;
    for (var k = lid; k < p.d4; k += WG) {
        let x = v[base + k];
        acc += dot4I8Packed(q[k], x);
        sq += dot4I8Packed(x, x);
    }
    dots[lid] = acc;
    sqs[lid] = sq;
    workgroupBarrier();
    for (var off = WG / 2u; off > 0u; off >>= 1u) {
        if (lid < off) {
            dots[lid] += dots[lid + off];
            sqs[lid] += sqs[lid + off];
        }
        workgroupBarrier();
    }
    return vec2<i32>(dots[0], sqs[0]);
}

fn row_of(wid: vec3<u32>) -> u32 {
    return wid.x + wid.y * p.grid_x;
}

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let row = row_of(wid);
    if (row >= p.n) { return; } // uniform across the workgroup
    let r = row_sums(row, lid);
    if (lid == 0u) {
        s[row] = cosine(r.x, r.y);
    }
}

@compute @workgroup_size(WG)
fn main_dot(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let row = row_of(wid);
    if (row >= p.n) { return; }
    let r = row_sums(row, lid);
    if (lid == 0u) {
        s[row] = bitcast<f32>(r.x);
    }
}

@compute @workgroup_size(WG)
fn main_sq(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let row = row_of(wid);
    if (row >= p.n) { return; }
    let r = row_sums(row, lid);
    if (lid == 0u) {
        s[row] = bitcast<f32>(r.y);
    }
}

@compute @workgroup_size(WG)
fn main_rows(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let row = row_of(wid) * WG + lid;
    if (row >= p.n) { return; }
    let base = row * p.d4;
    var acc = 0i;
    var sq = 0i;
    for (var k = 0u; k < p.d4; k++) {
        let x = v[base + k];
        acc += dot4I8Packed(q[k], x);
        sq += dot4I8Packed(x, x);
    }
    s[row] = cosine(acc, sq);
}
