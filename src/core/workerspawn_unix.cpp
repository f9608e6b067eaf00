// SPDX-License-Identifier: LGPL-2.1-or-later
// Starting and reaping worker processes (POSIX).
#include "workerprocess_p.h"

#include <QFile>
#include <QList>
#include <QProcess>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
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

qint64 spawnWorker(const QString &executable, int childFd, QString *error)
{
    // argv: [prefix...] worker --fd N. posix_spawn (vfork-fast; QProcess costs ~10 ms of
    // blocking here, as much as a whole one-shot stat may take).
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

    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attr;
    posix_spawn_file_actions_init(&actions);
    posix_spawnattr_init(&attr);
    // stdin and stdout to /dev/null (a worker logging into an unread pipe would hang);
    // stderr is inherited: the worker's log goes where the application's goes.
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    // dup2 of a descriptor onto itself clears its close-on-exec flag in the child only:
    // the child's end survives exec, every other descriptor of ours does not.
    posix_spawn_file_actions_adddup2(&actions, childFd, childFd);
    // Its own session: a terminal's Ctrl-C reaches the application, which cleans up.
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSID);
    pid_t pid = 0;
    const int rc = ::posix_spawnp(&pid, argv[0], &actions, &attr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
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
        if (rc <= 0)
            ::kill(pid_t(pid), SIGKILL);
        while (::waitpid(pid_t(pid), nullptr, 0) < 0 && errno == EINTR) { }
        return;
    }
#endif
    for (int waited = 0;; ++waited) {
        if (waited >= waitMs) {
            ::kill(pid_t(pid), SIGKILL);
            while (::waitpid(pid_t(pid), nullptr, 0) < 0 && errno == EINTR) { }
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
