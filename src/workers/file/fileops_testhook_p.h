// SPDX-License-Identifier: LGPL-2.1-or-later
// Private to the engine of fileops.h and its in-process test (autotests/fileopstest.cpp):
// named points inside a copy where a test can act, to make a race with another writer
// repeatable. Null, and one test of a pointer, in the worker.
#ifndef QVFS_FILEOPS_TESTHOOK_P_H
#define QVFS_FILEOPS_TESTHOOK_P_H

namespace Qvfs::FileOps
{

enum class TestPoint {
    // a sparse source's data extents were all copied (SEEK_DATA found no more); the
    // argument is the source fd
    SparseScanned,
};

// Called at each TestPoint with an fd of the file concerned; null outside tests.
extern void (*testHook)(TestPoint point, int fd);

} // namespace Qvfs::FileOps

#endif
