// SPDX-License-Identifier: LGPL-2.1-or-later
// qvfs-test-sshd: runs an SshdFixture (sshdfixture.h) in a process of its own that is not
// a child of the test, for tests that check that they leave no child process behind (the
// conformance suite: sshd and ssh-agent would count as the test's children otherwise).
//
// The program forks at once and the first process exits: the second one, reparented,
// starts the fixture (a server trusted by its ssh_config, an agent with the key) and
// writes one line to standard output:
//
//   ok PORT DIR CONFIG            the server's port, the fixture's folder (data in
//                                 DIR/data, the agent at DIR/agent.sock), an ssh_config
//   error WHY                     it could not start (WHY: the reason, one line)
//
// then waits until its standard input ends (the test closed it, or went away), stops the
// fixture (removing every file it made) and exits, which closes standard output.
#include "sshdfixture.h"

#include <QCoreApplication>

#include <cstdio>
#include <unistd.h>

int main(int argc, char **argv)
{
    const pid_t pid = ::fork();
    if (pid < 0)
        return 1;
    if (pid > 0)
        return 0; // the test reaps this one; the fixture lives on in the child
    ::setsid(); // no signal to the test's process group reaches the fixture's processes

    QCoreApplication app(argc, argv);
    SshdFixture sshd;
    QString why;
    if (!sshd.start(&why)) {
        std::printf("error %s\n", qPrintable(why.simplified()));
        std::fflush(stdout);
        return 1;
    }
    const QByteArray config = sshd.clientConfig(SshdFixture::HostKeyCheck::Trusted);
    std::printf("ok %d %s %s\n", sshd.port(), sshd.dir().constData(), config.constData());
    std::fflush(stdout);
    char buf[256];
    while (::read(STDIN_FILENO, buf, sizeof buf) > 0) { }
    sshd.stop();
    return 0;
}
