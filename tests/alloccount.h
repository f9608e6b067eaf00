// SPDX-License-Identifier: LGPL-2.1-or-later
// A counting allocator for the benchmarks: linked into a program, it interposes the
// malloc family (Qt's containers use malloc, operator new goes through it too) and
// counts calls and bytes in use. Plain counters: the benchmarks count on their main
// thread; another thread's allocations only make the figures slightly high.
#ifndef QVFS_ALLOCCOUNT_H
#define QVFS_ALLOCCOUNT_H

#include <cstddef>

namespace AllocCount
{
struct Snapshot
{
    unsigned long long calls; // malloc, calloc, realloc, memalign family
    long long inUse; // bytes (usable size) currently allocated
    long long peak; // highest inUse seen at a now() call
};
Snapshot now();
void resetPeak();
} // namespace AllocCount

#endif
