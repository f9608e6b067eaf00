// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_TESTUTIL_SERVERPROCESS_H
#define QVFS_TESTUTIL_SERVERPROCESS_H

// What the fixtures that run a real server (sshdfixture.cpp, smbdfixture.cpp,
// httpserverfixture.cpp) share: a free loopback port, whether it answers, small files,
// handing a tree to the server's user, running a tool to its end, waiting for a child and
// finding processes by their command line (to stop a server's helpers by pid, never by
// name); and the start of a test that needs one of those servers. Header-only: procutil.h
// reads /proc through it, and faultapp and benchmarks in tests/ include that alone.

#include <QByteArray>
#include <QFile>
#include <QList>
#include <QProcess>
#include <QStringList>

#include <arpa/inet.h>
#include <dirent.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <type_traits>
#include <vector>

extern char **environ;

namespace QvfsTest::ServerProcess
{

/*! Monotonic milliseconds. */
inline qint64 nowMs()
{
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return qint64(ts.tv_sec) * 1000 + ts.tv_nsec / 1000000;
}

/*!
 * A file's contents (empty when unreadable); \a path is raw bytes (need not be UTF-8).
 * \a ok (if given) says whether it could be read to the end.
 */
inline QByteArray readFile(const QByteArray &path, bool *ok = nullptr)
{
    QByteArray out;
    const int fd = ::open(path.constData(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        if (ok)
            *ok = false;
        return out;
    }
    char buf[65536];
    ssize_t n;
    while ((n = ::read(fd, buf, sizeof buf)) > 0)
        out.append(buf, n);
    ::close(fd);
    if (ok)
        *ok = n == 0;
    return out;
}

/*!
 * Creates or replaces the file \a path (raw bytes) with \a data, made with \a mode when new;
 * false when it cannot be written whole.
 */
inline bool writeFile(const QByteArray &path, const QByteArray &data, mode_t mode = 0644)
{
    const int fd = ::open(path.constData(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
    if (fd < 0)
        return false;
    qsizetype done = 0;
    while (done < data.size()) {
        const ssize_t n = ::write(fd, data.constData() + done, size_t(data.size() - done));
        if (n < 0) {
            if (errno == EINTR)
                continue;
            ::close(fd);
            return false;
        }
        done += n;
    }
    return ::close(fd) == 0;
}

/*! Whether something is at \a path (raw bytes; a symbolic link counts, dangling or not). */
inline bool exists(const QByteArray &path)
{
    struct stat st;
    return ::lstat(path.constData(), &st) == 0;
}

/*!
 * Gives \a path and everything below it to \a uid and \a gid (not following symlinks):
 * false when something could not be changed.
 */
inline bool chownTree(const QByteArray &path, uid_t uid, gid_t gid)
{
    struct stat st;
    if (::lstat(path.constData(), &st) != 0 || ::lchown(path.constData(), uid, gid) != 0)
        return false;
    if (!S_ISDIR(st.st_mode))
        return true;
    DIR *d = ::opendir(path.constData());
    if (!d)
        return false;
    bool ok = true;
    while (dirent *e = ::readdir(d)) {
        const QByteArray name(e->d_name);
        if (name != "." && name != "..")
            ok = chownTree(path + '/' + name, uid, gid) && ok;
    }
    ::closedir(d);
    return ok;
}

/*!
 * Runs \a program with \a args to its end, \a input on its standard input and
 * \a environment ("NAME=value" each) added to this process's; its output and errors
 * together in \a out. Its exit code, or -1 when it could not start, crashed or ran longer
 * than \a timeoutMs (it is killed then).
 */
inline int run(const QString &program, const QStringList &args, QByteArray *out = nullptr, const QByteArray &input = {},
    const QList<QByteArray> &environment = {}, int timeoutMs = 30000)
{
    QProcess p;
    if (!environment.isEmpty()) {
        QStringList env = QProcess::systemEnvironment();
        for (const QByteArray &e : environment)
            env.append(QString::fromLocal8Bit(e));
        p.setEnvironment(env);
    }
    p.setProcessChannelMode(QProcess::MergedChannels);
    p.start(program, args);
    if (!p.waitForStarted(10000))
        return -1;
    if (!input.isEmpty())
        p.write(input);
    p.closeWriteChannel();
    if (!p.waitForFinished(timeoutMs)) {
        p.kill();
        p.waitForFinished();
        return -1;
    }
    if (out)
        *out = p.readAll();
    return p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
}

/*! A TCP port on 127.0.0.1 free a moment ago (0 when none was found). */
inline int freePort()
{
    const int s = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a {};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    int port = 0;
    if (::bind(s, reinterpret_cast<sockaddr *>(&a), sizeof a) == 0
        && ::getsockname(s, reinterpret_cast<sockaddr *>(&a), &len) == 0)
        port = ntohs(a.sin_port);
    ::close(s);
    return port;
}

/*! Whether something accepts connections on 127.0.0.1:\a port. */
inline bool canConnect(int port)
{
    const int s = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a {};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons(quint16(port));
    const bool ok = ::connect(s, reinterpret_cast<sockaddr *>(&a), sizeof a) == 0;
    ::close(s);
    return ok;
}

/*!
 * Starts \a argv (argv[0] a path) in a session of its own, standard input on /dev/null,
 * standard output and errors appended to \a log, with \a environment ("NAME=value" each)
 * added to this process's. Its pid, or -1 when it could not start. A server started so is
 * this process's child: stop it by that pid (reapOrKill()), never by name.
 */
inline int spawnInOwnSession(
    const QList<QByteArray> &argv, const QByteArray &log, const QList<QByteArray> &environment = {})
{
    std::vector<char *> args;
    for (const QByteArray &a : argv)
        args.push_back(const_cast<char *>(a.constData()));
    args.push_back(nullptr);
    std::vector<char *> env;
    for (char **e = environ; *e; ++e)
        env.push_back(*e);
    for (const QByteArray &e : environment)
        env.push_back(const_cast<char *>(e.constData()));
    env.push_back(nullptr);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, log.constData(), O_WRONLY | O_CREAT | O_APPEND, 0600);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSID);
    pid_t pid = -1;
    const int rc = posix_spawn(&pid, args[0], &fa, &attr, args.data(), env.data());
    posix_spawnattr_destroy(&attr);
    posix_spawn_file_actions_destroy(&fa);
    return rc == 0 ? int(pid) : -1;
}

/*! Whether the child \a pid has ended (and is reaped). */
inline bool exited(int pid)
{
    int status = 0;
    const pid_t r = ::waitpid(pid, &status, WNOHANG);
    return r == pid || (r < 0 && errno == ECHILD);
}

/*! Waits for the child \a pid to end, killing it after \a graceMs. */
inline void reapOrKill(int pid, int graceMs)
{
    if (pid <= 0)
        return;
    const qint64 deadline = nowMs() + graceMs;
    while (!exited(pid)) {
        if (nowMs() > deadline) {
            ::kill(pid, SIGKILL);
            int status = 0;
            ::waitpid(pid, &status, 0);
            return;
        }
        ::usleep(2000);
    }
}

/*! Whether process \a pid runs with \a needle on its command line (a zombie has none). */
inline bool mentions(int pid, const QByteArray &needle)
{
    QByteArray cmd = readFile("/proc/" + QByteArray::number(pid) + "/cmdline");
    cmd.replace('\0', ' ');
    return cmd.contains(needle);
}

/*! The processes (but this one) whose command line contains \a needle. */
inline QList<int> processesMentioning(const QByteArray &needle)
{
    QList<int> out;
    DIR *d = ::opendir("/proc");
    if (!d)
        return out;
    const int self = ::getpid();
    while (dirent *e = ::readdir(d)) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9')
            continue;
        const int pid = std::atoi(e->d_name);
        if (pid != self && mentions(pid, needle))
            out.append(pid);
    }
    ::closedir(d);
    return out;
}

} // namespace QvfsTest::ServerProcess

/*!
 * The start of a test that needs the server of \a fixture (an SshdFixture, SmbdFixture),
 * in its initTestCase(): skips the whole test where the server cannot run on this machine
 * (not installed, not root), fails it where it does not start. A macro, as QSKIP and
 * QVERIFY2 must stand in the test function itself.
 */
#define QVFS_START_SERVER(fixture)                                                                                     \
    do {                                                                                                               \
        QString why_;                                                                                                  \
        if (!std::remove_reference_t<decltype(fixture)>::available(&why_))                                             \
            QSKIP(qPrintable(why_));                                                                                   \
        QVERIFY2((fixture).start(&why_), qPrintable(why_));                                                            \
    } while (false)

#endif
