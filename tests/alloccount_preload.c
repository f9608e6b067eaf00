// SPDX-License-Identifier: LGPL-2.1-or-later
// LD_PRELOAD library for the benchmarks: counts allocation calls of a worker process
// and writes the count to the file named by QVFS_ALLOC_OUT when the process exits.
// Used through QVFS_WORKER_PREFIX, so the worker itself carries no instrumentation.
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void __libc_free(void *);
extern void *__libc_memalign(size_t, size_t);

static unsigned long long calls;

void *malloc(size_t n)
{
    __atomic_add_fetch(&calls, 1, __ATOMIC_RELAXED);
    return __libc_malloc(n);
}
void *calloc(size_t n, size_t m)
{
    __atomic_add_fetch(&calls, 1, __ATOMIC_RELAXED);
    return __libc_calloc(n, m);
}
void *realloc(void *p, size_t n)
{
    __atomic_add_fetch(&calls, 1, __ATOMIC_RELAXED);
    return __libc_realloc(p, n);
}
void free(void *p)
{
    __libc_free(p);
}
void *memalign(size_t a, size_t n)
{
    __atomic_add_fetch(&calls, 1, __ATOMIC_RELAXED);
    return __libc_memalign(a, n);
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

__attribute__((destructor)) static void report(void)
{
    const char *path = getenv("QVFS_ALLOC_OUT");
    if (!path)
        return;
    char buf[64];
    const int len = snprintf(buf, sizeof buf, "%llu\n", calls);
    const int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd >= 0) {
        if (write(fd, buf, (size_t)len) < 0) {
        }
        close(fd);
    }
}
