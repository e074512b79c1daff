// Cosine similarity of one query against N stored f32 vectors, one
// subgroup per row. s[i] = q·V[i] / (‖q‖·‖V[i]‖), 0 when either norm is 0.
//
// The subgroup-per-row design of cosine-single (the others are in
// cosine_single.wgsl.tmpl): a subgroup's lanes stride over the row's vec4s
// and reduce with subgroupAdd, with no workgroup memory and no barrier;
// subgroups walk the rows with a grid stride, so any subgroup size works.
// Needs subgroup operations, hence a module of its own: the designs that
// do not need them must compile on adapters without them.

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
// v: [N][D/4] vec4<f32>, row-major
@group(0) @binding(2) var<storage, read> v: array<vec4<f32>>;
// s: [N] f32
@group(0) @binding(3) var<storage, read_write> s: array<f32>;

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(subgroup_id) sid: u32,
        @builtin(num_subgroups) nsg: u32,
        @builtin(subgroup_invocation_id) lane: u32,
        @builtin(subgroup_size) width: u32) {
    let total = nwg.x * nwg.y * nsg;
    for (var row = (wid.x + wid.y * p.grid_x) * nsg + sid; row < p.n; row += total) {
        let base = row * p.d4;
        var acc = vec4<f32>(0.0);
        var sq = vec4<f32>(0.0);
        for (var k = lane; k < p.d4; k += width) {
            let x = v[base + k];
            acc = fma(q[k], x, acc);
            sq = fma(x, x, sq);
        }
        let dotv = subgroupAdd(acc.x + acc.y + acc.z + acc.w);
        let vv = subgroupAdd(sq.x + sq.y + sq.z + sq.w);
        if (lane == 0u) {
            let denom = p.q_norm * sqrt(vv);
            s[row] = select(dotv / denom, 0.0, denom == 0.0);
        }
    }
}
