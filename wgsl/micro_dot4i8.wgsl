// Integer dot-product ceiling, three designs of dot4I8Packed (the packed
// 4×8-bit integer dot product) held in registers: main's chain (below),
// main with ACC and main_block (after it). main: each invocation loads two vec4
// elements (8 u32 words) at i and i + stride; each word w starts a chain
// x ← bitcast<u32>(dot4I8Packed(x, w)) of DOTS dependent steps (8
// independent chains per invocation), and the final words are stored
// once. A step is 4 byte products and their sum: counted as 8 integer ops,
// as an FMA counts 2 flops. Every value stays exact (|x| ≤ 4·128² as i32),
// so the host checks the output word for word.
// Entry points: main, main_block. Dispatch a 1-D grid of any
// size ≤ the per-dimension limit.

override WG: u32 = 256;  // threads per workgroup
override DOTS: u32 = 64; // dependent dot4I8Packed steps per word
override ACC: bool = false; // the accumulator design (next) instead of the chain

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
            a = next(a, wa, k);
            b = next(b, wb, k);
        }
        dst[i] = a;
        dst[i + stride] = b;
    }
    if (i < n4) {
        let wa = src[i];
        var a = wa;
        for (var k = 0u; k < DOTS; k++) {
            a = next(a, wa, k);
        }
        dst[i] = a;
    }
}

// ACC: the throughput design. Each word w keeps an
// accumulator a ← a + dot4I8Packed(w ^ k, w) for k = 0 … DOTS-1 (wrapping
// i32 adds): the packed dot is off the dependency chain, which is the add
// alone, as in a kernel's inner product; k in the operand keeps the dot
// inside the loop. Counted as 8 integer ops a step, like main's.
fn acc_step(a: vec4<u32>, w: vec4<u32>, k: u32) -> vec4<u32> {
    return a + vec4<u32>(
        bitcast<u32>(dot4I8Packed(w.x ^ k, w.x)),
        bitcast<u32>(dot4I8Packed(w.y ^ k, w.y)),
        bitcast<u32>(dot4I8Packed(w.z ^ k, w.z)),
        bitcast<u32>(dot4I8Packed(w.w ^ k, w.w)));
}

// next is one step of main's design: the chain, or with ACC the
// accumulator.
fn next(a: vec4<u32>, w: vec4<u32>, k: u32) -> vec4<u32> {
    if (ACC) {
        return acc_step(a, w, k);
    }
    return step(a, w);
}

// Entry point main_block: the register-blocked design. Each vec4 element
// w of src keeps 16 accumulators a[j][l] ← a[j][l] + dot4I8Packed(w[j] ^
// k, w[l]) for k = 0 … DOTS-1 (wrapping i32 adds): 16 dots a step from 4
// operands that change with k, as a kernel's register block reuses each
// loaded word across several dots; dst[i][l] = w[l] + Σ_j a[j][l].
fn dots4(v: u32, w: vec4<u32>) -> vec4<u32> {
    return vec4<u32>(
        bitcast<u32>(dot4I8Packed(v, w.x)),
        bitcast<u32>(dot4I8Packed(v, w.y)),
        bitcast<u32>(dot4I8Packed(v, w.z)),
        bitcast<u32>(dot4I8Packed(v, w.w)));
}

@compute @workgroup_size(WG)
fn main_block(@builtin(global_invocation_id) gid: vec3<u32>,
              @builtin(num_workgroups) nwg: vec3<u32>) {
    let n4 = arrayLength(&dst);
    let stride = WG * nwg.x;
    for (var i = gid.x; i < n4; i += stride) {
        let w = src[i];
        var a0 = vec4<u32>(0u);
        var a1 = vec4<u32>(0u);
        var a2 = vec4<u32>(0u);
        var a3 = vec4<u32>(0u);
        for (var k = 0u; k < DOTS; k++) {
            let v = w ^ vec4<u32>(k);
            a0 += dots4(v.x, w);
            a1 += dots4(v.y, w);
            a2 += dots4(v.z, w);
            a3 += dots4(v.w, w);
        }
        dst[i] = w + a0 + a1 + a2 + a3;
    }
}
