enable f16;

// Cosine similarity of one query against N stored vectors held as f16.
// s[i] = q·V[i] / (‖q‖·‖V[i]‖), 0 when either norm is 0.
//
// Same structure as cosine_single.wgsl (one workgroup per row, unit-stride
// vec4 loads, tree reduction in workgroup memory), but V is stored as
// IEEE binary16: each vec4<f16> load moves 8 bytes instead of 16. Every
// value is widened to f32 (exactly) before it is used, and all products
// and sums are f32, so the only error f16 adds is the rounding of V at
// upload. Needs the shader-f16 feature.
// Entry points: main (norms computed from V), main_norms (precomputed ‖V[i]‖).

override WG: u32 = 64; // threads per workgroup, power of two

struct Params {
    n: u32,        // rows in this chunk
    d4: u32,       // D/4
    grid_x: u32,   // workgroups along x
    q_norm: f32,   // ‖q‖, computed on the host in float64
}

@group(0) @binding(0) var<uniform> p: Params;
// q: [D/4] vec4<f32>
@group(0) @binding(1) var<storage, read> q: array<vec4<f32>>;
// v: [N][D/4] vec4<f16>, row-major
@group(0) @binding(2) var<storage, read> v: array<vec4<f16>>;
// s: [N] f32
@group(0) @binding(3) var<storage, read_write> s: array<f32>;
// norms: [N] f32, ‖V[i]‖ of the f16 values (used by main_norms only)
@group(0) @binding(4) var<storage, read> norms: array<f32>;

var<workgroup> dots: array<f32, WG>;
var<workgroup> sqs: array<f32, WG>;

fn finish(row: u32, dotv: f32, vnorm: f32) {
    let denom = p.q_norm * vnorm;
    s[row] = select(dotv / denom, 0.0, denom == 0.0);
}

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let row = wid.x + wid.y * p.grid_x;
    if (row >= p.n) { return; } // uniform across the workgroup
    let base = row * p.d4;
    var acc = vec4<f32>(0.0);
    var sq = vec4<f32>(0.0);
    for (var k = lid; k < p.d4; k += WG) {
        let x = vec4<f32>(v[base + k]);
        acc = fma(q[k], x, acc);
        sq = fma(x, x, sq);
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
        finish(row, dots[0], sqrt(sqs[0]));
    }
}

@compute @workgroup_size(WG)
fn main_norms(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let row = wid.x + wid.y * p.grid_x;
    if (row >= p.n) { return; }
    let base = row * p.d4;
    var acc = vec4<f32>(0.0);
    for (var k = lid; k < p.d4; k += WG) {
        acc = fma(q[k], vec4<f32>(v[base + k]), acc);
    }
    dots[lid] = acc.x + acc.y + acc.z + acc.w;
    workgroupBarrier();
    for (var off = WG / 2u; off > 0u; off >>= 1u) {
        if (lid < off) {
            dots[lid] += dots[lid + off];
        }
        workgroupBarrier();
    }
    if (lid == 0u) {
        finish(row, dots[0], norms[row]);
    }
}
