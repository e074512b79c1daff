"""tinycall.py: the tiny GPU call made from Python straight through
wgpu-native's C API (cffi, the library bundled in the pinned "wgpu" wheel:
the same wgpu-native wgpu-prof loads), the Python peer of bench/tinycall.c.

    bench/.venv/bin/python bench/tinycall.py WGSL CALLS K...
    bench/.venv/bin/python bench/tinycall.py WGSL serve

The device, pipeline, buffers and bind group are made once with wgpu-py;
every call then goes through the C functions only: a 16-byte uniform
write, K dispatches of one 64-invocation workgroup in one pass and a
4-byte copy to a mapped staging buffer in one command buffer and one
submit, one map, one blocking wgpuDevicePoll, the value checked. Prints
"K <k> median_us <m> min_us <lo> calls <n>" per K after CALLS/4 warm-up
calls, as the C and Go sides do; serve answers "K N" lines on stdin with
"<median_us> <min_us>" of N timed calls, as bench/tinycall.c does.
"""
import statistics
import sys
import time

import wgpu
from wgpu.backends.wgpu_native._ffi import ffi, lib


def main():
    serve = len(sys.argv) == 3 and sys.argv[2] == "serve"
    if len(sys.argv) < 4 and not serve:
        sys.exit("usage: tinycall.py WGSL CALLS K... | tinycall.py WGSL serve")
    src = open(sys.argv[1]).read()
    calls = 1 if serve else int(sys.argv[2])
    ks = [int(k) for k in sys.argv[3:]]
    if calls < 1 or any(k < 1 for k in ks):
        sys.exit("tinycall.py: CALLS and every K must be at least 1")
    adapter = wgpu.gpu.request_adapter_sync()
    print(f"tinycall.py: adapter {adapter.info['device']} ({adapter.info['backend_type']})", file=sys.stderr)
    device = adapter.request_device_sync()
    mod = device.create_shader_module(code=src)
    pipeline = device.create_compute_pipeline(layout="auto", compute={"module": mod, "entry_point": "main"})
    BU = wgpu.BufferUsage
    params = device.create_buffer(size=16, usage=BU.UNIFORM | BU.COPY_DST)
    out = device.create_buffer(size=256, usage=BU.STORAGE | BU.COPY_SRC)
    staging = device.create_buffer(size=4096, usage=BU.MAP_READ | BU.COPY_DST)
    bg = device.create_bind_group(layout=pipeline.get_bind_group_layout(0), entries=[
        {"binding": 0, "resource": {"buffer": params, "offset": 0, "size": 16}},
        {"binding": 1, "resource": {"buffer": out, "offset": 0, "size": 256}},
    ])
    dev, q = device._internal, device.queue._internal
    cpipe, cbg = pipeline._internal, bg._internal
    cparams, cout, cst = params._internal, out._internal, staging._internal
    blk = ffi.new("float[4]")
    status = ffi.new("int*")

    @ffi.callback("void(WGPUMapAsyncStatus, WGPUStringView, void *, void *)")
    def on_map(st, msg, u1, u2):
        status[0] = st

    mi = ffi.new("WGPUBufferMapCallbackInfo *")
    mi.mode = lib.WGPUCallbackMode_AllowSpontaneous
    mi.callback = on_map
    cmdp = ffi.new("WGPUCommandBuffer[1]")
    NULL = ffi.NULL
    count = [0]

    def call(k):
        count[0] += 1
        seed = float(count[0] % (1 << 20) + 1)
        blk[0] = seed
        lib.wgpuQueueWriteBuffer(q, cparams, 0, blk, 16)
        enc = lib.wgpuDeviceCreateCommandEncoder(dev, NULL)
        pe = lib.wgpuCommandEncoderBeginComputePass(enc, NULL)
        for _ in range(k):
            lib.wgpuComputePassEncoderSetPipeline(pe, cpipe)
            lib.wgpuComputePassEncoderSetBindGroup(pe, 0, cbg, 0, NULL)
            lib.wgpuComputePassEncoderDispatchWorkgroups(pe, 1, 1, 1)
        lib.wgpuComputePassEncoderEnd(pe)
        lib.wgpuComputePassEncoderRelease(pe)
        lib.wgpuCommandEncoderCopyBufferToBuffer(enc, cout, 0, cst, 0, 4)
        cmdp[0] = lib.wgpuCommandEncoderFinish(enc, NULL)
        lib.wgpuCommandEncoderRelease(enc)
        lib.wgpuQueueSubmit(q, 1, cmdp)
        lib.wgpuCommandBufferRelease(cmdp[0])
        status[0] = 0
        lib.wgpuBufferMapAsync(cst, lib.WGPUMapMode_Read, 0, 4, mi[0])
        lib.wgpuDevicePoll(dev, True, NULL)
        while status[0] == 0:
            lib.wgpuDevicePoll(dev, False, NULL)
        if status[0] != lib.WGPUMapAsyncStatus_Success:
            sys.exit(f"tinycall.py: map failed ({status[0]})")
        got = ffi.cast("float *", lib.wgpuBufferGetConstMappedRange(cst, 0, 4))[0]
        lib.wgpuBufferUnmap(cst)
        if got != seed:
            sys.exit(f"tinycall.py: read back {got}, want {seed}")

    def timed(k, n):
        t = []
        for _ in range(n):
            t0 = time.perf_counter()
            call(k)
            t.append((time.perf_counter() - t0) * 1e6)
        return t

    if serve:
        for line in sys.stdin:
            k, n = (int(x) for x in line.split())
            if k < 1 or n < 1:
                sys.exit("tinycall.py: K and N must be at least 1")
            t = timed(k, n)
            print(f"{statistics.median(t):.3f} {min(t):.3f}", flush=True)
        return
    for k in ks:
        timed(k, calls // 4 + 1)
        t = timed(k, calls)
        print(f"K {k} median_us {statistics.median(t):.2f} min_us {min(t):.2f} calls {len(t)}", flush=True)


if __name__ == "__main__":
    main()
