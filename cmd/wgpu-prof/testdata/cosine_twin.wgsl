// cosine-single written as a user would: one invocation per stored row.
// With wgpu-prof kernel --cpu-twin cosine-single the tool fills v (N rows
// of D values) and q, sets the override D, and checks s.
override D: u32 = 768u;

@group(0) @binding(0) var<storage, read> v: array<f32>;
@group(0) @binding(1) var<storage, read> q: array<f32>;
@group(0) @binding(2) var<storage, read_write> s: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i >= arrayLength(&s)) {
        return;
    }
    var dot = 0.0;
    var vv = 0.0;
    var qq = 0.0;
    for (var k = 0u; k < D; k++) {
        let a = q[k];
        let b = v[i * D + k];
        dot += a * b;
        vv += b * b;
        qq += a * a;
    }
    s[i] = dot / (sqrt(qq) * sqrt(vv));
}
