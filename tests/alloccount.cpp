// SPDX-License-Identifier: LGPL-2.1-or-later
// The counting allocator of the benchmarks (see alloccount.h): the malloc family and
// operator new/delete, interposed, counting calls and usable bytes in use.
#include "alloccount.h"

#include <cerrno>
#include <cstdlib>
#include <malloc.h>
#include <new>

extern "C" {
void *__libc_malloc(size_t);
void *__libc_calloc(size_t, size_t);
void *__libc_realloc(void *, size_t);
void __libc_free(void *);
void *__libc_memalign(size_t, size_t);
}

namespace
{
// Single-threaded program: plain counters.
unsigned long long g_calls = 0;
long long g_inUse = 0;

inline void *counted(void *p)
{
    if (p) {
        ++g_calls;
        g_inUse += static_cast<long long>(malloc_usable_size(p));
    }
    return p;
}
inline void uncounted(void *p)
{
    if (p)
        g_inUse -= static_cast<long long>(malloc_usable_size(p));
}
long long g_peak = 0;
} // namespace

namespace AllocCount
{
Snapshot now()
{
    if (g_inUse > g_peak)
        g_peak = g_inUse;
    return Snapshot { g_calls, g_inUse, g_peak };
}
void resetPeak()
{
    g_peak = g_inUse;
}
} // namespace AllocCount

extern "C" {
void *malloc(size_t n) noexcept
{
    return counted(__libc_malloc(n));
}
void *calloc(size_t n, size_t m) noexcept
{
    return counted(__libc_calloc(n, m));
}
void *realloc(void *old, size_t n) noexcept
{
    const long long before = old ? static_cast<long long>(malloc_usable_size(old)) : 0;
    void *p = __libc_realloc(old, n);
    if (p) {
        ++g_calls;
        g_inUse += static_cast<long long>(malloc_usable_size(p)) - before;
    } else if (n == 0 && old) {
        g_inUse -= before; // realloc(p, 0) freed p
    }
    return p;
}
void free(void *p) noexcept
{
    uncounted(p);
    __libc_free(p);
}
void *memalign(size_t a, size_t n) noexcept
{
    return counted(__libc_memalign(a, n));
}
void *aligned_alloc(size_t a, size_t n) noexcept
{
    return counted(__libc_memalign(a, n));
}
int posix_memalign(void **out, size_t a, size_t n) noexcept
{
    void *p = counted(__libc_memalign(a, n));
    if (!p)
        return ENOMEM;
    *out = p;
    return 0;
}
void *valloc(size_t n) noexcept
{
    return counted(__libc_memalign(4096, n));
}
}

// operator new/delete go straight to the counting functions above (libstdc++'s own
// operator new would reach malloc too; defining them keeps the count independent of that).
void *operator new(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        std::abort();
    return p;
}
void *operator new[](size_t n)
{
    return operator new(n);
}
void *operator new(size_t n, const std::nothrow_t &) noexcept
{
    return malloc(n ? n : 1);
}
void *operator new[](size_t n, const std::nothrow_t &) noexcept
{
    return malloc(n ? n : 1);
}
void *operator new(size_t n, std::align_val_t a)
{
    void *p = memalign(size_t(a), n ? n : 1);
    if (!p)
        std::abort();
    return p;
}
void *operator new[](size_t n, std::align_val_t a)
{
    return operator new(n, a);
}
void operator delete(void *p) noexcept
{
    free(p);
}
void operator delete[](void *p) noexcept
{
    free(p);
}
void operator delete(void *p, size_t) noexcept
{
    free(p);
}
void operator delete[](void *p, size_t) noexcept
{
    free(p);
}
void operator delete(void *p, std::align_val_t) noexcept
{
    free(p);
}
void operator delete[](void *p, std::align_val_t) noexcept
{
    free(p);
}
void operator delete(void *p, size_t, std::align_val_t) noexcept
{
    free(p);
}
void operator delete[](void *p, size_t, std::align_val_t) noexcept
{
    free(p);
}
