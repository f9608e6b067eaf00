// SPDX-License-Identifier: LGPL-2.1-or-later
// For the tests that swap an entry at the very moment a worker is about to use it (issue
// 16): the workers run under strace, which holds one system call at its entry
// (QVFS_WORKER_PREFIX="strace ... -e inject=SYSCALL:delay_enter=US:when=N"); the test
// waits until a worker sits in that call (a ptrace stop seen in /proc/PID/syscall, the
// path argument read from /proc/PID/mem), swaps the entry, and checks that the call is
// still held, so the swap surely came between what the worker saw and what it does next.
// Also: planting files as another user. Header-only, local to filesecuritytest,
// filewalktest and filedeletetest; needs strace and ptrace access to the workers (root,
// or the same user).
#ifndef QVFS_WORKERHOLD_H
#define QVFS_WORKERHOLD_H

#include "procutil.h" // testutil

#include <QByteArray>
#include <QCoreApplication>
#include <QDeadlineTimer>
#include <QList>
#include <QThread>

#include <dirent.h>
#include <fcntl.h>
#include <grp.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>

namespace WorkerHold
{

/*!
 * The QVFS_WORKER_PREFIX that holds calls of \a syscalls (strace's names, comma-separated)
 * for \a delayUs microseconds at their entry, in every worker started while it is set:
 * the calls strace's \a when picks ("1": the first of each system call, "1+": all),
 * counting only those that name one of \a paths or use a descriptor of one (strace -P;
 * every call when empty).
 */
inline QByteArray prefix(
    const QByteArray &syscalls, int delayUs, const QByteArray &when = "1", const QList<QByteArray> &paths = {})
{
    // LeakSanitizer cannot work under ptrace: off for the held workers of an ASan build.
    QByteArray asan = qgetenv("ASAN_OPTIONS");
    if (!asan.isEmpty())
        asan += ':';
    QByteArray p = "env ASAN_OPTIONS=" + asan + "detect_leaks=0 strace -f -qq --seccomp-bpf -o /dev/null";
    for (const QByteArray &path : paths)
        p += " -P " + path;
    p += " -e trace=" + syscalls + " -e inject=" + syscalls + ":delay_enter=" + QByteArray::number(delayUs)
        + ":when=" + when;
    return p;
}

/*! Whether strace can be run. */
inline bool haveStrace()
{
    return ::access("/usr/bin/strace", X_OK) == 0 || ::access("/bin/strace", X_OK) == 0;
}

/*! Every process below this one (workers under strace are grandchildren). */
inline QList<qint64> descendants()
{
    QList<QPair<qint64, qint64>> all; // (pid, ppid)
    if (DIR *d = ::opendir("/proc")) {
        while (dirent *e = ::readdir(d)) {
            if (e->d_name[0] < '0' || e->d_name[0] > '9')
                continue;
            const qint64 pid = QByteArray(e->d_name).toLongLong();
            const QList<QByteArray> f = ProcUtil::procStat(pid);
            if (f.size() > 1)
                all.append({ pid, f.at(1).toLongLong() });
        }
        ::closedir(d);
    }
    QList<qint64> out;
    QList<qint64> parents { qint64(::getpid()) };
    while (!parents.isEmpty()) {
        const qint64 parent = parents.takeLast();
        for (const auto &p : std::as_const(all)) {
            if (p.second == parent) {
                out.append(p.first);
                parents.append(p.first);
            }
        }
    }
    return out;
}

/*! A task held in a system call. */
struct Held
{
    qint64 pid = -1;
    qint64 tid = -1;
    long nr = -1;
    bool isValid() const { return tid > 0; }
};

/*! The string at \a address in the memory of \a pid, up to \a max bytes. */
inline QByteArray stringAt(qint64 pid, quint64 address, qsizetype max)
{
    QByteArray out;
    const int fd = ::open(QByteArray("/proc/" + QByteArray::number(pid) + "/mem").constData(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return out;
    char buf[4096];
    const ssize_t n = ::pread(fd, buf, size_t(qMin<qsizetype>(max, sizeof buf)), off_t(address));
    ::close(fd);
    if (n > 0)
        out = QByteArray(buf, qsizetype(::strnlen(buf, size_t(n))));
    return out;
}

/*!
 * A task of a process below this one that is stopped (by strace) at the entry of one of
 * the system calls \a nrs, where one of the first two arguments is one of the strings
 * \a paths (any arguments when \a paths is empty).
 */
inline Held find(const QList<long> &nrs, const QList<QByteArray> &paths = {})
{
    qsizetype longest = 0;
    for (const QByteArray &p : paths)
        longest = qMax(longest, p.size());
    const QList<qint64> pids = descendants();
    for (const qint64 pid : pids) {
        const QByteArray base = "/proc/" + QByteArray::number(pid) + "/task";
        DIR *d = ::opendir(base.constData());
        if (!d)
            continue;
        Held found;
        while (dirent *e = ::readdir(d)) {
            if (e->d_name[0] < '0' || e->d_name[0] > '9')
                continue;
            const QByteArray task = base + '/' + e->d_name;
            const QByteArray stat = ProcUtil::readProcFile(task + "/stat");
            const qsizetype close = stat.lastIndexOf(')');
            if (close < 0 || stat.size() < close + 3 || stat.at(close + 2) != 't')
                continue; // not in a tracing stop
            const QList<QByteArray> call = ProcUtil::readProcFile(task + "/syscall").trimmed().split(' ');
            const long nr = call.value(0).toLong();
            if (call.size() < 3 || !nrs.contains(nr))
                continue;
            bool matches = paths.isEmpty();
            for (int arg = 1; arg <= 2 && !matches; ++arg) {
                bool ok = false;
                const quint64 address = call.at(arg).toULongLong(&ok, 0);
                matches = ok && address != 0 && paths.contains(stringAt(pid, address, longest + 1));
            }
            if (matches) {
                found.pid = pid;
                found.tid = QByteArray(e->d_name).toLongLong();
                found.nr = nr;
                break;
            }
        }
        ::closedir(d);
        if (found.isValid())
            return found;
    }
    return Held();
}

/*!
 * Waits (running the event loop, so jobs go on) until a worker is held in one of the
 * system calls \a nrs on one of \a paths (see find()); invalid after \a timeoutMs.
 */
inline Held wait(const QList<long> &nrs, const QList<QByteArray> &paths = {}, int timeoutMs = 30000)
{
    const QDeadlineTimer deadline(timeoutMs);
    while (!deadline.hasExpired()) {
        const Held h = find(nrs, paths);
        if (h.isValid())
            return h;
        QCoreApplication::processEvents(QEventLoop::AllEvents, 1);
        QThread::usleep(500);
    }
    return Held();
}

/*! Whether \a held still sits in its system call (so a swap made meanwhile came in time). */
inline bool stillHeld(const Held &held)
{
    const QByteArray task = "/proc/" + QByteArray::number(held.pid) + "/task/" + QByteArray::number(held.tid);
    const QByteArray stat = ProcUtil::readProcFile(task + "/stat");
    const qsizetype close = stat.lastIndexOf(')');
    if (close < 0 || stat.size() < close + 3 || stat.at(close + 2) != 't')
        return false;
    return ProcUtil::readProcFile(task + "/syscall").split(' ').value(0).toLong() == held.nr;
}

/*!
 * Runs \a work as the user \a uid (and group \a gid) in a forked child, which may only
 * make system calls (no allocation: this process has threads). True when \a work
 * returned true.
 */
template<typename Work>
bool asUser(uid_t uid, gid_t gid, Work work)
{
    const pid_t pid = ::fork();
    if (pid < 0)
        return false;
    if (pid == 0) {
        if (::setgroups(0, nullptr) != 0 || ::setresgid(gid, gid, gid) != 0 || ::setresuid(uid, uid, uid) != 0)
            ::_exit(2);
        ::_exit(work() ? 0 : 1);
    }
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR)
            return false;
    }
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

} // namespace WorkerHold

#endif
