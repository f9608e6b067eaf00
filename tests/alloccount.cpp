// SPDX-License-Identifier: LGPL-2.1-or-later
#include "alloccount.h"

#include <cerrno>
#include <malloc.h>

extern "C" {
void *__libc_malloc(size_t);
void *__libc_calloc(size_t, size_t);
void *__libc_realloc(void *, size_t);
void __libc_free(void *);
void *__libc_memalign(size_t, size_t);
}

namespace
{
unsigned long long g_calls = 0;
long long g_inUse = 0;
long long g_peak = 0;

inline void added(void *p)
{
    if (p) {
        g_inUse += (long long)malloc_usable_size(p);
        if (g_inUse > g_peak)
            g_peak = g_inUse;
    }
}
inline void removed(void *p)
{
    if (p)
        g_inUse -= (long long)malloc_usable_size(p);
}
} // namespace

namespace AllocCount
{
Snapshot now()
{
    return Snapshot { g_calls, g_inUse, g_peak };
}
void resetPeak()
{
    g_peak = g_inUse;
}
} // namespace AllocCount

extern "C" {
void *malloc(size_t n)
{
    ++g_calls;
    void *p = __libc_malloc(n);
    added(p);
    return p;
}
void *calloc(size_t n, size_t m)
{
    ++g_calls;
    void *p = __libc_calloc(n, m);
    added(p);
    return p;
}
void *realloc(void *old, size_t n)
{
    ++g_calls;
    removed(old);
    void *p = __libc_realloc(old, n);
    added(p ? p : (n ? old : nullptr));
    return p;
}
void free(void *p)
{
    removed(p);
    __libc_free(p);
}
void *memalign(size_t a, size_t n)
{
    ++g_calls;
    void *p = __libc_memalign(a, n);
    added(p);
    return p;
}
void *aligned_alloc(size_t a, size_t n)
{
    return memalign(a, n);
}
int posix_memalign(void **out, size_t a, size_t n)
{
    void *p = memalign(a, n);
    if (!p)
        return ENOMEM;
    *out = p;
    return 0;
}
}
