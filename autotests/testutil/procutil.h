// SPDX-License-Identifier: LGPL-2.1-or-later
// Looking at processes through /proc, for the tests and benchmarks that check which
// workers run, what they cost, and that nothing leaks. Header-only: the benchmarks in
// tests/ include it too.
#ifndef QVFS_PROCUTIL_H
#define QVFS_PROCUTIL_H

#include "serverprocess.h"

#include <QByteArray>
#include <QList>

#include <dirent.h>
#include <unistd.h>

namespace ProcUtil
{

/*! The contents of a small /proc file (empty when unreadable). */
inline QByteArray readProcFile(const QByteArray &path)
{
    return QvfsTest::ServerProcess::readFile(path);
}

/*! Fields of /proc/PID/stat after the command name: [0] state, [1] ppid, [11] utime, [12] stime. */
inline QList<QByteArray> procStat(qint64 pid)
{
    const QByteArray s = readProcFile(QByteArray("/proc/" + QByteArray::number(pid) + "/stat"));
    if (s.isEmpty())
        return {};
    return s.mid(s.lastIndexOf(')') + 2).split(' ');
}

/*! The processes whose parent is this one (workers, zombies included). */
inline QList<qint64> childPids()
{
    QList<qint64> pids;
    const QByteArray me = QByteArray::number(qint64(::getpid()));
    DIR *d = ::opendir("/proc");
    if (!d)
        return pids;
    while (dirent *e = ::readdir(d)) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9')
            continue;
        const qint64 pid = QByteArray(e->d_name).toLongLong();
        const QList<QByteArray> f = procStat(pid);
        if (f.size() > 1 && f.at(1) == me)
            pids.append(pid);
    }
    ::closedir(d);
    return pids;
}

/*! This process's children running the executable whose path ends in \a exe ("/qvfs-worker-smb"). */
inline QList<qint64> childrenRunning(const char *exe)
{
    QList<qint64> out;
    for (qint64 pid : childPids()) {
        char buf[4096];
        const ssize_t n
            = ::readlink(QByteArray("/proc/" + QByteArray::number(pid) + "/exe").constData(), buf, sizeof buf);
        if (n > 0 && QByteArray::fromRawData(buf, int(n)).endsWith(exe))
            out.append(pid);
    }
    return out;
}

/*!
 * Bytes this process has read so far (files and sockets alike: /proc/self/io's rchar): a
 * transfer through the application reads every byte here, one a worker does itself none.
 */
inline qint64 bytesReadBySelf()
{
    const QByteArray s = readProcFile("/proc/self/io");
    for (const QByteArray &line : s.split('\n')) {
        if (line.startsWith("rchar:"))
            return line.mid(6).trimmed().toLongLong();
    }
    return -1;
}

/*! The open file descriptors of this process (not counting the one used to count). */
inline int openFdCount()
{
    int n = 0;
    DIR *d = ::opendir("/proc/self/fd");
    if (!d)
        return -1;
    while (dirent *e = ::readdir(d)) {
        if (e->d_name[0] != '.')
            ++n;
    }
    ::closedir(d);
    return n - 1;
}

/*! The real user id of \a pid (-1 when gone). */
inline qint64 realUid(qint64 pid)
{
    const QByteArray s = readProcFile(QByteArray("/proc/" + QByteArray::number(pid) + "/status"));
    for (const QByteArray &line : s.split('\n')) {
        if (line.startsWith("Uid:"))
            return line.mid(4).simplified().split(' ').value(0).toLongLong();
    }
    return -1;
}

/*! User plus system CPU time of \a pid in clock ticks (-1 when gone). */
inline qint64 cpuTicks(qint64 pid)
{
    const QList<QByteArray> f = procStat(pid);
    return f.size() > 12 ? f.at(11).toLongLong() + f.at(12).toLongLong() : -1;
}

/*!
 * A figure of /proc/PID/status in KiB ("VmRSS:", "VmHWM:"); \a pid 0 is this process.
 * -1 when the process is gone.
 */
inline qint64 statusKb(qint64 pid, const char *key)
{
    const QByteArray path = pid > 0 ? QByteArray("/proc/").append(QByteArray::number(pid)).append("/status")
                                    : QByteArray("/proc/self/status");
    const QByteArray s = readProcFile(path);
    for (const QByteArray &line : s.split('\n')) {
        if (line.startsWith(key))
            return line.mid(qstrlen(key)).trimmed().split(' ').value(0).toLongLong();
    }
    return -1;
}

/*!
 * Whether memory figures mean anything in this build. Under AddressSanitizer a process's
 * RSS holds shadow memory and freed blocks in quarantine, so the tests check their memory
 * bounds in the normal build only (the test command runs both).
 */
constexpr bool memoryFiguresMeaningful()
{
#if defined(__SANITIZE_ADDRESS__)
    return false;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
    return false;
#else
    return true;
#endif
#else
    return true;
#endif
}

} // namespace ProcUtil

#endif
