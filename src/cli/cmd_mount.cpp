// SPDX-License-Identifier: LGPL-2.1-or-later
// qvfs mount / qvfs umount: Qvfs URLs as a FUSE file system (src/mount), one long-lived
// process per mount, detached once the mount is ready unless -f.
#include "commands.h"
#include "mounttable_p.h"
#include "terminalask.h"
#include "workerlaunch_p.h"

#include <Qvfs/Error>
#include <Qvfs/Protocol>

#include <QCoreApplication>
#include <QSocketNotifier>

#ifdef QVFS_HAVE_FUSE
#include "mountfs.h"
#endif

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <spawn.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

namespace Cli
{

namespace
{

enum MountOption { OptForeground = 1, OptCacheTimeout, OptAllowOther, OptReadyFd };

/*! \a arg as an absolute, clean path (relative to the working folder). */
QByteArray absolutePath(const QByteArray &arg)
{
    return cleanAbsolutePath(arg.startsWith('/') ? arg : ctx().cwd + '/' + arg);
}

/*! Whether a qvfs mount (fuse.qvfs) is at \a path. */
bool isQvfsMount(const QByteArray &path)
{
    const QList<Qvfs::Internal::MountEntry> mounts = Qvfs::Internal::mountTable();
    return std::any_of(mounts.cbegin(), mounts.cend(),
        [&path](const Qvfs::Internal::MountEntry &m) { return m.type == "fuse.qvfs" && m.point == path; });
}

#ifdef QVFS_HAVE_FUSE

int s_signalPipe[2] = { -1, -1 };

void onStopSignal(int)
{
    const char c = 1;
    [[maybe_unused]] const ssize_t n = ::write(s_signalPipe[1], &c, 1);
}

/*!
 * Starts this program again as the mount process (in its own session, standard
 * descriptors on /dev/null, \a readyFd's other end on its descriptor 3) and waits for it
 * to say the mount is ready. Returns the exit status.
 */
int detach(const QList<QByteArray> &childArgs, const QUrl &url, const QByteArray &dir)
{
    int pipefd[2];
    if (::pipe2(pipefd, O_CLOEXEC) != 0) {
        error(QString::fromLocal8Bit(strerror(errno)));
        return Failed;
    }
    QList<QByteArray> argv = { "qvfs", "mount", "--ready-fd=3" };
    argv += childArgs;
    QList<char *> cargv;
    for (QByteArray &a : argv)
        cargv.append(a.data());
    cargv.append(nullptr);
    // The launcher's early worker belongs to this process, not to the mount's.
    QList<QByteArray> env;
    for (char **e = environ; *e; ++e) {
        if (!QByteArrayView(*e).startsWith(QVFS_PRESPAWNED_ENV "="))
            env.append(QByteArray(*e));
    }
    QList<char *> cenv;
    for (QByteArray &e : env)
        cenv.append(e.data());
    cenv.append(nullptr);

    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, pipefd[1], 3);
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSID);
    pid_t pid = 0;
    const int rc = ::posix_spawn(&pid, "/proc/self/exe", &actions, &attr, cargv.data(), cenv.data());
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
    ::close(pipefd[1]);
    if (rc != 0) {
        ::close(pipefd[0]);
        error(QString::fromLocal8Bit(strerror(rc)));
        return Failed;
    }
    QByteArray said;
    char buf[512];
    for (;;) {
        const ssize_t n = ::read(pipefd[0], buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        said.append(buf, n);
    }
    ::close(pipefd[0]);
    if (said != "ready\n") {
        int status = 0;
        ::waitpid(pid, &status, 0);
        //: the mount process ended before the mount was ready, without saying why
        error(
            said.isEmpty() ? QCoreApplication::translate("qvfs", "the mount process ended") : QString::fromUtf8(said));
        return Failed;
    }
    //: %1: the URL (or "the URL space"), %2: the folder, %3: a process id
    out(QCoreApplication::translate("qvfs", "%1 is mounted at %2 (process %3); 'qvfs umount %2' unmounts it.\n")
            .arg(url.isEmpty() ? QCoreApplication::translate("qvfs", "the URL space") : urlArg(url, Sink::Stdout),
                nameArg(dir, Sink::Stdout, NameStyle::Plain), QString::number(pid))
            .toLocal8Bit());
    return Ok;
}

#endif

} // namespace

