// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_TESTS_BENCHUTIL_H
#define QVFS_TESTS_BENCHUTIL_H

// What the remote workers' benchmarks (sftp, http, smb) share: medians, the worker
// processes of this program, their peak memory, and the bytes this process read (a
// transfer through the application reads every byte here, one the worker does itself
// none). Header-only, on procutil.h.

#include "procutil.h"

#include <QByteArray>
#include <QByteArrayView>
#include <QList>

#include <algorithm>
#include <unistd.h>

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

/*! This process's children running the executable whose path ends in \a exe ("/qvfs-worker-smb"). */
inline QList<qint64> children(const char *exe)
{
    QList<qint64> out;
    for (qint64 pid : ProcUtil::childPids()) {
        char buf[4096];
        const ssize_t n
            = ::readlink(QByteArray("/proc/" + QByteArray::number(pid) + "/exe").constData(), buf, sizeof buf);
        if (n > 0 && QByteArrayView(buf, n).endsWith(exe))
            out.append(pid);
    }
    return out;
}

/*! A number of KiB from /proc/PID/status, by its key ("VmHWM:"); -1 if not there. */
inline qint64 statusKb(qint64 pid, const char *key)
{
    const QByteArray s = ProcUtil::readProcFile("/proc/" + QByteArray::number(pid) + "/status");
    for (const QByteArray &line : s.split('\n')) {
        if (line.startsWith(key))
            return line.mid(qstrlen(key)).trimmed().split(' ').value(0).toLongLong();
    }
    return -1;
}

/*! The peak RSS (VmHWM) of \a pid, in KiB. */
inline qint64 peakRssKb(qint64 pid)
{
    return statusKb(pid, "VmHWM:");
}

/*! Bytes this process has read (files and sockets: /proc/self/io's rchar). */
inline qint64 bytesRead()
{
    const QByteArray s = ProcUtil::readProcFile("/proc/self/io");
    for (const QByteArray &line : s.split('\n')) {
        if (line.startsWith("rchar:"))
            return line.mid(6).trimmed().toLongLong();
    }
    return -1;
}

} // namespace QvfsBench

#endif
