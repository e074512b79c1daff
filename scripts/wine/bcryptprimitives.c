/*
 * bcryptprimitives.dll for Wine 8, which lacks it: Go 1.22 and later load
 * ProcessPrng from it at start-up (runtime/os_windows.go) and stop when it
 * is missing. This DLL exports that one function, filled from
 * BCryptGenRandom with the system-preferred RNG, which Wine implements.
 * scripts/setup.sh builds it with mingw-w64 for the tests that run the
 * Windows build under Wine; it is never shipped.
 */
#include <windows.h>
#include <bcrypt.h>

#ifndef BCRYPT_USE_SYSTEM_PREFERRED_RNG
#define BCRYPT_USE_SYSTEM_PREFERRED_RNG 0x00000002
#endif

/* ProcessPrng fills data[0:len) with random bytes; it always returns TRUE,
 * as the Windows function does, or ends the process (it cannot fail). */
BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len)
{
	while (len > 0) {
		ULONG chunk = len > 0x40000000 ? 0x40000000 : (ULONG)len;
		if (BCryptGenRandom(NULL, data, chunk, BCRYPT_USE_SYSTEM_PREFERRED_RNG) != 0)
			ExitProcess(0xC0000001);
		data += chunk;
		len -= chunk;
	}
	return TRUE;
}

BOOL WINAPI DllMain(HINSTANCE inst, DWORD reason, LPVOID reserved)
{
	(void)inst; (void)reason; (void)reserved;
	return TRUE;
}
