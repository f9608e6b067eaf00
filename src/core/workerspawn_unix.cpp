// SPDX-License-Identifier: LGPL-2.1-or-later
// Starting and reaping worker processes (POSIX).
#include "qvfs_debug.h"
#include "workerlaunch_p.h"
#include "workerprocess_p.h"

#include <QFile>
#include <QList>
#include <QProcess>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

extern char **environ;

namespace Qvfs::Internal
{

int envMs(const char *name, int fallback)
{
    bool ok = false;
    const int v = qEnvironmentVariableIntValue(name, &ok);
    return ok && v >= 0 ? v : fallback;
}

namespace
{
// The worker the `qvfs` launcher started before this process loaded Qt (see
// takePrespawnedWorker()). Used from the scheduler's thread only.
struct Prespawned
{
    bool claimed = false;
    int fd = -1;
    pid_t pid = 0;
    QByteArray executable;
};

Prespawned &prespawned()
{
    static Prespawned p;
    return p;
}

bool sameFile(const QByteArray &a, const QString &b)
{
    struct stat sa, sb;
    return ::stat(a.constData(), &sa) == 0 && ::stat(QFile::encodeName(b).constData(), &sb) == 0
        && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

// Whether \a fd is a stream socket this very process made (a socketpair records the
// credentials of its maker, and exec keeps the pid): the launcher's, not an inherited
// socket of someone else's (a display or bus connection) that a stale value could name.
bool isOwnSocketPair(int fd)
{
    struct stat st;
    if (::fstat(fd, &st) != 0 || !S_ISSOCK(st.st_mode))
        return false;
    struct ucred cred;
    socklen_t len = sizeof cred;
    return ::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) == 0 && len == sizeof cred && cred.pid == ::getpid();
}

// Reads QVFS_PRESPAWNED_WORKER once and removes it from the environment (no worker we
// start inherits it). A value that does not name a socket this process made is ignored
// and its descriptor left alone; a socket of ours is made close-on-exec (no worker
// inherits it either), and closed when its worker is not a running child of ours.
void claimPrespawned()
{
    Prespawned &p = prespawned();
    if (p.claimed)
        return;
    p.claimed = true;
    if (!qEnvironmentVariableIsSet(QVFS_PRESPAWNED_ENV))
        return;
    const QByteArray value = qgetenv(QVFS_PRESPAWNED_ENV);
    qunsetenv(QVFS_PRESPAWNED_ENV);
    const qsizetype c1 = value.indexOf(':');
    const qsizetype c2 = c1 < 0 ? -1 : value.indexOf(':', c1 + 1);
    bool fdOk = false, pidOk = false;
    const int fd = c2 < 0 ? -1 : value.left(c1).toInt(&fdOk);
    const int pid = c2 < 0 ? 0 : value.mid(c1 + 1, c2 - c1 - 1).toInt(&pidOk);
    if (!fdOk || !pidOk || fd < 3 || pid <= 0 || !isOwnSocketPair(fd)) {
        qCWarning(QVFS_CORE) << "ignoring" << QVFS_PRESPAWNED_ENV << value;
        return;
    }
    ::fcntl(fd, F_SETFD, FD_CLOEXEC);
    if (::waitpid(pid, nullptr, WNOHANG) != 0) {
        // Gone already (now reaped), or no child of ours: nothing to adopt.
        qCDebug(QVFS_CORE) << "the worker the launcher started is gone:" << pid;
        ::close(fd);
        return;
    }
    p.fd = fd;
    p.pid = pid;
    p.executable = value.mid(c2 + 1);
}
} // namespace

bool takePrespawnedWorker(const QString &executable, int *fd, qint64 *pid)
{
    claimPrespawned();
    Prespawned &p = prespawned();
    if (p.fd < 0)
        return false;
    if (!sameFile(p.executable, executable)) {
        qCDebug(QVFS_CORE) << "the prespawned worker runs" << p.executable << "not" << executable;
        discardPrespawnedWorker();
        return false;
    }
    *fd = p.fd;
    *pid = p.pid;
    p.fd = -1;
    p.pid = 0;
    return true;
}

void discardPrespawnedWorker()
{
    claimPrespawned();
    Prespawned &p = prespawned();
    if (p.fd < 0)
        return;
    qCDebug(QVFS_CORE) << "ending the worker the launcher started, unused" << p.pid;
    ::close(p.fd);
    qvfs_kill_worker(p.pid); // it has done nothing yet
    p.fd = -1;
    p.pid = 0;
}

qint64 spawnWorker(const QString &executable, int childFd, QString *error)
{
    claimPrespawned(); // before any child could inherit its descriptor
    // argv: [prefix...] worker --fd N.
    QList<QByteArray> args;
    const QString prefix = qEnvironmentVariable("QVFS_WORKER_PREFIX");
    if (!prefix.isEmpty()) {
        const QStringList words = QProcess::splitCommand(prefix);
        for (const QString &w : words)
            args.append(w.toLocal8Bit());
    }
    args.append(QFile::encodeName(executable));
    args.append(QByteArrayLiteral("--fd"));
    args.append(QByteArray::number(childFd));
    std::vector<char *> argv;
    argv.reserve(size_t(args.size()) + 1);
    for (QByteArray &a : args)
        argv.push_back(a.data());
    argv.push_back(nullptr);

    pid_t pid = 0;
    const int rc = qvfs_spawn_worker(argv.data(), environ, childFd, &pid);
    if (rc != 0) {
        *error = QString::fromLocal8Bit(strerror(rc));
        return -1;
    }
    return pid;
}

void reapWorker(qint64 pid, int waitMs)
{
    if (pid <= 0)
        return;
    // The socket is closed: a healthy worker exits at once. Give it waitMs, then SIGKILL.
    // Reaped at once if it is already gone (the common case after an orderly end).
    pid_t r = ::waitpid(pid_t(pid), nullptr, WNOHANG);
    if (r == pid_t(pid) || (r < 0 && errno != EINTR))
        return;
#ifdef SYS_pidfd_open
    // Woken by its exit instead of polling in 1 ms steps: a one-shot client waited a
    // whole step (and a scheduler round) for every worker it ended.
    const int pidfd = int(::syscall(SYS_pidfd_open, pid_t(pid), 0));
    if (pidfd >= 0) {
        pollfd p { pidfd, POLLIN, 0 };
        int rc;
        do {
            rc = ::poll(&p, 1, waitMs > 0 ? waitMs : 0);
        } while (rc < 0 && errno == EINTR);
        ::close(pidfd);
        if (rc <= 0) {
            qvfs_kill_worker(pid_t(pid));
            return;
        }
        while (::waitpid(pid_t(pid), nullptr, 0) < 0 && errno == EINTR) { }
        return;
    }
#endif
    for (int waited = 0;; ++waited) {
        if (waited >= waitMs) {
            qvfs_kill_worker(pid_t(pid));
            break;
        }
        const timespec ms { 0, 1000000 };
        ::nanosleep(&ms, nullptr);
        r = ::waitpid(pid_t(pid), nullptr, WNOHANG);
        if (r == pid_t(pid) || (r < 0 && errno != EINTR))
            break;
    }
}

} // namespace Qvfs::Internal
