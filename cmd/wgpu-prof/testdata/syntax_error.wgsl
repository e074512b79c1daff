override WG: u32 = 64;
@group(0) @binding(0) var<storage, read_write> y: array<f32>;
@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
	y[gid.x] = 1.0 +;
}