int cmdMount(const QList<QByteArray> &args)
{
    Parsed p;
    int status = Ok;
    if (!prepare("mount", args,
            { { OptForeground, 'f', "foreground" }, { OptCacheTimeout, 0, "cache-timeout", true },
                { OptAllowOther, 0, "allow-other" }, { OptReadyFd, 0, "ready-fd", true } },
            &p, &status))
        return status;
    if (p.operands.isEmpty() || p.operands.size() > 2)
        return usageError(
            "mount", QCoreApplication::translate("qvfs", "give a folder to mount on, and a URL before it"));
#ifndef QVFS_HAVE_FUSE
    error(QCoreApplication::translate("qvfs", "this qvfs was built without FUSE (libfuse3-dev): it cannot mount"));
    return Failed;
#else
    QUrl url;
    if (p.operands.size() == 2) {
        url = toUrl(p.operands.first());
        if (!url.isValid())
            return Failed;
        if (!Qvfs::Protocol::find(url.scheme()).isValid()) {
            reportError(Qvfs::ErrUnsupportedProtocol, { url.scheme() });
            return Failed;
        }
    }
    const QByteArray dir = absolutePath(p.operands.last());
    struct stat st;
    if (::stat(dir.constData(), &st) != 0 || !S_ISDIR(st.st_mode)) {
        error(QCoreApplication::translate("qvfs", "%1 is not a folder").arg(nameArg(dir)));
        return Failed;
    }
    if (isQvfsMount(dir)) {
        error(QCoreApplication::translate("qvfs", "%1 is a qvfs mount already").arg(nameArg(dir)));
        return Failed;
    }
    double timeout = 1.0;
    if (p.has(OptCacheTimeout)) {
        bool ok = false;
        timeout = p.value(OptCacheTimeout).toDouble(&ok);
        if (!ok || timeout < 0 || timeout > 86400)
            return usageError("mount",
                QCoreApplication::translate("qvfs", "--cache-timeout takes seconds (0 to 86400), not %1")
                    .arg(nameArg(p.value(OptCacheTimeout))));
    }
    const int readyFd = p.has(OptReadyFd) ? p.value(OptReadyFd).toInt() : -1;
    // Not for the workers this process starts: the parent waits for the pipe's end.
    if (readyFd >= 0 && ::fcntl(readyFd, F_SETFD, FD_CLOEXEC) != 0)
        return Failed;
    if (!p.has(OptForeground) && readyFd < 0) {
        QList<QByteArray> childArgs = { "--cache-timeout=" + QByteArray::number(timeout) };
        if (p.has(OptAllowOther))
            childArgs.append("--allow-other");
        childArgs.append("--");
        if (!url.isEmpty())
            childArgs.append(url.toEncoded());
        childArgs.append(dir);
        return detach(childArgs, url, dir);
    }

    Mount::Options options;
    options.url = url;
    options.mountPoint = dir;
    options.cacheTimeout = timeout;
    options.allowOther = p.has(OptAllowOther);
    options.spoolDir = qEnvironmentVariableIsEmpty("TMPDIR") ? QByteArray("/tmp") : qgetenv("TMPDIR");
    // A password asked while mounted goes to the terminal of a foreground mount; in the
    // background nobody can answer, and the request fails (EACCES) instead of hanging.
    options.askDelegate = readyFd < 0 ? TerminalAsk::instance() : nullptr;
    Mount::MountFs fs(options);
    QString why;
    if (!fs.mount(&why)) {
        if (readyFd >= 0) {
            const QByteArray text = why.toUtf8();
            [[maybe_unused]] const ssize_t n = ::write(readyFd, text.constData(), size_t(text.size()));
        }
        error(why);
        return Failed;
    }
    if (readyFd >= 0) {
        [[maybe_unused]] const ssize_t n = ::write(readyFd, "ready\n", 6);
        ::close(readyFd);
    }
    // Out of the way of every mount point (the daemon touching its own would deadlock).
    [[maybe_unused]] const int cd = ::chdir("/");

    // SIGINT, SIGTERM, SIGHUP: unmount and end (lazily: open files then see errors).
    if (::pipe2(s_signalPipe, O_CLOEXEC | O_NONBLOCK) == 0) {
        struct sigaction sa = {};
        sa.sa_handler = onStopSignal;
        sigemptyset(&sa.sa_mask);
        for (int sig : { SIGINT, SIGTERM, SIGHUP })
            ::sigaction(sig, &sa, nullptr);
        auto *stop = new QSocketNotifier(s_signalPipe[0], QSocketNotifier::Read, &fs);
        QObject::connect(stop, &QSocketNotifier::activated, &fs, [&fs] { fs.unmount(); });
    }
    QObject::connect(&fs, &Mount::MountFs::finished, qApp, &QCoreApplication::quit, Qt::QueuedConnection);
    QCoreApplication::exec();
    return Ok;
#endif
}

int cmdUmount(const QList<QByteArray> &args)
{
    Parsed p;
    int status = Ok;
    if (!prepare("umount", args, {}, &p, &status))
        return status;
    if (p.operands.isEmpty())
        return usageError("umount", QCoreApplication::translate("qvfs", "give the folder to unmount"));
    for (const QByteArray &arg : std::as_const(p.operands)) {
        const QByteArray dir = absolutePath(arg);
        // Lexically, never stat(): a mount whose process was killed answers nothing.
        if (!isQvfsMount(dir)) {
            error(QCoreApplication::translate("qvfs", "%1 is not a qvfs mount").arg(nameArg(dir)));
            setFailed();
            continue;
        }
        int rc = 0;
        int err = 0;
        if (::geteuid() == 0) {
            rc = ::umount2(dir.constData(), UMOUNT_NOFOLLOW);
            err = errno;
        } else {
            // An unprivileged user's mount goes through the setuid helper, as it came.
            char *const argv[] = { const_cast<char *>("fusermount3"), const_cast<char *>("-u"),
                const_cast<char *>(dir.constData()), nullptr };
            pid_t pid = 0;
            int wstatus = 0;
            rc = ::posix_spawnp(&pid, "fusermount3", nullptr, nullptr, argv, environ);
            if (rc == 0 && ::waitpid(pid, &wstatus, 0) == pid)
                rc = WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0 ? 0 : -1;
            err = rc > 0 ? rc : EBUSY;
        }
        if (rc == 0)
            continue;
        if (err == EBUSY)
            error(QCoreApplication::translate("qvfs", "%1 is busy: a program has a file or folder open there")
                      .arg(nameArg(dir)));
        else
            error(QCoreApplication::translate("qvfs", "cannot unmount %1: %2")
                      .arg(nameArg(dir), QString::fromLocal8Bit(strerror(err))));
        setFailed();
    }
    return ctx().status;
}

} // namespace Cli
