// Arithmetic ceiling with dialable intensity (the empirical roofline, as
// mixbench does it). Each vec4 element is loaded once, goes through FMAS
// dependent steps x = fma(x, a, b) on each of its 4 lanes, and is stored
// once: 8·FMAS flops per 32 bytes moved, an intensity of FMAS/4 flop/byte.
// Two elements are processed per iteration when available, interleaved, so
// each invocation has 8 independent chains to hide FMA latency (WIDE: four
// elements, 16 chains). With MAD the step is written x * a + b, which a
// compiler may contract to one fused instruction or keep as two (an
// implementation that lowers fma() to an exactly rounded software call
// runs the chain far below the rate of the kernels written with * and +).
// a and b come from a uniform so the compiler cannot fold the chain.
// Entry point: main. Dispatch a 1-D grid of any size ≤ the per-dimension limit.

override WG: u32 = 256;     // threads per workgroup
override FMAS: u32 = 4;     // vec4 FMA steps per element loaded
override MAD: bool = false; // x * a + b instead of fma(x, a, b)
override WIDE: bool = false; // four interleaved elements per iteration

struct Params {
    a: f32,
    b: f32,
}

@group(0) @binding(0) var<uniform> p: Params;
// src: [N4] vec4<f32>
@group(0) @binding(1) var<storage, read> src: array<vec4<f32>>;
// dst: [N4] vec4<f32>, same length as src
@group(0) @binding(2) var<storage, read_write> dst: array<vec4<f32>>;

fn step(x: vec4<f32>, a: vec4<f32>, b: vec4<f32>) -> vec4<f32> {
    if (MAD) {
        return x * a + b;
    }
    return fma(x, a, b);
}

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
    let n4 = arrayLength(&dst);
    let stride = WG * nwg.x;
    let a = vec4<f32>(p.a);
    let b = vec4<f32>(p.b);
    var i = gid.x;
    if (WIDE) {
        // Quads i, i+stride, i+2·stride, i+3·stride: four interleaved chains.
        for (; i + 3u * stride < n4; i += 4u * stride) {
            var x = src[i];
            var y = src[i + stride];
            var z = src[i + 2u * stride];
            var w = src[i + 3u * stride];
            for (var k = 0u; k < FMAS; k++) {
                x = step(x, a, b);
                y = step(y, a, b);
                z = step(z, a, b);
                w = step(w, a, b);
            }
            dst[i] = x;
            dst[i + stride] = y;
            dst[i + 2u * stride] = z;
            dst[i + 3u * stride] = w;
        }
    }
    // Pairs i and i+stride: two interleaved chains.
    for (; i + stride < n4; i += 2u * stride) {
        var x = src[i];
        var y = src[i + stride];
        for (var k = 0u; k < FMAS; k++) {
            x = step(x, a, b);
            y = step(y, a, b);
        }
        dst[i] = x;
        dst[i + stride] = y;
    }
    if (i < n4) {
        var x = src[i];
        for (var k = 0u; k < FMAS; k++) {
            x = step(x, a, b);
        }
        dst[i] = x;
    }
}
