/* The run-time loader's interface (loader.c, dawn.c): one table of
 * function pointers per WebGPU implementation, and the choice of the
 * implementation the forwarders of wgpu_abi.h's functions call. */
#ifndef WGPUPROF_LOADER_H
#define WGPUPROF_LOADER_H

#include "wgpu_abi.h"

/* The implementations, as library.go numbers them (Impl). */
enum { wgpuprof_impl_native = 0, wgpuprof_impl_dawn = 1, wgpuprof_nimpl = 2 };

/* Every function of WGPUPROF_FUNCTIONS, with wgpu-native's signature. */
struct wgpuprof_table {
#define WGPUPROF_TABLE_R(ret, name, params, args) ret(*name) params;
#define WGPUPROF_TABLE_V(name, params, args) void(*name) params;
	WGPUPROF_FUNCTIONS(WGPUPROF_TABLE_R, WGPUPROF_TABLE_V)
#undef WGPUPROF_TABLE_R
#undef WGPUPROF_TABLE_V
};

/* Makes impl's table the one the forwarders call. 0 on success, -1 when
 * impl is not loaded. The Go side switches only while no object of the
 * other implementation is alive (library.go). */
int wgpuprof_use(int impl);

/* wgpu-native's wgpuGetVersion, whichever implementation is in use; 0
 * when wgpu-native is not loaded. */
uint32_t wgpuprof_native_version(void);

/* dawn.c's shader dumps: the next device requested on this thread dumps
 * its shaders (on: 1), and what a dumping device logged since the last
 * call, malloc'd (NULL: nothing); stop ends its log. */
void wgpuprof_dawn_dump_next(int on);
char *wgpuprof_dawn_take_log(WGPUDevice device, int stop, int *logged);

/* How many queue submissions the binding has made (every
 * implementation). */
uint64_t wgpuprof_submits(void);

/* dawn.c's feature table, entry i: Dawn's number and the binding's
 * (wgpu-native's) for one feature; 0 past the table's end. */
int wgpuprof_dawn_feature_pair(size_t i, uint32_t *dawn, uint32_t *native);

#endif
