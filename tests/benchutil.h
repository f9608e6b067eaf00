// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_TESTS_BENCHUTIL_H
#define QVFS_TESTS_BENCHUTIL_H

// What the remote workers' benchmarks (sftp, http, smb) share: medians, and procutil.h's
// worker processes, peak memory and bytes read under the names they use. Header-only.

#include "procutil.h"

#include <Qvfs/Job>

#include <QByteArray>
#include <QElapsedTimer>
#include <QList>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

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

/*! What the remote workers' benchmarks take on their command line. */
struct RemoteOptions
{
    int runs = 5;
    qint64 sizeMiB = 100;
    int entries = 10000;
    int delayMs = 10; // per direction: a 20 ms round trip
};

/*!
 * Parses "--runs N --size MIB --entries N --delay-ms N" into \a o (what is not given
 * keeps its value); false, with the usage of \a program printed, on anything else.
 */
inline bool parseRemoteOptions(int argc, char **argv, const char *program, RemoteOptions *o)
{
    for (int i = 1; i < argc; ++i) {
        const QByteArray a(argv[i]);
        const int v = i + 1 < argc ? std::atoi(argv[i + 1]) : 0;
        if (a == "--runs" && v > 0)
            o->runs = v, ++i;
        else if (a == "--size" && v > 0)
            o->sizeMiB = v, ++i;
        else if (a == "--entries" && v > 0)
            o->entries = v, ++i;
        else if (a == "--delay-ms" && v >= 0 && i + 1 < argc)
            o->delayMs = v, ++i;
        else {
            std::fprintf(stderr, "usage: %s [--runs N] [--size MIB] [--entries N] [--delay-ms N]\n", program);
            return false;
        }
    }
    return true;
}

/*! Runs \a job to its end: the wall milliseconds, or -1 with a message naming \a program and \a what. */
inline double timeJob(Qvfs::Job *job, const char *program, const char *what)
{
    QElapsedTimer t;
    t.start();
    const bool ok = job->exec();
    const double ms = double(t.nsecsElapsed()) / 1e6;
    if (!ok) {
        std::fprintf(stderr, "%s: %s failed: %s\n", program, what, qPrintable(job->errorString()));
        return -1;
    }
    return ms;
}

} // namespace QvfsBench

#endif
