// The page of wgpu-prof --impl browser: it asks the server that served it
// for jobs, runs the kinds defined in `jobs` below (and nothing else), and
// posts each result back. The protocol is documented in
// internal/browser/doc.go.
'use strict';
(() => {
  const token = new URL(location.href).searchParams.get('t') || '';
  const statusEl = document.getElementById('status');
  let session = '';
  let beat = 0;

  function show(msg) { statusEl.textContent = msg; }
  function message(e) { return String((e && e.message) || e); }

  function stop(msg) {
    if (beat) clearInterval(beat);
    beat = 0;
    show(msg);
  }

  function api(path, method = 'GET', body) {
    const headers = { 'X-Wgpu-Prof-Token': token };
    if (session) headers['X-Wgpu-Prof-Session'] = session;
    const init = { method, headers, cache: 'no-store', credentials: 'omit' };
    if (body !== undefined) {
      headers['Content-Type'] = 'application/json';
      init.body = JSON.stringify(body);
    }
    return fetch(path, init);
  }

  // ---- job "adapter": the browser, its clock and its WebGPU adapters ----

  // The smallest nonzero step of performance.now() over a short busy
  // loop, in ms (100 µs in Chrome unless the page is cross-origin isolated).
  function timerResolution(spanMs = 100) {
    const t0 = performance.now();
    let prev = t0;
    let min = Infinity;
    for (;;) {
      const t = performance.now();
      if (t - t0 > spanMs) break;
      const d = t - prev;
      if (d > 0 && d < min) min = d;
      prev = t;
    }
    return min === Infinity ? 0 : min;
  }

  async function browserInfo() {
    const out = { userAgent: navigator.userAgent, brands: [], platform: '' };
    const uad = navigator.userAgentData;
    if (uad) {
      out.platform = uad.platform || '';
      out.brands = (uad.brands || []).map((b) => ({ brand: b.brand, version: b.version }));
      try {
        const h = await uad.getHighEntropyValues(['fullVersionList']);
        if (h.fullVersionList) out.brands = h.fullVersionList.map((b) => ({ brand: b.brand, version: b.version }));
      } catch (e) { /* the low-entropy brands stay */ }
    }
    return out;
  }

  const probeWGSL = `
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
  out[g.x] = g.x * 2u + 1u;
}`;

  // A tiny dispatch with timestamp writes, three times (the first pays
  // pipeline and driver costs); the last run's begin and end ticks (ns, as
  // decimal strings: they pass 2^53) and its time by performance.now().
  async function probeTimestamps(adapter) {
    if (!adapter.features.has('timestamp-query')) {
      return { offered: false };
    }
    const device = await adapter.requestDevice({ requiredFeatures: ['timestamp-query'] });
    try {
      device.pushErrorScope('validation');
      const module = device.createShaderModule({ code: probeWGSL });
      const pipeline = device.createComputePipeline({ layout: 'auto', compute: { module, entryPoint: 'main' } });
      const out = device.createBuffer({ size: 4 * 64 * 16, usage: GPUBufferUsage.STORAGE });
      const bindGroup = device.createBindGroup({
        layout: pipeline.getBindGroupLayout(0),
        entries: [{ binding: 0, resource: { buffer: out } }],
      });
      const querySet = device.createQuerySet({ type: 'timestamp', count: 2 });
      const resolve = device.createBuffer({ size: 16, usage: GPUBufferUsage.QUERY_RESOLVE | GPUBufferUsage.COPY_SRC });
      const read = device.createBuffer({ size: 16, usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.MAP_READ });
      const err = await device.popErrorScope();
      if (err) throw new Error(err.message);
      let res = { offered: true };
      for (let i = 0; i < 3; i++) {
        const t0 = performance.now();
        const enc = device.createCommandEncoder();
        const pass = enc.beginComputePass({
          timestampWrites: { querySet, beginningOfPassWriteIndex: 0, endOfPassWriteIndex: 1 },
        });
        pass.setPipeline(pipeline);
        pass.setBindGroup(0, bindGroup);
        pass.dispatchWorkgroups(16);
        pass.end();
        enc.resolveQuerySet(querySet, 0, 2, resolve, 0);
        enc.copyBufferToBuffer(resolve, 0, read, 0, 16);
        device.queue.submit([enc.finish()]);
        await read.mapAsync(GPUMapMode.READ);
        const hostMs = performance.now() - t0;
        const ticks = new BigUint64Array(read.getMappedRange().slice(0));
        read.unmap();
        res = { offered: true, begin: ticks[0].toString(), end: ticks[1].toString(), hostMs };
      }
      return res;
    } finally {
      device.destroy();
    }
  }

  async function describeAdapter(adapter, request) {
    let info = adapter.info;
    if (!info && adapter.requestAdapterInfo) info = await adapter.requestAdapterInfo();
    info = info || {};
    const fallback = info.isFallbackAdapter !== undefined ? info.isFallbackAdapter : adapter.isFallbackAdapter;
    const a = {
      request,
      vendor: info.vendor || '',
      architecture: info.architecture || '',
      device: info.device || '',
      description: info.description || '',
      isFallbackAdapter: fallback,
      subgroupMinSize: info.subgroupMinSize,
      subgroupMaxSize: info.subgroupMaxSize,
      features: [...adapter.features].sort(),
      limits: {},
    };
    for (const k in adapter.limits) {
      const v = adapter.limits[k];
      if (typeof v === 'number') a.limits[k] = v;
    }
    try {
      a.timestamps = await probeTimestamps(adapter);
    } catch (e) {
      a.timestamps = { offered: true, error: message(e) };
    }
    return a;
  }

  // Every adapter the browser offers to one of the requests below, once.
  async function adapters() {
    const requests = [
      ['default', undefined],
      ['high-performance', { powerPreference: 'high-performance' }],
      ['low-power', { powerPreference: 'low-power' }],
      ['fallback', { forceFallbackAdapter: true }],
    ];
    const seen = new Map();
    const out = [];
    for (const [name, opts] of requests) {
      let adapter = null;
      try {
        adapter = await navigator.gpu.requestAdapter(opts);
      } catch (e) { /* none for this request */ }
      if (!adapter) continue;
      const info = adapter.info || {};
      const key = JSON.stringify([info.vendor, info.architecture, info.device, info.description,
        [...adapter.features].sort()]);
      if (seen.has(key)) {
        seen.get(key).also.push(name);
        continue;
      }
      const a = await describeAdapter(adapter, name);
      a.also = [];
      seen.set(key, a);
      out.push(a);
    }
    return out;
  }

  async function adapterJob() {
    const out = await browserInfo();
    out.crossOriginIsolated = self.crossOriginIsolated === true;
    out.secureContext = self.isSecureContext === true;
    out.timerResolutionMs = timerResolution();
    out.webgpu = !!navigator.gpu;
    out.adapters = out.webgpu ? await adapters() : [];
    return out;
  }

  // The job kinds this page runs; any other is refused.
  const jobs = new Map([
    ['adapter', adapterJob],
  ]);

  async function run(job) {
    const fn = jobs.get(job.kind);
    if (!fn) return { id: job.id, ok: false, error: `this page has no job "${job.kind}"` };
    try {
      return { id: job.id, ok: true, result: await fn(job.params || {}) };
    } catch (e) {
      return { id: job.id, ok: false, error: message(e) };
    }
  }

  async function main() {
    const hello = await api('/api/hello', 'POST', { userAgent: navigator.userAgent });
    if (!hello.ok) {
      stop(`refused (${hello.status}): ${await hello.text()}`);
      return;
    }
    session = (await hello.json()).session;
    beat = setInterval(() => { api('/api/beat', 'POST').catch(() => {}); }, 500);
    show('connected: waiting for jobs');
    for (;;) {
      const r = await api('/api/job');
      if (r.status === 204) continue;
      if (r.status === 410) {
        stop('done: wgpu-prof has its results; you may close this tab.');
        return;
      }
      if (!r.ok) {
        stop(`refused (${r.status}): ${await r.text()}`);
        return;
      }
      const job = await r.json();
      show(`running job ${job.id}: ${job.kind}`);
      const reply = await run(job);
      const p = await api('/api/result', 'POST', reply);
      if (!p.ok) {
        stop(`result refused (${p.status}): ${await p.text()}`);
        return;
      }
      show('connected: waiting for jobs');
    }
  }

  main().catch((e) => stop(`stopped: ${message(e)} (wgpu-prof ended, or the connection broke)`));
})();
