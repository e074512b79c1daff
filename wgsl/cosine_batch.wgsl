// Cosine similarity of Q queries against N stored vectors, tiled.
// S[q][i] = qs[q]·V[i] / (‖qs[q]‖·‖V[i]‖), 0 when either norm is 0.
//
// A workgroup computes a TILE×TILE tile of S (TILE queries × TILE rows) with
// (TILE/4)² threads; each thread owns a 4×4 register block (4 queries × 4
// rows) of the tile. D is walked in chunks of KC = 16 floats: the workgroup
// stages the chunk of its TILE queries and of its TILE rows in workgroup
// memory (each global vec4 read once per tile), then every thread does the
// 4×4 outer product for each of the KC depths from there. So each tile of V
// is read from global memory once per tile of queries, not once per query:
// V moves ⌈Q/TILE⌉ times instead of Q times.
//
// The staged chunks are stored depth-major ([KC][TILE]) so that a thread's
// 4 queries (or 4 rows) at one depth are 4 adjacent floats.
// Workgroup memory: 2·KC·TILE·4 bytes = 128·TILE bytes.
// Tiles are numbered across a 2-D grid of workgroups (x + y·gridX), rows of
// tiles first: tile t covers rows (t mod tilesN)·TILE and queries
// (t div tilesN)·TILE.

const KC: u32 = 16u;  // depth of one staged chunk of D (floats)
const KC4: u32 = 4u;  // KC/4 vec4 per row and chunk

override TILE: u32 = 32u;         // queries and rows per tile, a power of two ≥ 4
override T4: u32 = TILE / 4u;     // threads per side of the tile
override WGT: u32 = T4 * T4;      // threads per workgroup

struct Params {
    n: u32,        // rows in this chunk of V
    nq: u32,       // queries in this submission
    d4: u32,       // D/4
    grid_x: u32,   // workgroups along x
    stride: u32,   // N: elements per row of S
    col0: u32,     // first row of this chunk (column of S)
    tiles_n: u32,  // ⌈n/TILE⌉
    tiles: u32,    // tiles_n·⌈nq/TILE⌉
}

@group(0) @binding(0) var<uniform> p: Params;
// qs: [nq][D/4] vec4<f32>, row-major
@group(0) @binding(1) var<storage, read> qs: array<vec4<f32>>;
// qn: [nq] f32, ‖qs[q]‖ computed on the host in float64
@group(0) @binding(2) var<storage, read> qn: array<f32>;
// v: [n][D/4] vec4<f32>, row-major (this chunk)
@group(0) @binding(3) var<storage, read> v: array<vec4<f32>>;
// vn: [n] f32, ‖V[i]‖ of this chunk, computed at creation
@group(0) @binding(4) var<storage, read> vn: array<f32>;
// s: [nq][stride] f32, row-major; this chunk writes columns col0..col0+n-1
@group(0) @binding(5) var<storage, read_write> s: array<f32>;

// qt, vt: [KC][TILE] f32, depth-major: the staged chunk of the tile's queries
// and rows.
var<workgroup> qt: array<f32, KC * TILE>;
var<workgroup> vt: array<f32, KC * TILE>;

fn out(q: u32, row: u32, dotv: f32) {
    if (q < p.nq && row < p.n) {
        let denom = qn[q] * vn[row];
        s[q * p.stride + p.col0 + row] = select(dotv / denom, 0.0, denom == 0.0);
    }
}

@compute @workgroup_size(WGT)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let t = wid.x + wid.y * p.grid_x;
    if (t >= p.tiles) { return; } // uniform across the workgroup
    let row0 = (t % p.tiles_n) * TILE;
    let q0 = (t / p.tiles_n) * TILE;
    let tx = lid % T4; // this thread's rows: row0 + 4tx .. +3
    let ty = lid / T4; // this thread's queries: q0 + 4ty .. +3
    var acc0 = vec4<f32>(0.0); // query 4ty+0, rows 4tx..4tx+3
    var acc1 = vec4<f32>(0.0);
    var acc2 = vec4<f32>(0.0);
    var acc3 = vec4<f32>(0.0);
    for (var k0 = 0u; k0 < p.d4; k0 += KC4) {
        // Stage TILE×KC of the queries and of the rows, transposed.
        for (var e = lid; e < TILE * KC4; e += WGT) {
            let r = e / KC4;
            let c = e % KC4;
            let k4 = k0 + c;
            var xq = vec4<f32>(0.0);
            var xv = vec4<f32>(0.0);
            if (k4 < p.d4) {
                if (q0 + r < p.nq) { xq = qs[(q0 + r) * p.d4 + k4]; }
                if (row0 + r < p.n) { xv = v[(row0 + r) * p.d4 + k4]; }
            }
            let b = 4u * c * TILE + r;
            qt[b] = xq.x;
            qt[b + TILE] = xq.y;
            qt[b + 2u * TILE] = xq.z;
            qt[b + 3u * TILE] = xq.w;
            vt[b] = xv.x;
            vt[b + TILE] = xv.y;
            vt[b + 2u * TILE] = xv.z;
            vt[b + 3u * TILE] = xv.w;
        }
        workgroupBarrier();
        for (var k = 0u; k < KC; k++) {
            let qa = k * TILE + 4u * ty;
            let va = k * TILE + 4u * tx;
            let b = vec4<f32>(vt[va], vt[va + 1u], vt[va + 2u], vt[va + 3u]);
            acc0 = fma(vec4<f32>(qt[qa]), b, acc0);
            acc1 = fma(vec4<f32>(qt[qa + 1u]), b, acc1);
            acc2 = fma(vec4<f32>(qt[qa + 2u]), b, acc2);
            acc3 = fma(vec4<f32>(qt[qa + 3u]), b, acc3);
        }
        workgroupBarrier();
    }
    let q = q0 + 4u * ty;
    let row = row0 + 4u * tx;
    for (var c = 0u; c < 4u; c++) {
        out(q, row + c, acc0[c]);
        out(q + 1u, row + c, acc1[c]);
        out(q + 2u, row + c, acc2[c]);
        out(q + 3u, row + c, acc3[c]);
    }
}
