// Run-time loading of the WebGPU implementations (wgpu-native, Dawn).
// Nothing links against them: every function of WGPUPROF_FUNCTIONS
// (wgpu_abi.h) is defined here under wgpu-native's name as a forwarder
// through the table of the implementation in use (wgpuprof_use), which
// wgpuprof_load fills with dlsym (GetProcAddress on Windows): wgpu-native's
// functions as they are, Dawn's through dawn.c's translations. library.go
// decides which file to load and calls wgpuprof_load once per
// implementation.
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loader.h"
#include "dawn_abi.h"

#ifdef _WIN32
// Windows: LoadLibraryA/GetProcAddress. Written to mirror the dlopen path
// but never compiled or run by this project's tests (they run on Linux).
#include <windows.h>
typedef HMODULE wgpuprof_handle;
static wgpuprof_handle lib_open(const char *path) { return LoadLibraryA(path); }
static void *lib_sym(wgpuprof_handle h, const char *name) { return (void *)GetProcAddress(h, name); }
static void lib_close(wgpuprof_handle h) { FreeLibrary(h); }
static void lib_error(char *err, size_t errlen) {
	char msg[512];
	DWORD code = GetLastError();
	DWORD n = FormatMessageA(FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS, NULL, code, 0, msg, sizeof msg, NULL);
	while (n > 0 && (msg[n - 1] == '\r' || msg[n - 1] == '\n' || msg[n - 1] == ' ')) msg[--n] = 0;
	snprintf(err, errlen, "LoadLibrary: error %lu: %s", (unsigned long)code, n > 0 ? msg : "unknown error");
}
#else
// Linux, macOS and other Unix systems: dlopen. RTLD_LOCAL keeps the
// library's symbols out of the global namespace; RTLD_NOW resolves its own
// dependencies at once, so a broken install fails here and not mid-run.
#include <dlfcn.h>
typedef void *wgpuprof_handle;
static wgpuprof_handle lib_open(const char *path) { return dlopen(path, RTLD_NOW | RTLD_LOCAL); }
static void *lib_sym(wgpuprof_handle h, const char *name) { return dlsym(h, name); }
static void lib_close(wgpuprof_handle h) { dlclose(h); }
static void lib_error(char *err, size_t errlen) {
	const char *msg = dlerror();
	snprintf(err, errlen, "dlopen: %s", msg ? msg : "unknown error");
}
#endif

static struct wgpuprof_table tables[wgpuprof_nimpl];
static wgpuprof_handle loaded[wgpuprof_nimpl];
static const char *const impl_names[wgpuprof_nimpl] = {"wgpu-native", "Dawn"};

// The table the forwarders call; NULL until wgpuprof_use picks one.
static const struct wgpuprof_table *volatile current;

// Calling into the library before one was loaded and chosen is a bug in
// this package (library.go loads before any object exists): stop with a
// message instead of jumping to address 0.
static void not_loaded(const char *name) {
	fprintf(stderr, "wgpu-prof: %s called before a WebGPU library was loaded (compute.LoadLibrary)\n", name);
	abort();
}

int wgpuprof_use(int impl) {
	if (impl < 0 || impl >= wgpuprof_nimpl || !loaded[impl]) return -1;
	current = &tables[impl];
	return 0;
}

uint32_t wgpuprof_native_version(void) {
	if (!loaded[wgpuprof_impl_native]) return 0;
	return tables[wgpuprof_impl_native].wgpuGetVersion();
}

// submits counts the queue submissions made through the forwarders, for
// the tests that hold a call to one submission (wgpuprof_submits).
static uint64_t submits;

uint64_t wgpuprof_submits(void) { return __atomic_load_n(&submits, __ATOMIC_RELAXED); }

// The forwarders: same names and signatures as wgpu-native's functions,
// calling the chosen implementation's (the submit forwarder counts too;
// the name test folds away at compile time in every other one).
#define WGPUPROF_FORWARD_R(ret, name, params, args) \
	ret name params { \
		const struct wgpuprof_table *t = current; \
		if (!t) not_loaded(#name); \
		return t->name args; \
	}
#define WGPUPROF_FORWARD_V(name, params, args) \
	void name params { \
		const struct wgpuprof_table *t = current; \
		if (!t) not_loaded(#name); \
		if (__builtin_strcmp(#name, "wgpuQueueSubmit") == 0) \
			__atomic_fetch_add(&submits, 1, __ATOMIC_RELAXED); \
		t->name args; \
	}
WGPUPROF_FUNCTIONS(WGPUPROF_FORWARD_R, WGPUPROF_FORWARD_V)

// wgpu-native's symbol table, in list order, as offsets into a table.
struct wgpuprof_symbol {
	const char *name;
	size_t offset;
};
#define WGPUPROF_SYMBOL_R(ret, name, params, args) {#name, offsetof(struct wgpuprof_table, name)},
#define WGPUPROF_SYMBOL_V(name, params, args) {#name, offsetof(struct wgpuprof_table, name)},
static const struct wgpuprof_symbol symbols[] = {
	WGPUPROF_FUNCTIONS(WGPUPROF_SYMBOL_R, WGPUPROF_SYMBOL_V)
};
#define WGPUPROF_NSYMBOLS (sizeof symbols / sizeof symbols[0])

static void *sym_of(void *h, const char *name) { return lib_sym((wgpuprof_handle)h, name); }

// resolve_native fills t with wgpu-native's functions, all or nothing.
static int resolve_native(wgpuprof_handle h, struct wgpuprof_table *t, char *err, size_t errlen) {
	struct wgpuprof_table found;
	for (size_t i = 0; i < WGPUPROF_NSYMBOLS; i++) {
		void *f = lib_sym(h, symbols[i].name);
		if (!f) {
			snprintf(err, errlen, "no function %s (not wgpu-native, or a version without it)", symbols[i].name);
			return -1;
		}
		// POSIX guarantees dlsym's object pointer converts to a
		// function pointer; storing it through memcpy is the portable
		// spelling of that conversion.
		memcpy((char *)&found + symbols[i].offset, &f, sizeof f);
	}
	*t = found;
	return 0;
}

int wgpuprof_load(int impl, const char *path, char *err, size_t errlen) {
	if (impl < 0 || impl >= wgpuprof_nimpl) {
		snprintf(err, errlen, "no implementation %d", impl);
		return -1;
	}
	if (loaded[impl]) {
		snprintf(err, errlen, "%s is already loaded", impl_names[impl]);
		return -1;
	}
	wgpuprof_handle h = lib_open(path);
	if (!h) {
		lib_error(err, errlen);
		return -1;
	}
	// Resolve everything before publishing anything, so that a library
	// missing one function leaves no pointer into a closed library behind.
	struct wgpuprof_table t;
	int rc = impl == wgpuprof_impl_dawn ? wgpuprof_dawn_resolve(sym_of, (void *)h, &t, err, errlen)
	                                    : resolve_native(h, &t, err, errlen);
	if (rc != 0) {
		lib_close(h);
		return -1;
	}
	tables[impl] = t;
	loaded[impl] = h;
	if (!current) current = &tables[impl];
	return 0;
}
