// SPDX-License-Identifier: LGPL-2.1-or-later
#include "childprocess_p.h"

#include "fileops_util_p.h"

#include <QDeadlineTimer>

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <vector>

extern char **environ;

namespace Qvfs
{

namespace
{

using FileOps::errnoText;

void closeFd(int &fd)
{
    if (fd >= 0) {
        ::close(fd);
        fd = -1;
    }
}

// Bigger pipes: fewer wake-ups per megabyte. Best effort (limited by pipe-max-size).
void growPipe(int fd)
{
    (void)::fcntl(fd, F_SETPIPE_SZ, 1024 * 1024);
}

} // namespace

ChildProcess::~ChildProcess()
{
    stop(0);
}

bool ChildProcess::start(const QList<QByteArray> &argv, const QList<QByteArray> &environment, QByteArray *error)
{
    int in[2], out[2], err[2];
    if (::pipe2(in, O_CLOEXEC) != 0) {
        *error = errnoText("pipe", errno);
        return false;
    }
    if (::pipe2(out, O_CLOEXEC) != 0) {
        *error = errnoText("pipe", errno);
        ::close(in[0]);
        ::close(in[1]);
        return false;
    }
    if (::pipe2(err, O_CLOEXEC) != 0) {
        *error = errnoText("pipe", errno);
        for (int fd : { in[0], in[1], out[0], out[1] })
            ::close(fd);
        return false;
    }
    growPipe(in[1]);
    growPipe(out[0]);

    std::vector<char *> args;
    for (const QByteArray &a : argv)
        args.push_back(const_cast<char *>(a.constData()));
    args.push_back(nullptr);

    // The environment: ours, minus the names overridden, plus the overrides.
    std::vector<char *> env;
    for (char **e = environ; *e; ++e) {
        const QByteArrayView entry(*e);
        const qsizetype eq = entry.indexOf('=');
        bool overridden = false;
        for (const QByteArray &o : environment) {
            if (eq > 0 && o.size() > eq && o[eq] == '=' && QByteArrayView(o.constData(), eq) == entry.first(eq)) {
                overridden = true;
                break;
            }
        }
        if (!overridden)
            env.push_back(*e);
    }
    for (const QByteArray &o : environment)
        env.push_back(const_cast<char *>(o.constData()));
    env.push_back(nullptr);

    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attr;
    posix_spawn_file_actions_init(&actions);
    posix_spawnattr_init(&attr);
    posix_spawn_file_actions_adddup2(&actions, in[0], STDIN_FILENO);
    posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&actions, err[1], STDERR_FILENO);
    // Nothing else of the worker's reaches the child, or what it leaves behind (ssh's
    // ControlPersist master): the connection to the application above all, close-on-exec
    // or not.
    posix_spawn_file_actions_addclosefrom_np(&actions, STDERR_FILENO + 1);
    // A new session: no controlling terminal, so nothing can prompt on the user's tty;
    // default signal dispositions and mask, whatever the worker set for itself.
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setsigdefault(&attr, &all);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSID | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    pid_t pid = -1;
    const int rc = posix_spawnp(&pid, args[0], &actions, &attr, args.data(), env.data());
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
    ::close(in[0]);
    ::close(out[1]);
    ::close(err[1]);
    if (rc != 0) {
        *error = errnoText(argv.value(0).constData(), rc);
        ::close(in[1]);
        ::close(out[0]);
        ::close(err[0]);
        return false;
    }
    m_pid = pid;
    m_in = in[1];
    m_out = out[0];
    m_err = err[0];
    for (int fd : { m_in, m_out, m_err })
        ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
    m_status = 0;
    return true;
}

void ChildProcess::closeStdin()
{
    closeFd(m_in);
}

void ChildProcess::closeStdout()
{
    closeFd(m_out);
}

void ChildProcess::closeStderr()
{
    closeFd(m_err);
}

bool ChildProcess::reap()
{
    if (m_pid <= 0)
        return true;
    int status = 0;
    const pid_t r = ::waitpid(m_pid, &status, WNOHANG);
    if (r == m_pid || (r < 0 && errno == ECHILD)) {
        m_status = status;
        m_pid = -1;
        return true;
    }
    return false;
}

void ChildProcess::stop(int graceMs)
{
    closeStdin();
    if (m_pid > 0) {
        const QDeadlineTimer grace(qMax(graceMs, 0));
        while (!reap() && !grace.hasExpired())
            ::usleep(2000);
        if (m_pid > 0) {
            ::kill(m_pid, SIGTERM);
            const QDeadlineTimer term(200);
            while (!reap() && !term.hasExpired())
                ::usleep(2000);
        }
        if (m_pid > 0) {
            ::kill(m_pid, SIGKILL);
            int status = 0;
            while (::waitpid(m_pid, &status, 0) < 0 && errno == EINTR) { }
            m_status = status;
            m_pid = -1;
        }
    }
    closeStdout();
    closeStderr();
}

} // namespace Qvfs
