// SPDX-License-Identifier: LGPL-2.1-or-later
// qvfs-test-smbd: runs an SmbdFixture (smbdfixture.h) in a process of its own that is not
// a child of the test, for tests that check that they leave no child process behind (the
// conformance suite: smbd would count as the test's child otherwise).
//
// The program forks at once and the first process exits: the second one, reparented,
// starts the fixture and writes one line to standard output:
//
//   ok PORT DIR USER PASSWORD     the server's port, the fixture's folder (the share
//                                 "share" serves DIR/share, "guest" DIR/guest), the
//                                 account that may log in to "share" and its password
//   error WHY                     it could not start (WHY: the reason, one line)
//
// then waits until its standard input ends (the test closed it, or went away), stops the
// fixture (smbd, samba-dcerpcd, every file it made) and exits, which closes standard
// output.
#include "smbdfixture.h"

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
    QvfsTest::SmbdFixture smbd;
    QString why;
    if (!smbd.start(&why)) {
        std::printf("error %s\n", qPrintable(why.simplified()));
        std::fflush(stdout);
        return 1;
    }
    std::printf(
        "ok %d %s %s %s\n", smbd.port(), smbd.dir().constData(), smbd.user().constData(), smbd.password().constData());
    std::fflush(stdout);
    char buf[256];
    while (::read(STDIN_FILENO, buf, sizeof buf) > 0) { }
    smbd.stop();
    return 0;
}
