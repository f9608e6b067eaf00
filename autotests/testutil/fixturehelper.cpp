// SPDX-License-Identifier: LGPL-2.1-or-later
#include "fixturehelper.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFile>

#include <csignal>
#include <cstdio>
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

namespace QvfsTest
{

QList<QByteArray> FixtureHelper::start(
    const QByteArray &program, const QList<QByteArray> &args, int fields, const char *what, QByteArray *why)
{
    stop();
    const QByteArray path = QFile::encodeName(QCoreApplication::applicationDirPath()) + '/' + program;
    if (::access(path.constData(), X_OK) != 0) {
        *why = path + " is not built";
        return {};
    }
    int in[2], out[2];
    if (::pipe2(in, O_CLOEXEC) != 0) {
        *why = "pipe failed";
        return {};
    }
    if (::pipe2(out, O_CLOEXEC) != 0) {
        ::close(in[0]);
        ::close(in[1]);
        *why = "pipe failed";
        return {};
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, in[0], STDIN_FILENO);
    posix_spawn_file_actions_adddup2(&fa, out[1], STDOUT_FILENO);
    QList<QByteArray> argStore { path };
    argStore.append(args);
    QList<char *> argv;
    for (QByteArray &a : argStore)
        argv.append(a.data());
    argv.append(nullptr);
    pid_t pid = -1;
    const int rc = posix_spawn(&pid, path.constData(), &fa, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&fa);
    ::close(in[0]);
    ::close(out[1]);
    m_toHelper = in[1];
    m_fromHelper = out[0];
    if (rc != 0) {
        *why = "cannot start " + path;
        stop();
        return {};
    }
    int status = 0;
    ::waitpid(pid, &status, 0); // it forked: the server lives on in its child

    QByteArray line;
    QElapsedTimer t;
    t.start();
    while (!line.contains('\n') && t.elapsed() < 60000) {
        pollfd p { m_fromHelper, POLLIN, 0 };
        if (::poll(&p, 1, 1000) <= 0)
            continue;
        char buf[1024];
        const ssize_t n = ::read(m_fromHelper, buf, sizeof buf);
        if (n <= 0)
            break;
        line.append(buf, n);
    }
    line = line.left(line.indexOf('\n'));
    QList<QByteArray> f = line.split(' ');
    if (f.size() != fields + 1 || f.at(0) != "ok") {
        *why = line.isEmpty() ? QByteArray(what) + " did not start" : line.mid(line.indexOf(' ') + 1);
        stop();
        return {};
    }
    f.removeFirst();
    return f;
}

void FixtureHelper::stop()
{
    if (m_toHelper >= 0) {
        ::close(m_toHelper); // the helper stops the server, then closes its output
        m_toHelper = -1;
    }
    if (m_fromHelper >= 0) {
        QElapsedTimer t;
        t.start();
        while (t.elapsed() < 15000) {
            pollfd p { m_fromHelper, POLLIN, 0 };
            if (::poll(&p, 1, 500) <= 0)
                continue;
            char buf[256];
            if (::read(m_fromHelper, buf, sizeof buf) <= 0)
                break;
        }
        ::close(m_fromHelper);
        m_fromHelper = -1;
    }
}

int runFixtureHelper(int argc, char **argv, const std::function<QList<QByteArray>(QString *why)> &start,
    const std::function<void()> &stop)
{
    const pid_t pid = ::fork();
    if (pid < 0)
        return 1;
    if (pid > 0)
        return 0; // the test reaps this one; the server lives on in the child
    ::setsid(); // no signal to the test's process group reaches the server

    QCoreApplication app(argc, argv);
    QString why;
    const QList<QByteArray> fields = start(&why);
    if (fields.isEmpty()) {
        std::printf("error %s\n", qPrintable(why.simplified()));
        std::fflush(stdout);
        stop();
        return 1;
    }
    std::printf("ok %s\n", fields.join(' ').constData());
    std::fflush(stdout);
    // A signal interrupts the read (no SA_RESTART) instead of ending the process with the
    // server left running.
    static volatile std::sig_atomic_t stopped = 0;
    struct sigaction sa = {};
    sa.sa_handler = [](int) { stopped = 1; };
    for (int sig : { SIGTERM, SIGINT, SIGHUP })
        ::sigaction(sig, &sa, nullptr);
    char buf[256];
    while (!stopped && ::read(STDIN_FILENO, buf, sizeof buf) > 0) { }
    stop();
    return 0;
}

} // namespace QvfsTest
