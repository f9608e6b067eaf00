// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_TESTS_BENCHUTIL_H
#define QVFS_TESTS_BENCHUTIL_H

// What the remote workers' benchmarks (sftp, http, smb) share: medians, and procutil.h's
// worker processes, peak memory and bytes read under the names they use. Header-only.

#include "procutil.h"

#include <QByteArray>
#include <QList>

#include <algorithm>

namespace QvfsBench
{

/*! The median of \a v; -1 for none. */
inline double median(QList<double> v)
{
    if (v.isEmpty())
        return -1;
    std::sort(v.begin(), v.end());
    const qsizetype n = v.size();
    return n % 2 ? v.at(n / 2) : (v.at(n / 2 - 1) + v.at(n / 2)) / 2;
}

using ProcUtil::statusKb;

/*! This process's children running \a exe (see ProcUtil::childrenRunning()). */
inline QList<qint64> children(const char *exe)
{
    return ProcUtil::childrenRunning(exe);
}

/*! The peak RSS (VmHWM) of \a pid, in KiB. */
inline qint64 peakRssKb(qint64 pid)
{
    return statusKb(pid, "VmHWM:");
}

/*! Bytes this process has read (see ProcUtil::bytesReadBySelf()). */
inline qint64 bytesRead()
{
    return ProcUtil::bytesReadBySelf();
}

} // namespace QvfsBench

#endif
