// Integer dot-product ceiling: chains of dot4I8Packed (the packed 4×8-bit
// integer dot product) held in registers. Each invocation loads two vec4
// elements (8 u32 words) at i and i + stride; each word w starts a chain
// x ← bitcast<u32>(dot4I8Packed(x, w)) of DOTS dependent steps (8
// independent chains per invocation), and the final words are stored
// once. A step is 4 byte products and their sum: counted as 8 integer ops,
// as an FMA counts 2 flops. Every value stays exact (|x| ≤ 4·128² as i32),
// so the host checks the output word for word.
// Entry point: main. Dispatch a 1-D grid of any size ≤ the per-dimension limit.

override WG: u32 = 256;  // threads per workgroup
override DOTS: u32 = 64; // dependent dot4I8Packed steps per word

// src: [N4] vec4<u32>, four int8 per word
@group(0) @binding(0) var<storage, read> src: array<vec4<u32>>;
// dst: [N4] vec4<u32>, same length as src
@group(0) @binding(1) var<storage, read_write> dst: array<vec4<u32>>;

fn step(x: vec4<u32>, w: vec4<u32>) -> vec4<u32> {
    return vec4<u32>(
        bitcast<u32>(dot4I8Packed(x.x, w.x)),
        bitcast<u32>(dot4I8Packed(x.y, w.y)),
        bitcast<u32>(dot4I8Packed(x.z, w.z)),
        bitcast<u32>(dot4I8Packed(x.w, w.w)));
}

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
    let n4 = arrayLength(&dst);
    let stride = WG * nwg.x;
    var i = gid.x;
    for (; i + stride < n4; i += 2u * stride) {
        let wa = src[i];
        let wb = src[i + stride];
        var a = wa;
        var b = wb;
        for (var k = 0u; k < DOTS; k++) {
            a = step(a, wa);
            b = step(b, wb);
        }
        dst[i] = a;
        dst[i + stride] = b;
    }
    if (i < n4) {
        let wa = src[i];
        var a = wa;
        for (var k = 0u; k < DOTS; k++) {
            a = step(a, wa);
        }
        dst[i] = a;
    }
}
