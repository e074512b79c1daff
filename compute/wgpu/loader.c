// Run-time loading of wgpu-native. Nothing links against libwgpu_native:
// every function of WGPUPROF_FUNCTIONS (wgpu_abi.h) is defined here under
// the library's own name as a forwarder through a function pointer, which
// wgpuprof_load fills with dlsym (GetProcAddress on Windows). library.go
// decides which file to load and calls wgpuprof_load once.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wgpu_abi.h"

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

// One pointer per function, named p_<function>.
#define WGPUPROF_POINTER_R(ret, name, params, args) static ret(*p_##name) params;
#define WGPUPROF_POINTER_V(name, params, args) static void(*p_##name) params;
WGPUPROF_FUNCTIONS(WGPUPROF_POINTER_R, WGPUPROF_POINTER_V)

static wgpuprof_handle loaded;

// Calling into the library before wgpuprof_load succeeded is a bug in this
// package (library.go loads before any object exists): stop with a message
// instead of jumping to address 0.
static void not_loaded(const char *name) {
	fprintf(stderr, "wgpu-prof: %s called before wgpu-native was loaded (compute.LoadLibrary)\n", name);
	abort();
}

// The forwarders: same names and signatures as the library's functions.
#define WGPUPROF_FORWARD_R(ret, name, params, args) \
	ret name params { \
		if (!p_##name) not_loaded(#name); \
		return p_##name args; \
	}
#define WGPUPROF_FORWARD_V(name, params, args) \
	void name params { \
		if (!p_##name) not_loaded(#name); \
		p_##name args; \
	}
WGPUPROF_FUNCTIONS(WGPUPROF_FORWARD_R, WGPUPROF_FORWARD_V)

// The symbol table wgpuprof_load walks, in list order.
struct wgpuprof_symbol {
	const char *name;
	void **slot;
};
#define WGPUPROF_SYMBOL_R(ret, name, params, args) {#name, (void **)&p_##name},
#define WGPUPROF_SYMBOL_V(name, params, args) {#name, (void **)&p_##name},
static const struct wgpuprof_symbol symbols[] = {
	WGPUPROF_FUNCTIONS(WGPUPROF_SYMBOL_R, WGPUPROF_SYMBOL_V)
};
#define WGPUPROF_NSYMBOLS (sizeof symbols / sizeof symbols[0])

int wgpuprof_load(const char *path, char *err, size_t errlen) {
	if (loaded) {
		snprintf(err, errlen, "wgpu-native is already loaded");
		return -1;
	}
	wgpuprof_handle h = lib_open(path);
	if (!h) {
		lib_error(err, errlen);
		return -1;
	}
	// Resolve everything before publishing anything, so that a library
	// missing one function leaves no pointer into a closed library behind.
	void *found[WGPUPROF_NSYMBOLS];
	for (size_t i = 0; i < WGPUPROF_NSYMBOLS; i++) {
		found[i] = lib_sym(h, symbols[i].name);
		if (!found[i]) {
			snprintf(err, errlen, "no function %s (not wgpu-native, or a version without it)", symbols[i].name);
			lib_close(h);
			return -1;
		}
	}
	// POSIX guarantees dlsym's object pointer converts to a function
	// pointer; storing through void ** is the idiom it documents.
	for (size_t i = 0; i < WGPUPROF_NSYMBOLS; i++) {
		*symbols[i].slot = found[i];
	}
	loaded = h;
	return 0;
}
