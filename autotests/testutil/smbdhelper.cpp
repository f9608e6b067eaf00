// SPDX-License-Identifier: LGPL-2.1-or-later
// qvfs-test-smbd: runs an SmbdFixture (smbdfixture.h) in a process of its own that is not
// a child of the test, for tests that check that they leave no child process behind (the
// conformance suite: smbd would count as the test's child otherwise).
//
// The program (FixtureHelper's other side, fixturehelper.h: runFixtureHelper()) forks at
// once and the first process exits: the second one, reparented, starts the fixture and
// writes one line to standard output:
//
//   ok PORT DIR USER PASSWORD     the server's port, the fixture's folder (the share
//                                 "share" serves DIR/share, "guest" DIR/guest), the
//                                 account that may log in to "share" and its password
//   error WHY                     it could not start (WHY: the reason, one line)
//
// then waits until its standard input ends (the test closed it, or went away) or a
// SIGTERM, SIGINT or SIGHUP comes, stops the fixture (smbd, samba-dcerpcd, every file it
// made) and exits, which closes standard output.
#include "fixturehelper.h"
#include "smbdfixture.h"

#include <memory>

int main(int argc, char **argv)
{
    std::unique_ptr<QvfsTest::SmbdFixture> smbd;
    return QvfsTest::runFixtureHelper(
        argc, argv,
        [&](QString *why) -> QList<QByteArray> {
            smbd = std::make_unique<QvfsTest::SmbdFixture>();
            if (!smbd->start(why))
                return {};
            return { QByteArray::number(smbd->port()), smbd->dir(), smbd->user(), smbd->password() };
        },
        [&] { smbd.reset(); });
}
