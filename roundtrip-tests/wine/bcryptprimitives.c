/*
 * TEST HARNESS ONLY — never shipped, never part of a release.
 *
 * Rust's standard library on Windows 10+ takes its random bytes (HashMap seeds) from
 * ProcessPrng in bcryptprimitives.dll. Debian's wine 8 has no such DLL, so animkit.exe does
 * not start under it. roundtrip-tests/wine.rs compiles this file with MinGW into a stand-in
 * bcryptprimitives.dll next to the exe under test: ProcessPrng fills the buffer from
 * RtlGenRandom (advapi32's SystemFunction036), which wine has. Real Windows 10/11 have the
 * real DLL and never load this one.
 *
 *   x86_64-w64-mingw32-gcc -shared -O2 -o bcryptprimitives.dll bcryptprimitives.c -ladvapi32
 */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length)
{
    while (length > 0) {
        ULONG chunk = length > 0x40000000 ? 0x40000000 : (ULONG)length;
        if (!SystemFunction036(data, chunk))
            return FALSE;
        data += chunk;
        length -= chunk;
    }
    return TRUE;
}
