// SPDX-License-Identifier: LGPL-2.1-or-later
#include "fdlimit.h"

#include <Qvfs/Job>

#include <algorithm>

namespace QvfsTest
{

FdLimit::FdLimit(rlim_t soft)
{
    Qvfs::shutdownIdleWorkers();
    ::getrlimit(RLIMIT_NOFILE, &m_old);
    struct rlimit l = m_old;
    l.rlim_cur = std::min(soft, m_old.rlim_max);
    ::setrlimit(RLIMIT_NOFILE, &l);
}

FdLimit::~FdLimit()
{
    Qvfs::shutdownIdleWorkers();
    ::setrlimit(RLIMIT_NOFILE, &m_old);
}

} // namespace QvfsTest
