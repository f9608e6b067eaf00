// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_TESTS_BENCHUTIL_H
#define QVFS_TESTS_BENCHUTIL_H

// What the remote workers' benchmarks (sftp, http, smb) share: medians, and procutil.h's
// worker processes, peak memory and bytes read under the names they use. Header-only.

#include "bigfile.h"
#include "procutil.h"

#include <Qvfs/Job>

#include <QByteArray>
#include <QElapsedTimer>
#include <QHash>
#include <QList>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <sys/stat.h>

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

/*!
 * The copy contract's merge figure (issue 21): a folder moved into a folder that already
 * holds one of the same name, on one server. make() lays out, on the server's own disk,
 * ROOT/tree (\a files files of \a fileBytes, every second one in tree/sub) and
 * ROOT/dst/tree/sub; after the move, mergedByRename() says whether every file is in
 * ROOT/dst/tree with the inode it had (renamed by the server: not one byte copied) and
 * ROOT/tree is gone; putBack() renames the files back for the next run.
 */
class MergeTree
{
public:
    bool make(const QByteArray &root, int files, qint64 fileBytes)
    {
        m_root = root;
        m_inodes.clear();
        for (const char *d : { "", "/tree", "/tree/sub", "/dst", "/dst/tree", "/dst/tree/sub" }) {
            if (::mkdir(QByteArray(root + d).constData(), 0755) != 0 && errno != EEXIST)
                return false;
        }
        for (int i = 0; i < files; ++i) {
            const QByteArray rel = QByteArray(i % 2 ? "sub/" : "") + "f-" + QByteArray::number(i);
            const QByteArray path = root + "/tree/" + rel;
            struct stat st;
            if (!QvfsTest::makeRandomFile(path, fileBytes, quint64(i) + 1) || ::stat(path.constData(), &st) != 0)
                return false;
            m_inodes.insert(rel, quint64(st.st_ino));
        }
        return true;
    }
    bool mergedByRename() const
    {
        struct stat st;
        if (::lstat(QByteArray(m_root + "/tree").constData(), &st) == 0)
            return false;
        for (auto it = m_inodes.cbegin(); it != m_inodes.cend(); ++it) {
            if (::stat(QByteArray(m_root + "/dst/tree/" + it.key()).constData(), &st) != 0
                || quint64(st.st_ino) != it.value())
                return false;
        }
        return true;
    }
    bool putBack() const
    {
        for (const char *d : { "/tree", "/tree/sub", "/dst/tree", "/dst/tree/sub" }) {
            if (::mkdir(QByteArray(m_root + d).constData(), 0755) != 0 && errno != EEXIST)
                return false;
        }
        for (auto it = m_inodes.cbegin(); it != m_inodes.cend(); ++it) {
            const QByteArray from = m_root + "/dst/tree/" + it.key(), to = m_root + "/tree/" + it.key();
            if (::rename(from.constData(), to.constData()) != 0)
                return false;
        }
        return true;
    }

private:
    QByteArray m_root;
    QHash<QByteArray, quint64> m_inodes; // below tree/
};

} // namespace QvfsBench

#endif
