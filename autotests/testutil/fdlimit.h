// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_TESTUTIL_FDLIMIT_H
#define QVFS_TESTUTIL_FDLIMIT_H

#include <sys/resource.h>

namespace QvfsTest
{

/*!
 * Lowers the soft RLIMIT_NOFILE while it lives; workers started meanwhile inherit it
 * (idle workers are ended before and after).
 */
class FdLimit
{
public:
    explicit FdLimit(rlim_t soft);
    ~FdLimit();
    FdLimit(const FdLimit &) = delete;
    FdLimit &operator=(const FdLimit &) = delete;

private:
    struct rlimit m_old;
};

} // namespace QvfsTest

#endif
